//! Standard base64 (RFC 4648, with padding), as GitHub's contents API encodes file bodies.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Encodes bytes as padded standard base64.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        // A chunk of k bytes yields k + 1 significant sextets; the rest is padding.
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Encodes like [`encode`], with a newline after every `width` characters and at the end, as
/// GitHub's contents API does (it uses a width of 60).
pub(crate) fn encode_wrapped(bytes: &[u8], width: usize) -> String {
    let flat = encode(bytes);
    let width = width.max(1);
    let mut out = String::with_capacity(flat.len() + flat.len() / width + 1);
    for (i, c) in flat.chars().enumerate() {
        if i > 0 && i % width == 0 {
            out.push('\n');
        }
        out.push(c);
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4648_test_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, expected) in cases {
            assert_eq!(encode(input.as_bytes()), expected, "encoding {input:?}");
        }
    }

    #[test]
    fn high_bytes_and_utf8_use_the_whole_alphabet() {
        assert_eq!(encode(&[0xff, 0xfe, 0xfd]), "//79");
        assert_eq!(encode(&[0xfb, 0xef, 0xbe]), "++++");
        assert_eq!(encode("é".as_bytes()), "w6k=");
    }

    #[test]
    fn wrapping_inserts_newlines_every_width_characters() {
        let wrapped = encode_wrapped(&[0u8; 60], 60);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), 60);
        assert_eq!(lines[1], "AAAAAAAAAAAAAAAAAAAA");
        assert!(wrapped.ends_with('\n'));
        assert_eq!(encode_wrapped(b"foo", 60), "Zm9v\n");
    }
}
