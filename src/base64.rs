//! Base64 decoding, lenient: file contents from the GitHub API (base64 wrapped in lines) and,
//! behind a stricter check, the parts of a JWT (`mcp::oauth::encoding::base64url_decode`).

/// Decodes standard or URL-safe base64; whitespace is skipped and padding is optional.
pub(crate) fn decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    let mut padding = false;
    for (i, byte) in text.bytes().enumerate() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => {
                padding = true;
                continue;
            }
            b if b.is_ascii_whitespace() => continue,
            _ => {
                return Err(format!(
                    "invalid base64 character {:?} at byte {i}",
                    char::from(byte)
                ))
            }
        };
        if padding {
            return Err(format!("base64 data continues after padding at byte {i}"));
        }
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Six leftover bits cannot encode a byte: the input lost a character.
    if bits == 6 {
        return Err("base64 data is truncated".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_padded_unpadded_wrapped_and_url_safe() {
        assert_eq!(decode("").unwrap(), b"");
        assert_eq!(decode("Zg==").unwrap(), b"f");
        assert_eq!(decode("Zm8=").unwrap(), b"fo");
        assert_eq!(decode("Zm9v").unwrap(), b"foo");
        assert_eq!(decode("Zm9vYg").unwrap(), b"foob");
        assert_eq!(decode("Zm9v\nYmFy\r\n").unwrap(), b"foobar");
        assert_eq!(decode("5L2g5aW9").unwrap(), "你好".as_bytes());
        assert_eq!(decode("-_8=").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode("+/8=").unwrap(), [0xfb, 0xff]);
    }

    #[test]
    fn rejects_garbage() {
        assert_eq!(
            decode("Zm9v!").unwrap_err(),
            "invalid base64 character '!' at byte 4"
        );
        assert_eq!(
            decode("Zg==Zg==").unwrap_err(),
            "base64 data continues after padding at byte 4"
        );
        assert_eq!(decode("Zm9vY").unwrap_err(), "base64 data is truncated");
    }
}
