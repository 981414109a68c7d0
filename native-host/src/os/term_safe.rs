//! Text from peers (tool output, descriptions, model text, server stderr) made safe to print.
//!
//! A terminal obeys control characters wherever they come from: a tool result carrying
//! `ESC ] 52 ; c ; …` writes the user's clipboard, `ESC [ 2 J` clears the screen, a bare CR or
//! cursor moves overwrite a line (a fake approval prompt), and bidi overrides make text read
//! differently from what it is. So every character a terminal may act on, except newline and
//! tab, is printed as its `\uXXXX` escape: ESC as `\u001b`, CR as `\u000d`, BEL as `\u0007`,
//! DEL as `\u007f`, the C1 controls U+0080–U+009F (`\u009b` is a one-character CSI) and the
//! bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
//!
//! JSON's own notation on purpose: inside a serialized JSON string the escape means the same
//! character, so one filter keeps both human lines and `--json` NDJSON valid (serde_json leaves
//! DEL, C1 and bidi characters raw). Outside strings, JSON never contains these characters.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether a terminal could act on `c` (newline and tab are the two kept as they are).
pub fn is_unsafe(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// `text` with every character a terminal would act on shown as its `\uXXXX` escape; borrowed
/// (no copy) when there is none.
pub fn visible(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(is_unsafe) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if is_unsafe(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as it may enter the line editor (a Tab completion from a server): like [`visible`],
/// and newline and tab shown as escapes too, since either would break the edited line.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.contains(['\n', '\t']) {
        return visible(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) || c == '\n' || c == '\t' {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `println!` through [`visible`], ignoring a closed stdout (`agentwire tools | head` must not
/// panic). Every line the CLI prints on stdout goes through it.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stdout().lock(), "{}", $crate::os::term_safe::visible(&line));
    }};
}

/// `eprintln!` through [`visible`]: for messages that may carry peer text (server errors and
/// stderr, tool names, URLs from servers).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stderr().lock(), "{}", $crate::os::term_safe::visible(&line));
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_and_text_is_kept() {
        let table: &[(&str, &str)] = &[
            ("plain text, 中文, émoji 🎉", "plain text, 中文, émoji 🎉"),
            ("line one\nline two\tcolumn", "line one\nline two\tcolumn"),
            // OSC 52: write "hello" to the clipboard, ended by BEL.
            ("\x1b]52;c;aGVsbG8=\x07", "\\u001b]52;c;aGVsbG8=\\u0007"),
            ("\x1b[2J\x1b[H", "\\u001b[2J\\u001b[H"),
            ("safe\rAllow? [y]", "safe\\u000dAllow? [y]"),
            ("\x1b[1A\x1b[2K", "\\u001b[1A\\u001b[2K"),
            (
                "nul\0bs\x08vt\x0bff\x0c",
                "nul\\u0000bs\\u0008vt\\u000bff\\u000c",
            ),
            ("del\x7f", "del\\u007f"),
            ("\u{80}\u{9b}2J\u{9f}", "\\u0080\\u009b2J\\u009f"),
            // U+00A0 (no-break space) is the first character after C1: kept.
            ("\u{a0}", "\u{a0}"),
            ("abc\u{202e}txt.exe", "abc\\u202etxt.exe"),
            (
                "\u{202a}\u{202b}\u{202c}\u{202d}",
                "\\u202a\\u202b\\u202c\\u202d",
            ),
            ("\u{2066}x\u{2069}", "\\u2066x\\u2069"),
            // Neighbours of the bidi ranges stay.
            (
                "\u{2029}\u{202f}\u{2065}\u{206a}",
                "\u{2029}\u{202f}\u{2065}\u{206a}",
            ),
        ];
        for (input, expected) in table {
            assert_eq!(visible(input), *expected, "input {input:?}");
        }
    }

    #[test]
    fn one_line_also_shows_newline_and_tab() {
        assert_eq!(one_line("v0\x1b[2J"), "v0\\u001b[2J");
        assert_eq!(one_line("a\nb\tc\x07"), "a\\u000ab\\u0009c\\u0007");
        assert_eq!(one_line("plain é"), "plain é");
        assert!(matches!(one_line("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn safe_text_is_borrowed() {
        assert!(matches!(visible("nothing to do\n"), Cow::Borrowed(_)));
        assert!(matches!(visible("\x1b"), Cow::Owned(_)));
    }

    #[test]
    fn escaped_json_still_parses_to_the_same_value() {
        let value = serde_json::json!({"text": "a\u{7f}b\u{85}c\u{202e}d\x1b"});
        let line = value.to_string();
        let shown = visible(&line);
        assert!(!shown.contains(is_unsafe), "{shown}");
        let back: serde_json::Value = serde_json::from_str(&shown).expect("still JSON");
        assert_eq!(back, value);
    }
}
