//! Proofs that the decoder's cost is linear and its memory bounded, by counting the work it does
//! (bytes searched, bytes moved, buffer capacity) rather than timing it.

use super::LineDecoder;

/// Pushes chunks of the given sizes, cycling, and returns every frame's length.
fn feed(decoder: &mut LineDecoder, input: &[u8], sizes: &[usize]) -> Vec<usize> {
    let mut lens = Vec::new();
    let mut rest = input;
    for &size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        decoder.push(chunk);
        while let Some(frame) = decoder.next_frame() {
            lens.push(frame.expect("valid frame").len());
        }
        rest = tail;
    }
    lens
}

#[test]
fn a_multi_megabyte_frame_in_one_byte_chunks_is_searched_once() {
    let big = 3 << 20;
    let mut input = b"{\"small\":1}\n".to_vec();
    input.extend(std::iter::repeat_n(b'x', big));
    input.extend_from_slice(b"\r\n{\"after\":2}\n");
    let mut decoder = LineDecoder::new(big);
    let lens = feed(&mut decoder, &input, &[1]);
    assert_eq!(lens, [11, big, 11]);
    let work = decoder.work();
    let total = input.len() as u64;
    // Every byte searched exactly once: a decoder that rescanned the unfinished line on each
    // push would search about big²/2 bytes here.
    assert_eq!(work.scanned, total, "bytes searched for a newline");
    assert!(work.moved <= total, "compaction moved {} bytes", work.moved);
}

#[test]
fn mixed_frames_in_irregular_chunks_cost_linear_work() {
    // Small frames around big ones, in chunk sizes that end inside lines, so compaction has
    // unfinished lines to move again and again.
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for i in 0..200 {
        let len = if i % 50 == 7 { 300_000 } else { 40 + i };
        input.extend(std::iter::repeat_n(b'a', len));
        input.push(b'\n');
        expected.push(len);
    }
    let mut decoder = LineDecoder::new(1 << 20);
    let lens = feed(&mut decoder, &input, &[1, 13, 4096, 5, 65_536, 977]);
    assert_eq!(lens, expected);
    let work = decoder.work();
    let total = input.len() as u64;
    assert_eq!(work.scanned, total, "bytes searched for a newline");
    assert!(work.moved <= total, "compaction moved {} bytes", work.moved);
}

#[test]
fn an_over_long_frame_never_grows_the_buffer_past_the_limit() {
    let max = 1000;
    let line_len = 5_000_000;
    let mut decoder = LineDecoder::new(max);
    let mut input = std::iter::repeat_n(b'z', line_len).collect::<Vec<u8>>();
    input.extend_from_slice(b"\nok\n");
    let mut rest = &input[..];
    let mut sizes = [1usize, 99, 333, 7].iter().cycle();
    let mut seen = Vec::new();
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at((*sizes.next().unwrap_or(&1)).min(rest.len()));
        decoder.push(chunk);
        // The unfinished line may hold `max + 1` bytes (a final `\r` is not counted yet).
        assert!(
            decoder.buffered_len() <= max + 1,
            "{}",
            decoder.buffered_len()
        );
        assert!(
            decoder.capacity() <= 2 * (max + 1),
            "{}",
            decoder.capacity()
        );
        while let Some(item) = decoder.next_frame() {
            seen.push(item.map(str::to_owned));
        }
        rest = tail;
        if rest.len() == 4 {
            assert_eq!(decoder.discarding(), Some(line_len));
        }
    }
    assert_eq!(decoder.discarding(), None);
    assert_eq!(
        seen,
        [
            Err(super::FrameError::TooLong {
                len: line_len,
                max,
                edges: super::LineEdges {
                    head: vec![b'z'; super::EDGE_BYTES],
                    tail: vec![b'z'; super::EDGE_BYTES],
                },
            }),
            Ok("ok".to_owned())
        ]
    );
}

#[test]
fn the_buffer_of_a_big_frame_is_released_once_drained() {
    let mut decoder = LineDecoder::default();
    let mut big = vec![b'q'; 8 << 20];
    big.push(b'\n');
    assert_eq!(feed(&mut decoder, &big, &[65_536]), [8 << 20]);
    assert!(decoder.capacity() >= 8 << 20);
    assert_eq!(feed(&mut decoder, b"{}\n", &[3]), [2]);
    assert!(decoder.capacity() <= 1 << 20, "{}", decoder.capacity());
}
