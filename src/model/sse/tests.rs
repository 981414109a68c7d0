use super::*;

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
