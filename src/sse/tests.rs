use super::*;
use crate::framing::LineEdges;

/// Feeds `input` in pieces of `size` bytes and collects every event, `finish` included.
fn decode_in_chunks(input: &[u8], size: usize) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    for chunk in input.chunks(size.max(1)) {
        decoder.push(chunk).unwrap();
        while let Some(e) = decoder.next_event() {
            events.push(e);
        }
    }
    events.extend(decoder.finish());
    while let Some(e) = decoder.next_event() {
        events.push(e);
    }
    events
}

fn ev(event: &str, data: &str, id: Option<&str>, retry: Option<u64>) -> SseEvent {
    SseEvent {
        event: event.into(),
        data: data.into(),
        id: id.map(Into::into),
        retry,
    }
}

/// A stream exercising every rule at once: comments, multi-line data, event types, ids that
/// persist, retry, a field without colon, unknown fields, a value without the optional space,
/// an id-only block (not dispatched) and mixed line endings.
const MIXED: &[u8] = b"\xEF\xBB\xBF: keep-alive comment\r\n\
event: update\r\n\
id: 7\r\n\
retry: 3000\r\n\
data: first line\r\n\
data:second line\r\n\
\r\n\
data: {\"a\":1}\n\
unknown: ignored\n\
\n\
id: 9\r\r\
data\rdata: x\r\r\
id\n\
retry: soon\n\
data: after reset\n\n";

fn mixed_expected() -> Vec<SseEvent> {
    vec![
        ev("update", "first line\nsecond line", Some("7"), Some(3000)),
        ev("message", "{\"a\":1}", Some("7"), None),
        ev("message", "\nx", Some("9"), None),
        ev("message", "after reset", None, None),
    ]
}

#[test]
fn decodes_every_field_kind_and_line_ending() {
    assert_eq!(decode_in_chunks(MIXED, MIXED.len()), mixed_expected());
}

#[test]
fn any_split_gives_the_same_events() {
    for size in 1..=MIXED.len() {
        assert_eq!(
            decode_in_chunks(MIXED, size),
            mixed_expected(),
            "chunk size {size}"
        );
    }
    // Every two-way split, too: catches a CR at the end of one chunk and LF at the next.
    for cut in 0..=MIXED.len() {
        let mut decoder = SseDecoder::new();
        decoder.push(&MIXED[..cut]).unwrap();
        decoder.push(&MIXED[cut..]).unwrap();
        let mut events: Vec<_> = std::iter::from_fn(|| decoder.next_event()).collect();
        events.extend(decoder.finish());
        assert_eq!(events, mixed_expected(), "cut at {cut}");
    }
}

#[test]
fn crlf_split_across_chunks_is_one_line_ending() {
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: a\r").unwrap();
    decoder.push(b"\n").unwrap();
    // If the LF above were taken as a second (blank) line, this would already be dispatched.
    assert_eq!(decoder.next_event(), None);
    decoder.push(b"data: b\r").unwrap();
    decoder.push(b"").unwrap(); // an empty chunk must not forget the pending CR
    decoder.push(b"\n\r\n").unwrap();
    assert_eq!(decoder.next_event().unwrap().data, "a\nb");
    assert_eq!(decoder.next_event(), None);
}

#[test]
fn blocks_without_data_are_not_dispatched_but_remember_the_id() {
    let mut decoder = SseDecoder::new();
    decoder
        .push(b"event: ping\nid: 42\n\n: just a comment\n\n")
        .unwrap();
    assert_eq!(decoder.next_event(), None);
    assert_eq!(decoder.last_event_id(), Some("42"));
    decoder.push(b"data:\n\n").unwrap();
    // `data:` with an empty value still makes an (empty) event, typed "message" again.
    assert_eq!(
        decoder.next_event(),
        Some(ev("message", "", Some("42"), None))
    );
}

#[test]
fn ids_with_nul_and_bad_retry_values_are_ignored() {
    let events = decode_in_chunks(
        b"id: 1\n\ndata: a\nid: bad\0id\nretry: 12x\nretry: 99999999999999999999999\n\n",
        4,
    );
    assert_eq!(events, vec![ev("message", "a", Some("1"), None)]);
}

#[test]
fn openai_style_stream_with_done_marker() {
    let input = b"data: {\"choices\":[]}\n\ndata: [DONE]\n\n";
    let events = decode_in_chunks(input, 5);
    let data: Vec<_> = events.iter().map(|e| e.data.as_str()).collect();
    assert_eq!(data, ["{\"choices\":[]}", "[DONE]"]);
}

#[test]
fn finish_dispatches_an_unterminated_last_event() {
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: complete\n\ndata: tail").unwrap();
    assert_eq!(decoder.next_event().unwrap().data, "complete");
    assert_eq!(decoder.next_event(), None);
    assert_eq!(decoder.finish().unwrap().data, "tail");
    assert_eq!(decoder.finish(), None, "finish is idempotent");
}

#[test]
fn a_bom_is_only_stripped_at_the_start() {
    let events = decode_in_chunks(b"\xEF\xBB\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n", 1);
    assert_eq!(
        events.len(),
        1,
        "the second BOM makes an unknown field name"
    );
    assert_eq!(events[0].data, "a");
    // Bytes that only start like a BOM are kept.
    let events = decode_in_chunks(b"\xEFdata: c\n\n", 1);
    assert!(events.is_empty(), "field name is \\xEFdata, not data");
    assert_eq!(
        decode_in_chunks(b"data: \xEF\xBB\n\n", 1)[0].data,
        "\u{FFFD}"
    );
}

#[test]
fn oversized_events_are_discarded_and_decoding_resumes() {
    for size in [1, 3, 1000] {
        let mut decoder = SseDecoder::with_max_event_bytes(16);
        let input = b"data: 0123456789\ndata: 0123456789\n\ndata: ok\n\n\
            data: an endless line that keeps going\nstill: skipped\n\ndata: fine\n\n";
        let mut errors = 0;
        let mut events = Vec::new();
        for chunk in input.chunks(size) {
            if let Err(e) = decoder.push(chunk) {
                assert_eq!(e.limit, 16);
                assert!(e.to_string().contains("16 bytes"), "{e}");
                errors += 1;
            }
            events.extend(std::iter::from_fn(|| decoder.next_event()));
        }
        let data: Vec<_> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["ok", "fine"], "chunk size {size}");
        assert!(errors >= 1, "chunk size {size}: no error reported");
    }
}

#[test]
fn long_input_in_tiny_chunks_is_linear_enough() {
    // 200 events of 2 KB each, fed one byte at a time: quadratic rescanning would be very slow.
    let body = "x".repeat(2048);
    let input: Vec<u8> = (0..200)
        .flat_map(|i| format!("id: {i}\ndata: {body}\n\n").into_bytes())
        .collect();
    let events = decode_in_chunks(&input, 1);
    assert_eq!(events.len(), 200);
    assert_eq!(events[199].id.as_deref(), Some("199"));
    assert!(events.iter().all(|e| e.data == body));
}

#[test]
fn a_retry_field_in_a_block_without_data_still_sets_the_reconnection_time() {
    let mut decoder = SseDecoder::new();
    assert_eq!(decoder.reconnection_time(), None);
    decoder.push(b"retry: 250\n\n").unwrap();
    assert_eq!(decoder.next_event(), None, "no data, no event");
    assert_eq!(decoder.reconnection_time(), Some(250));
    // It persists across later events, and a bad value leaves it alone.
    decoder.push(b"retry: 12x\ndata: a\n\n").unwrap();
    assert_eq!(decoder.next_event(), Some(ev("message", "a", None, None)));
    assert_eq!(decoder.reconnection_time(), Some(250));
    decoder.push(b"retry: 40\ndata: b\n\n").unwrap();
    assert_eq!(
        decoder.next_event(),
        Some(ev("message", "b", None, Some(40)))
    );
    assert_eq!(decoder.reconnection_time(), Some(40));
}

/// Feeds `input` in pieces of `size` bytes to a decoder limited to `limit`; returns the events,
/// the dropped events and how many errors `push` returned.
fn decode_limited(
    input: &[u8],
    size: usize,
    limit: usize,
) -> (Vec<SseEvent>, Vec<DroppedEvent>, usize) {
    let mut decoder = SseDecoder::with_max_event_bytes(limit);
    let (mut events, mut dropped, mut errors) = (Vec::new(), Vec::new(), 0);
    for chunk in input.chunks(size.max(1)) {
        if let Err(e) = decoder.push(chunk) {
            assert_eq!(e.limit, limit);
            errors += 1;
        }
        events.extend(std::iter::from_fn(|| decoder.next_event()));
        dropped.extend(std::iter::from_fn(|| decoder.next_dropped()));
    }
    events.extend(decoder.finish());
    events.extend(std::iter::from_fn(|| decoder.next_event()));
    dropped.extend(std::iter::from_fn(|| decoder.next_dropped()));
    (events, dropped, errors)
}

fn edges_of(data: &[u8]) -> LineEdges {
    let mut edges = LineEdges::default();
    edges.extend(data);
    edges
}

#[test]
fn a_dropped_event_keeps_the_edges_of_its_data_in_any_chunking() {
    let big = "x".repeat(900);
    // Data over two lines, the first far over the limit on its own, the second short: the
    // edges are those of the data as it would have been dispatched.
    let first = format!("{{\"result\":{{\"t\":\"{big}\"}},");
    let second = "\"jsonrpc\":\"2.0\",\"id\":42}";
    let data = format!("{first}\n{second}");
    let expected = edges_of(data.as_bytes());
    for (eol, sep) in [("\n", " "), ("\r\n", ""), ("\r", " ")] {
        let input = format!(
            "id: 1{eol}data:{sep}{first}{eol}data:{sep}{second}{eol}{eol}data: ok{eol}{eol}"
        );
        let mut sizes: Vec<usize> = vec![1, 2, 3, 5, 6, 7, 64, 127, 128, 129, 199, 201, 500];
        sizes.push(input.len());
        for size in sizes {
            let (events, dropped, errors) = decode_limited(input.as_bytes(), size, 200);
            let context = format!("eol {eol:?}, chunks of {size}");
            assert_eq!(errors, 1, "{context}: one error per dropped event");
            assert_eq!(
                dropped,
                vec![DroppedEvent {
                    event: "message".into(),
                    edges: expected.clone(),
                    limit: 200
                }],
                "{context}"
            );
            let data: Vec<_> = events.iter().map(|e| e.data.as_str()).collect();
            assert_eq!(data, ["ok"], "{context}");
        }
        // Every two-way split too: the `data:` name and its optional space may straddle it.
        for cut in 0..=input.len() {
            let mut decoder = SseDecoder::with_max_event_bytes(200);
            let _ = decoder.push(&input.as_bytes()[..cut]);
            let _ = decoder.push(&input.as_bytes()[cut..]);
            assert_eq!(
                decoder.next_dropped().map(|d| d.edges),
                Some(expected.clone()),
                "eol {eol:?}, cut at {cut}"
            );
        }
    }
}

#[test]
fn many_short_data_lines_over_the_limit_keep_their_edges_too() {
    // No single line is too long: the event as a whole is.
    let lines: Vec<String> = (0..40).map(|i| format!("\"part {i:02}\",")).collect();
    let input = format!(
        "data: [\n{}\ndata: 0]\n\n",
        lines
            .iter()
            .map(|l| format!("data: {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let data = format!("[\n{}\n0]", lines.join("\n"));
    for size in [1, 10, input.len()] {
        let (events, dropped, errors) = decode_limited(input.as_bytes(), size, 100);
        assert!(events.is_empty());
        assert_eq!(errors, 1, "chunks of {size}");
        assert_eq!(dropped.len(), 1, "chunks of {size}");
        assert_eq!(
            dropped[0].edges,
            edges_of(data.as_bytes()),
            "chunks of {size}"
        );
    }
}

#[test]
fn a_dropped_event_reports_its_type_and_only_events_with_data_are_reported() {
    let big = "y".repeat(300);
    // The type may come after the data that overflowed.
    let input = format!(
        "data: {big}\nevent: custom\n\nunknown: {big}\n\n\
         : {big}\ndata: fine\n\ndata: cut by the end {big}"
    );
    for size in [1, 50, input.len()] {
        let (events, dropped, errors) = decode_limited(input.as_bytes(), size, 100);
        let context = format!("chunks of {size}");
        let data: Vec<_> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["fine"], "{context}");
        // The custom event, and the last one, ended by the end of the stream; the field with
        // no data is not reported, and a long comment is skipped without harm to its event.
        let kinds: Vec<_> = dropped.iter().map(|d| d.event.as_str()).collect();
        assert_eq!(kinds, ["custom", "message"], "{context}");
        assert_eq!(dropped[0].edges, edges_of(big.as_bytes()), "{context}");
        assert_eq!(
            dropped[1].edges,
            edges_of(format!("cut by the end {big}").as_bytes()),
            "{context}"
        );
        // Byte by byte, each of the three oversized events errs once; a bigger chunk may hold
        // several of them, and one push returns one error.
        match size {
            1 => assert_eq!(errors, 3, "{context}"),
            _ => assert!(errors >= 1, "{context}"),
        }
    }
}

#[test]
fn an_unlimited_decoder_or_small_events_drop_nothing() {
    let input = format!("data: {}\n\n", "z".repeat(5000));
    let mut decoder = SseDecoder::new();
    decoder.push(input.as_bytes()).unwrap();
    assert_eq!(decoder.next_event().unwrap().data.len(), 5000);
    assert_eq!(decoder.next_dropped(), None);
    let (events, dropped, errors) = decode_limited(MIXED, 1, 64);
    assert_eq!((events, dropped, errors), (mixed_expected(), vec![], 0));
}

#[test]
fn invalid_utf8_cannot_take_an_event_past_the_limit_once_decoded() {
    // Found by fuzzing (fuzz/regressions/sse/invalid-utf8-triples-the-data): each invalid byte
    // decodes to U+FFFD, three bytes, so 12 bytes on the wire that fit a limit of 16 became 30
    // bytes of data. The limit holds for what comes out.
    let input = b"data: \xff\xfe\xfd\xfc\xfb\xfa\n\ndata: ok\n\n";
    for size in [1, 2, 5, 100] {
        let (events, dropped, errors) = decode_limited(input, size, 16);
        let data: Vec<_> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["ok"], "chunk size {size}");
        assert_eq!(errors, 1, "chunk size {size}");
        assert_eq!(dropped.len(), 1, "chunk size {size}");
        assert_eq!(dropped[0].edges, edges_of(b"\xff\xfe\xfd\xfc\xfb\xfa"));
    }
    // Valid text of the same length is kept, and so is a mix that fits decoded.
    let (events, dropped, _) = decode_limited(b"data: \xc3\xa9t\xc3\xa9 \xff ok\n\n", 3, 16);
    assert_eq!(events[0].data, "été \u{fffd} ok");
    assert!(dropped.is_empty());
}

#[test]
fn a_field_line_over_the_limit_is_ignored_however_it_arrives() {
    // Found by fuzzing (fuzz/regressions/sse/overlong-event-line-arriving-whole): an `event:`
    // (or `id:`) line longer than the limit set the event's type when it arrived in one piece,
    // but was skipped when it arrived in several. It is skipped either way.
    let long = "x".repeat(40);
    let input = format!("event: {long}\nid: {long}\ndata: a\n\nid: 7\ndata: b\n\n");
    for size in [1, 3, 1000] {
        let (events, dropped, errors) = decode_limited(input.as_bytes(), size, 32);
        assert_eq!(
            events,
            [ev("message", "b", Some("7"), None)],
            "chunk size {size}"
        );
        assert_eq!(errors, 1, "chunk size {size}");
        assert_eq!(dropped.len(), 1, "chunk size {size}");
        assert_eq!(dropped[0].event, "message", "chunk size {size}");
    }
}
