//! Text → index terms, the same way for tool text and queries.
//!
//! Words are runs of letters and digits, split at `_`, `-`, `.`, spaces and camelCase humps
//! (`listDirectory`, `HTMLFile`), lower-cased, with function words dropped and a light suffix
//! folding (plural `-s`/`-es`/`-ies`, `-ing`, `-ed`, a final `-e`) so `issues`, `issue`,
//! `creating` and `create` meet. Chinese (CJK) runs have no spaces: known request words are
//! matched longest-first against the lexicon and stand for their English terms; the rest become
//! overlapping character pairs, which match Chinese tool text if a catalog has any.

use super::lexicon;

/// Words too common to tell tools apart; dropped from tool text and queries alike. Each word is
/// followed by a space (one string, no table of pointers in the wasm module).
const STOP_WORDS: &str = concat!(
    "a an and any are as at be by can could do does for from i in into is it its me my of ",
    "on or our please should some that the their them then there these this those to tool ",
    "us want we what which with would you your ",
);

/// Single Chinese characters that carry no request meaning on their own (particles, pronouns).
const CJK_STOP_CHARS: &str = "的了是在和把我你他她它请吗呢吧啊个一这那些给用要想帮下中里上";

/// The index terms of `text`, in order (duplicates kept: they are term frequencies).
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        if is_cjk(chars[i]) {
            while i < chars.len() && is_cjk(chars[i]) {
                i += 1;
            }
            cjk_terms(&chars[start..i], &mut out);
        } else if is_word_char(chars[i]) {
            while i < chars.len() && is_word_char(chars[i]) && !is_cjk(chars[i]) {
                i += 1;
            }
            camel_words(&chars[start..i], &mut out);
        } else {
            i += 1;
        }
    }
    out
}

/// Splits one alphanumeric run at camelCase humps and pushes each piece as a term.
fn camel_words(word: &[char], out: &mut Vec<String>) {
    let mut piece = String::new();
    for i in 0..word.len() {
        let cur = word[i];
        if i > 0 && cur.is_ascii_uppercase() {
            let prev = word[i - 1];
            // An acronym's plural (`PRs`, `URLs`) is not a capitalised word.
            let plural = i + 2 == word.len() && word[i + 1] == 's';
            let next_lower = !plural && i + 1 < word.len() && word[i + 1].is_ascii_lowercase();
            // `listDirectory` splits before `D`; `HTMLFile` splits before `F` (an upper-case
            // run followed by a capitalised word).
            if prev.is_ascii_lowercase() || (prev.is_ascii_uppercase() && next_lower) {
                push_word(&piece, out);
                piece.clear();
            }
        }
        piece.push(cur);
    }
    push_word(&piece, out);
}

/// Lower-cases, drops a stop word, folds the suffix, and pushes the term.
pub(crate) fn push_word(word: &str, out: &mut Vec<String>) {
    let word = word.to_ascii_lowercase();
    if word.is_empty() || is_stop_word(&word) {
        return;
    }
    out.push(fold(&word));
}

/// Whether `word` is one of [`STOP_WORDS`].
fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.split(' ').any(|stop| stop == word)
}

/// Light suffix folding: enough for plurals and verb forms to meet, not a full stemmer.
pub(crate) fn fold(word: &str) -> String {
    let mut w = word.to_owned();
    if !w.is_ascii() {
        return w;
    }
    // Short plurals of abbreviations: `prs`, `ids` (a consonant before the `s`).
    if w.len() == 3 && w.ends_with('s') && !b"aeiousy".contains(&w.as_bytes()[1]) {
        w.pop();
    }
    if w.len() <= 3 {
        return w;
    }
    if w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with("sses")
        || w.ends_with("xes")
        || w.ends_with("ches")
        || w.ends_with("shes")
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    for suffix in ["ing", "ed"] {
        if w.len() >= suffix.len() + 3 && w.ends_with(suffix) && !w.ends_with("eed") {
            w.truncate(w.len() - suffix.len());
            // `running` → `run`, but `adding` keeps `add` (stems shorter than 3 stay doubled).
            let b = w.as_bytes();
            let n = b.len();
            if n > 3 && b[n - 1] == b[n - 2] && !b"aeioulsz".contains(&b[n - 1]) {
                w.pop();
            }
            break;
        }
    }
    if w.len() > 3 && w.ends_with('e') {
        w.pop();
    }
    w
}

/// Whether `c` belongs to a word: ASCII letters and digits, and any other non-ASCII character
/// that is not a space or CJK/full-width punctuation. ASCII-only case and class tests: the
/// Unicode tables would cost kilobytes of wasm for catalogs that are English in practice.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || (!c.is_ascii()
            && !c.is_whitespace()
            && !matches!(c as u32, 0x2000..=0x206f | 0x3000..=0x303f | 0xff00..=0xff0f | 0xff1a..=0xff20))
}

/// Whether `c` is a CJK ideograph (or kana/hangul), which is written without spaces.
fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0xf900..=0xfaff)
}

/// Terms of one CJK run: lexicon words longest-first, character pairs for the rest.
fn cjk_terms(run: &[char], out: &mut Vec<String>) {
    let mut rest: Vec<char> = Vec::new();
    let mut i = 0;
    while i < run.len() {
        match lexicon::chinese_prefix(&run[i..]) {
            Some((len, english)) => {
                unknown_cjk(&rest, out);
                rest.clear();
                for word in english.split(' ') {
                    push_word(word, out);
                }
                i += len;
            }
            None => {
                rest.push(run[i]);
                i += 1;
            }
        }
    }
    unknown_cjk(&rest, out);
}

/// A CJK stretch the lexicon does not know: its overlapping pairs, or a lone meaningful char.
fn unknown_cjk(chars: &[char], out: &mut Vec<String>) {
    let mut kept: Vec<char> = Vec::new();
    for &c in chars {
        if !CJK_STOP_CHARS.contains(c) {
            kept.push(c);
        }
    }
    if kept.len() == 1 {
        out.push(kept[0].to_string());
    }
    for pair in kept.windows(2) {
        let mut term = String::new();
        term.push(pair[0]);
        term.push(pair[1]);
        out.push(term);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Vec<String> {
        terms(text)
    }

    #[test]
    fn splits_snake_kebab_dots_and_camel_case() {
        assert_eq!(t("list_directory"), ["list", "directory"]);
        assert_eq!(t("get-tiny-image"), ["get", "tiny", "imag"]);
        assert_eq!(t("a.b_c"), ["b", "c"]);
        assert_eq!(t("excludePatterns"), ["exclud", "pattern"]);
        assert_eq!(t("HTMLFile"), ["html", "fil"]);
        assert_eq!(t("perPage v2"), ["per", "pag", "v2"]);
        assert_eq!(t("PRs URLs"), ["pr", "url"]);
        // Other letters are word characters, lower-cased in ASCII only; full-width punctuation
        // and spaces separate words.
        assert_eq!(t("Café，Größe"), ["café", "größe"]);
    }

    #[test]
    fn folds_plurals_and_verb_forms_together() {
        for (a, b) in [
            ("issues", "issue"),
            ("directories", "directory"),
            ("branches", "branch"),
            ("creating", "create"),
            ("created", "create"),
            ("merged", "merge"),
            ("running", "run"),
            ("listing", "list"),
            ("entities", "entity"),
        ] {
            assert_eq!(t(a), t(b), "{a} vs {b}");
        }
        // Short words and words that only look plural are kept.
        assert_eq!(t("add adding status"), ["add", "add", "status"]);
    }

    #[test]
    fn drops_stop_words() {
        assert_eq!(t("Show me the issues of a repo"), ["show", "issu", "repo"]);
    }

    #[test]
    fn chinese_request_words_become_english_terms() {
        let terms = t("查看 vercel/ai 的 issues");
        assert!(terms.contains(&"vercel".to_owned()));
        assert!(terms.contains(&"issu".to_owned()));
        // 查看 is a request word ("view"), not a pair of unknown characters.
        assert!(terms.contains(&"view".to_owned()), "{terms:?}");
        assert!(!terms.iter().any(|term| term.contains('查')));
        // No spaces needed: 删除文件 is "delete" + "file".
        assert_eq!(t("删除文件"), ["delet", "fil"]);
    }

    #[test]
    fn unknown_chinese_becomes_character_pairs_without_particles() {
        assert_eq!(t("天气预报"), ["天气", "气预", "预报"]);
        assert_eq!(t("的"), Vec::<String>::new());
    }
}
