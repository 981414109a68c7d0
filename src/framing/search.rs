//! The newline search: a word-at-a-time scan, because a byte-at-a-time loop is the framing
//! layer's bottleneck on large frames and the core takes no `memchr` dependency.

const LSB: u64 = 0x0101_0101_0101_0101;
const MSB: u64 = 0x8080_8080_8080_8080;
/// `\n` repeated in every byte of a word.
const NEWLINES: u64 = LSB * b'\n' as u64;

/// Whether any byte of `word` is `\n`. Exact: the classic "has a zero byte" trick applied to
/// `word ^ NEWLINES`, whose only false positives come after a true one.
#[inline(always)]
fn has_newline(word: u64) -> bool {
    let x = word ^ NEWLINES;
    x.wrapping_sub(LSB) & !x & MSB != 0
}

/// The index of the first `\n` in `haystack`.
///
/// Scans 16 bytes per step with two 64-bit words (portable: the same code serves wasm32, where
/// there are no SIMD intrinsics to lean on), then finds the exact byte in the block that hit.
#[inline]
pub(crate) fn find_newline(haystack: &[u8]) -> Option<usize> {
    let mut blocks = haystack.chunks_exact(16);
    let mut offset = 0;
    for block in &mut blocks {
        let (lo, hi) = block.split_at(8);
        // `split_at(8)` of a 16-byte block yields two 8-byte halves, so neither conversion fails.
        let lo = u64::from_le_bytes(lo.try_into().unwrap_or_default());
        let hi = u64::from_le_bytes(hi.try_into().unwrap_or_default());
        if has_newline(lo) || has_newline(hi) {
            return block.iter().position(|&b| b == b'\n').map(|i| offset + i);
        }
        offset += 16;
    }
    blocks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| offset + i)
}

#[cfg(test)]
mod tests {
    use super::find_newline;

    #[test]
    fn agrees_with_a_plain_scan_at_every_position_and_length() {
        // Every newline position in haystacks of every length up to a few blocks, with
        // neighbours that stress the bit trick (0x0B, 0x09, 0x8A, 0xFF around 0x0A).
        for len in 0..70 {
            for fill in [b'a', 0x0B, 0x09, 0x8A, 0xFF, 0x00] {
                let mut hay = vec![fill; len];
                assert_eq!(find_newline(&hay), None, "len {len} fill {fill:#x}");
                for at in 0..len {
                    hay.fill(fill);
                    hay[at] = b'\n';
                    if at + 3 < len {
                        hay[at + 3] = b'\n';
                    }
                    assert_eq!(
                        find_newline(&hay),
                        Some(at),
                        "len {len} at {at} fill {fill:#x}"
                    );
                }
            }
        }
    }
}
