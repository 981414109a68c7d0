//! What the user asked for: a few fixed patterns, in English and Chinese.
//!
//! Deliberately simple keyword rules (this is a stand-in for a model, not a parser), checked in
//! order: weather, arithmetic, then GitHub requests (pull requests, one issue, issues, a file,
//! repository search).

mod github;

use serde_json::{json, Value};

use super::lang::{Capability, Missing};

/// The outcome of reading one user message.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Parsed {
    /// Call the capability's tool with these arguments.
    Call(Capability, Value),
    /// The capability was recognised but a detail is missing.
    Missing(Capability, Missing),
    /// Nothing matched.
    NoFit,
}

/// Reads a user message.
pub(super) fn parse(text: &str) -> Parsed {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    weather(text, &words)
        .or_else(|| calculator(text, &lower, &words))
        .unwrap_or_else(|| github::github(text, &lower, &words))
}

fn has_word(words: &[&str], options: &[&str]) -> bool {
    words.iter().any(|w| options.contains(w))
}

fn has_any(text: &str, options: &[&str]) -> bool {
    options.iter().any(|o| text.contains(o))
}

const PUNCTUATION: &[char] = &[
    ',', '.', '?', '!', ':', ';', '"', '\'', '“', '”', '‘', '’', '(', ')', '，', '。', '？', '！',
    '：', '；', '、', '（', '）', '`',
];

fn trim_punctuation(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || PUNCTUATION.contains(&c))
}

// ---- weather ----

fn weather(text: &str, words: &[&str]) -> Option<Parsed> {
    let zh = has_any(text, &["天气", "气温"]);
    if !zh && !has_word(words, &["weather", "forecast", "temperature"]) {
        return None;
    }
    let city = if zh { zh_city(text) } else { en_city(text) };
    Some(match city {
        Some(city) => Parsed::Call(Capability::Weather, json!({ "city": city })),
        None => Parsed::Missing(Capability::Weather, Missing::City),
    })
}

fn en_city(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let lower: Vec<String> = words
        .iter()
        .map(|w| trim_punctuation(w).to_lowercase())
        .collect();
    let keyword = lower.iter().position(|w| {
        ["weather", "forecast", "temperature"]
            .iter()
            .any(|k| w.starts_with(k))
    })?;
    const STOP: &[&str] = &[
        "today",
        "tomorrow",
        "now",
        "tonight",
        "this",
        "right",
        "please",
        "like",
        "currently",
    ];
    // "weather in Paris", "forecast for New York today?"
    if let Some(prep) = (keyword + 1..words.len())
        .find(|&i| matches!(lower[i].as_str(), "in" | "for" | "at" | "of"))
    {
        let mut city = Vec::new();
        for (word, low) in words[prep + 1..].iter().zip(&lower[prep + 1..]) {
            if STOP.contains(&low.as_str()) {
                break;
            }
            let clean = trim_punctuation(word);
            if !clean.is_empty() {
                city.push(clean);
            }
            if word.ends_with(PUNCTUATION) {
                break;
            }
        }
        if !city.is_empty() {
            return Some(city.join(" "));
        }
    }
    // "Paris weather", "what's the Tokyo forecast"
    const SKIP: &[&str] = &[
        "what", "what's", "whats", "is", "the", "how", "how's", "hows", "show", "me", "tell",
        "get", "today's", "current", "check", "a", "about", "please", "give",
    ];
    let mut city: Vec<&str> = words[..keyword]
        .iter()
        .zip(&lower[..keyword])
        .rev()
        .take_while(|(_, low)| !SKIP.contains(&low.as_str()))
        .map(|(w, _)| trim_punctuation(w).trim_end_matches("'s"))
        .filter(|w| !w.is_empty())
        .collect();
    city.reverse();
    (!city.is_empty()).then(|| city.join(" "))
}

/// `s` without the filler words around a city name ("请问", "今天", "的", punctuation).
fn strip_city_filler(mut s: &str) -> &str {
    const LEADING: &[&str] = &[
        "我想知道",
        "想知道",
        "帮我查一下",
        "帮我查",
        "帮我看看",
        "帮我",
        "请问",
        "请",
        "查一下",
        "查询",
        "查查",
        "查看",
        "看看",
        "看一下",
        "告诉我",
        "一下",
        "今天",
        "明天",
        "现在",
        "今日",
        "当前",
        "目前",
    ];
    const TRAILING: &[&str] = &["的", "今天", "明天", "现在", "今日", "当前", "目前", "最近"];
    loop {
        let before = s;
        s = trim_punctuation(s);
        for p in LEADING {
            s = s.strip_prefix(p).unwrap_or(s);
        }
        for p in TRAILING {
            s = s.strip_suffix(p).unwrap_or(s);
        }
        if s == before {
            return s;
        }
    }
}

fn zh_city(text: &str) -> Option<String> {
    let idx = text.find("天气").or_else(|| text.find("气温"))?;
    let city = strip_city_filler(&text[..idx]);
    let city = if city.is_empty() {
        // "天气：北京", "查询天气 上海怎么样"
        let after = &text[idx + "天气".len()..];
        let after = ["怎么样", "如何", "好吗"]
            .iter()
            .fold(after, |s, p| s.split(p).next().unwrap_or(s));
        strip_city_filler(after)
    } else {
        city
    };
    (!city.is_empty()).then(|| city.to_owned())
}

// ---- arithmetic ----

fn is_expr_char(c: char) -> bool {
    c.is_ascii_digit() || "+-*/×÷()（）.^% ".contains(c)
}

/// The longest run of arithmetic characters that holds a digit and an operator and ends in an
/// operand, normalised to ASCII operators.
fn expression(text: &str) -> Option<(String, &str)> {
    let mut best: Option<&str> = None;
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), '\0')]) {
        match (is_expr_char(c) && c != '\0', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let run = text[s..i].trim().trim_end_matches('.').trim();
                let ops = run.trim_start_matches('-');
                // "/42" in a URL is not arithmetic: an expression opens with an operand.
                let ok = run.starts_with(|c: char| c.is_ascii_digit() || "-(（".contains(c))
                    && run.chars().any(|c| c.is_ascii_digit())
                    && ops.contains(['+', '-', '*', '/', '×', '÷', '^', '%'])
                    && run.ends_with(|c: char| c.is_ascii_digit() || ")）%".contains(c));
                if ok && best.is_none_or(|b| run.len() > b.len()) {
                    best = Some(run);
                }
                start = None;
            }
            _ => {}
        }
    }
    let raw = best?;
    let normal = raw
        .replace('×', "*")
        .replace('÷', "/")
        .replace('（', "(")
        .replace('）', ")");
    Some((normal, raw))
}

fn calculator(text: &str, lower: &str, words: &[&str]) -> Option<Parsed> {
    let (expr, raw) = expression(text)?;
    let keyword = has_word(
        words,
        &["calculate", "compute", "evaluate", "calc", "solve"],
    ) || has_any(lower, &["what is", "what's", "how much is"])
        || has_any(
            text,
            &["计算", "算一下", "算算", "等于", "多少", "是几", "求值"],
        );
    // A message that is nothing but arithmetic ("2+3*4=?") counts as well.
    let bare = text
        .replacen(raw, "", 1)
        .chars()
        .all(|c| c.is_whitespace() || "=?？。.!！".contains(c));
    (keyword || bare).then(|| Parsed::Call(Capability::Calculate, json!({ "expression": expr })))
}
