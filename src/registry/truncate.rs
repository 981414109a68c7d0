//! Cutting long tool output by characters, never inside a UTF-8 character.

/// The first `max_chars` characters of `text`, and how many characters were left out.
pub fn char_prefix(text: &str, max_chars: usize) -> (&str, usize) {
    match text.char_indices().nth(max_chars) {
        // `nth` yields a character boundary, so slicing there never splits a character.
        Some((byte, _)) => (&text[..byte], text[byte..].chars().count()),
        None => (text, 0),
    }
}

/// `text` cut to `max_chars` characters plus a marker saying how much was cut.
///
/// Returns the text and `Some(characters cut)`, or the text unchanged and `None` when it fits.
/// The marker comes after the kept characters, so the result is slightly longer than the limit.
pub fn truncate_output(text: &str, max_chars: usize) -> (String, Option<usize>) {
    let (head, cut) = char_prefix(text, max_chars);
    if cut == 0 {
        return (text.to_owned(), None);
    }
    let marker = format!(
        "\n[output truncated: {cut} of {} characters cut, over the tool's limit of {max_chars}]",
        max_chars + cut
    );
    (format!("{head}{marker}"), Some(cut))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(truncate_output("hello", 5), ("hello".to_owned(), None));
        assert_eq!(truncate_output("", 0), (String::new(), None));
    }

    #[test]
    fn cuts_by_characters_with_a_marker() {
        let (out, cut) = truncate_output("abcdefghij", 4);
        assert_eq!(cut, Some(6));
        assert!(out.starts_with("abcd\n[output truncated: 6 of 10 characters cut"));
    }

    #[test]
    fn never_splits_multibyte_characters() {
        // Each of these is 2, 3 and 4 bytes in UTF-8.
        let text = "é€😀é€😀";
        for max in 0..=6 {
            let (out, cut) = truncate_output(text, max);
            let head: String = text.chars().take(max).collect();
            assert!(out.starts_with(&head), "{max}: {out}");
            assert_eq!(cut, (max < 6).then(|| 6 - max), "{max}");
        }
        assert_eq!(char_prefix("😀😀", 1), ("😀", 1));
    }
}
