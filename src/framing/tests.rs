//! Fixture tests in the style of h11: every fixture is fed whole, one byte at a time, in
//! pseudo-random chunks and followed by trailing data, and every way must give the same
//! outputs. Plus linear-time and bounded-memory proofs that count work instead of timing it.

use super::*;
use crate::test_rng::Rng;

/// One output of the decoder, owned so runs can be compared.
#[derive(Clone, Debug, PartialEq)]
enum Out {
    Frame(String),
    Error(FrameError),
    /// What `finish` returned.
    Eof(Option<FrameError>),
}

struct Fixture {
    name: &'static str,
    max: usize,
    input: Vec<u8>,
    expected: Vec<Out>,
}

fn frame(s: &str) -> Out {
    Out::Frame(s.to_owned())
}

/// The error for `line` (without its line ending) being over `max`: its length and its edges.
fn too_long_error(line: &str, max: usize) -> FrameError {
    FrameError::TooLong {
        len: line.len(),
        max,
        edges: LineEdges::starting_with(line.as_bytes()),
    }
}

fn too_long(line: &str, max: usize) -> Out {
    Out::Error(too_long_error(line, max))
}

fn fixtures() -> Vec<Fixture> {
    let fx = |name, max, input: &[u8], expected: Vec<Out>| Fixture {
        name,
        max,
        input: input.to_vec(),
        expected,
    };
    let x = |n: usize| "x".repeat(n);
    vec![
        fx("empty input", 64, b"", vec![Out::Eof(None)]),
        fx(
            "one line",
            64,
            b"{\"a\":1}\n",
            vec![frame("{\"a\":1}"), Out::Eof(None)],
        ),
        fx(
            "several lines in one chunk",
            64,
            b"a\nbb\nccc\n",
            vec![frame("a"), frame("bb"), frame("ccc"), Out::Eof(None)],
        ),
        fx(
            "CRLF",
            64,
            b"one\r\ntwo\r\n",
            vec![frame("one"), frame("two"), Out::Eof(None)],
        ),
        fx(
            "mixed line endings",
            64,
            b"one\ntwo\r\nthree\n",
            vec![frame("one"), frame("two"), frame("three"), Out::Eof(None)],
        ),
        fx(
            "blank lines are skipped",
            64,
            b"\n\na\n\n\r\n\nb\n\n",
            vec![frame("a"), frame("b"), Out::Eof(None)],
        ),
        fx(
            "whitespace-only lines are skipped, inner whitespace kept",
            64,
            b"  \n\t\r\n \r \n a \n",
            vec![frame(" a "), Out::Eof(None)],
        ),
        fx(
            "only one trailing CR is stripped; inner CRs are kept",
            64,
            b"a\rb\nc\r\r\n",
            vec![frame("a\rb"), frame("c\r"), Out::Eof(None)],
        ),
        fx(
            "unicode split anywhere",
            64,
            "héllo 🦀 世界\n→\n".as_bytes(),
            vec![frame("héllo 🦀 世界"), frame("→"), Out::Eof(None)],
        ),
        fx(
            "an escaped newline inside a JSON string is not a line break",
            64,
            b"{\"t\":\"a\\nb\"}\n",
            vec![frame("{\"t\":\"a\\nb\"}"), Out::Eof(None)],
        ),
        fx(
            "control bytes are kept",
            64,
            b"a\0b\x1b\n",
            vec![frame("a\0b\x1b"), Out::Eof(None)],
        ),
        fx(
            "a frame exactly at the limit",
            8,
            b"12345678\n",
            vec![frame("12345678"), Out::Eof(None)],
        ),
        fx(
            "a CRLF frame exactly at the limit (the CR is not counted)",
            8,
            b"12345678\r\nok\n",
            vec![frame("12345678"), frame("ok"), Out::Eof(None)],
        ),
        fx(
            "a frame one byte over the limit, then resync",
            8,
            b"123456789\nok\n",
            vec![too_long("123456789", 8), frame("ok"), Out::Eof(None)],
        ),
        fx(
            "a CRLF frame one byte over the limit",
            8,
            b"123456789\r\nok\r\n",
            vec![too_long("123456789", 8), frame("ok"), Out::Eof(None)],
        ),
        fx(
            "a frame ending in CR CR over the limit counts one CR",
            8,
            b"12345678\r\r\nok\n",
            vec![too_long("12345678\r", 8), frame("ok"), Out::Eof(None)],
        ),
        fx(
            "a far over-long frame between valid lines",
            8,
            format!("a\n{}\r\nb\n{}\n", x(100), x(9)).as_bytes(),
            vec![
                frame("a"),
                too_long(&x(100), 8),
                frame("b"),
                too_long(&x(9), 8),
                Out::Eof(None),
            ],
        ),
        fx(
            "the limit applies to blank lines too",
            4,
            b"          \nok\n",
            vec![too_long("          ", 4), frame("ok"), Out::Eof(None)],
        ),
        fx(
            "invalid UTF-8 between valid lines",
            64,
            b"a\n\xff\xfeab\nb\n",
            vec![
                frame("a"),
                Out::Error(FrameError::InvalidUtf8 {
                    valid_up_to: 0,
                    excerpt: "\u{FFFD}\u{FFFD}ab".into(),
                }),
                frame("b"),
                Out::Eof(None),
            ],
        ),
        fx(
            "a truncated multi-byte character",
            64,
            b"ok\xc3\nnext\n",
            vec![
                Out::Error(FrameError::InvalidUtf8 {
                    valid_up_to: 2,
                    excerpt: "ok\u{FFFD}".into(),
                }),
                frame("next"),
                Out::Eof(None),
            ],
        ),
        fx(
            "missing final newline",
            64,
            b"a\nbcd",
            vec![
                frame("a"),
                Out::Eof(Some(FrameError::UnexpectedEof { buffered: 3 })),
            ],
        ),
        fx(
            "missing final newline after a CR",
            64,
            b"a\nbc\r",
            vec![
                frame("a"),
                Out::Eof(Some(FrameError::UnexpectedEof { buffered: 3 })),
            ],
        ),
        fx(
            "only whitespace after the last newline is not an error",
            64,
            b"a\n  \r",
            vec![frame("a"), Out::Eof(None)],
        ),
        fx(
            "an over-long frame cut by the end of the stream",
            8,
            format!("a\n{}", x(12)).as_bytes(),
            vec![frame("a"), Out::Eof(Some(too_long_error(&x(12), 8)))],
        ),
    ]
}

/// Pushes `chunks` in order, draining after each push, then finishes.
fn run<'a>(max: usize, chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<Out> {
    let mut decoder = LineDecoder::new(max);
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.push(chunk);
        drain(&mut decoder, &mut out);
    }
    out.push(Out::Eof(decoder.finish()));
    assert_eq!(decoder.buffered_len(), 0, "finish leaves nothing buffered");
    out
}

fn drain(decoder: &mut LineDecoder, out: &mut Vec<Out>) {
    while let Some(item) = decoder.next_frame() {
        out.push(match item {
            Ok(line) => Out::Frame(line.to_owned()),
            Err(e) => Out::Error(e),
        });
    }
}

fn random_chunks(input: &[u8], seed: u64, max_chunk: usize) -> Vec<&[u8]> {
    let mut rng = Rng(seed);
    let mut chunks = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let n = (1 + rng.below(max_chunk)).min(rest.len());
        chunks.push(&rest[..n]);
        rest = &rest[n..];
    }
    chunks
}

/// Every way of splitting `input`, named.
fn strategies(input: &[u8]) -> Vec<(String, Vec<&[u8]>)> {
    let mut ways = vec![
        ("whole".to_owned(), vec![input]),
        (
            "whole plus empty chunks".to_owned(),
            vec![&b""[..], input, b""],
        ),
    ];
    for size in [1, 2, 3, 7] {
        ways.push((format!("{size}-byte chunks"), input.chunks(size).collect()));
    }
    for seed in 1..=8 {
        ways.push((
            format!("random chunks, seed {seed}"),
            random_chunks(input, seed, 17),
        ));
    }
    ways
}

#[test]
fn every_fixture_gives_the_same_outputs_however_it_is_fed() {
    for fixture in fixtures() {
        for (how, chunks) in strategies(&fixture.input) {
            let got = run(fixture.max, chunks);
            assert_eq!(got, fixture.expected, "{} ({how})", fixture.name);
        }
    }
}

#[test]
fn trailing_data_after_a_fixture_is_read_normally() {
    // Only fixtures that end on a line boundary: after them the decoder must be back in its
    // initial state, so a following line and an unfinished one behave as on a fresh stream.
    // The trailer's line fits every fixture's limit (4 bytes at the least).
    let trailer: &[u8] = b"tail\n{\"u";
    for fixture in fixtures().into_iter().filter(|f| f.input.ends_with(b"\n")) {
        let mut input = fixture.input.clone();
        input.extend_from_slice(trailer);
        let mut expected = fixture.expected.clone();
        expected.pop(); // the fixture's own end of stream
        expected.push(frame("tail"));
        expected.push(Out::Eof(Some(FrameError::UnexpectedEof { buffered: 3 })));
        for (how, chunks) in strategies(&input) {
            assert_eq!(
                run(fixture.max, chunks),
                expected,
                "{} + trailing data ({how})",
                fixture.name
            );
        }
    }
}

#[test]
fn finish_drops_only_the_unfinished_line_and_the_decoder_reads_on() {
    let mut decoder = LineDecoder::new(16);
    decoder.push(b"queued\nhalf");
    assert_eq!(decoder.pending(), 1);
    assert_eq!(decoder.buffered_len(), 10);
    assert_eq!(
        decoder.finish(),
        Some(FrameError::UnexpectedEof { buffered: 4 })
    );
    assert_eq!(decoder.next_frame(), Some(Ok("queued")));
    assert_eq!(decoder.next_frame(), None);
    assert_eq!(decoder.finish(), None, "the unfinished line was dropped");
    decoder.push(b"fresh\n");
    assert_eq!(decoder.next_frame(), Some(Ok("fresh")));
    assert_eq!(decoder.buffered_len(), 0);
}
