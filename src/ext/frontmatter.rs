//! A lenient reader of the `---` frontmatter block of Markdown files, without a YAML crate.
//!
//! Real skill files break strict YAML (`argument-hint: [x]`, unquoted `: ` in descriptions,
//! `allowed-tools` as a list, a comma string or a space string), so every field keeps its raw
//! source text next to the value read from it, and a line that YAML would refuse becomes a plain
//! string with a warning instead of failing the file. Supported: plain, single- and
//! double-quoted scalars, block scalars (`|`, `|-`, `|+`, `>`, `>-`, `>+`), flow sequences
//! (across lines), block sequences, one nested mapping level, `#` comments, `~`/`null`,
//! booleans and integers as PyYAML reads them.

use serde_json::{Map, Value};

/// The most fields read from one block; the rest are ignored with one warning.
pub const MAX_FIELDS: usize = 256;
/// The most warnings kept from one block; one more line counts the rest.
pub const MAX_WARNINGS: usize = 20;

/// One top-level field.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The key as written.
    pub key: String,
    /// The source text after `key:` (continuation lines included), trimmed.
    pub raw: String,
    /// The value as read.
    pub value: Value,
}

/// The fields of one frontmatter block, in file order (a repeated key keeps its last value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frontmatter {
    /// Fields in file order.
    pub fields: Vec<Field>,
    /// Oddities found while reading (unquoted colons, duplicate keys, stray lines).
    pub warnings: Vec<String>,
}

/// Splits `text` into its frontmatter and body. No opening `---` line: no fields, the whole
/// text is the body. An opening line without a closing one is an error.
pub fn parse(text: &str) -> Result<(Frontmatter, String), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if strip_eol(first).trim_end() != "---" {
        return Ok((Frontmatter::default(), text.to_owned()));
    }
    let mut block = Vec::new();
    let mut offset = first.len();
    for line in lines {
        offset += line.len();
        let content = strip_eol(line);
        if content.trim_end() == "---" {
            let body = text[offset..].trim_start_matches(['\r', '\n']);
            return Ok((read_block(&block), body.to_owned()));
        }
        block.push(content);
    }
    Err("the frontmatter opened by `---` on line 1 is never closed by a `---` line".into())
}

fn strip_eol(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Warnings of one block, at most [`MAX_WARNINGS`] kept; the rest only counted.
#[derive(Default)]
struct Warnings {
    kept: Vec<String>,
    dropped: usize,
}

impl Warnings {
    fn push(&mut self, warning: String) {
        if self.kept.len() < MAX_WARNINGS {
            self.kept.push(warning);
        } else {
            self.dropped += 1;
        }
    }

    fn extend(&mut self, warnings: Vec<String>) {
        for warning in warnings {
            self.push(warning);
        }
    }

    fn into_vec(mut self) -> Vec<String> {
        if self.dropped > 0 {
            self.kept
                .push(format!("… and {} more warnings", self.dropped));
        }
        self.kept
    }
}

/// Reads the block's lines once; a key is found again through an index, never by scanning
/// the fields read so far (which made a block of many fields quadratic), and reading stops at
/// [`MAX_FIELDS`] fields.
fn read_block(lines: &[&str]) -> Frontmatter {
    // Fields in file order; a repeated key empties its earlier slot.
    let mut slots: Vec<Option<Field>> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut warnings = Warnings::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let key_end = line.find(':').filter(|_| indent(line) == 0);
        let Some(colon) = key_end else {
            warnings.push(format!(
                "frontmatter line {i} ignored: not a `key: value` line"
            ));
            continue;
        };
        let key = line[..colon].trim().trim_matches(['"', '\'']).to_owned();
        let rest = &line[colon + 1..];
        let start = i;
        while i < lines.len() {
            let next = lines[i];
            let cont = next.trim().is_empty() || indent(next) > 0 || next.starts_with("- ");
            if !cont {
                break;
            }
            i += 1;
        }
        probe();
        let earlier = index.get(&key).copied();
        if earlier.is_none() && index.len() == MAX_FIELDS {
            warnings.push(format!(
                "frontmatter has more than {MAX_FIELDS} fields; `{key}` (line {start}) and \
                 the rest are ignored"
            ));
            break;
        }
        let mut cont: Vec<&str> = lines[start..i].to_vec();
        while cont.last().is_some_and(|l| l.trim().is_empty()) {
            cont.pop();
        }
        if cont.iter().any(|l| l.starts_with('\t')) {
            warnings.push(format!(
                "field `{key}`: tab in indentation (YAML forbids it)"
            ));
        }
        let mut raw = rest.trim().to_owned();
        for l in &cont {
            raw.push('\n');
            raw.push_str(l.trim_end());
        }
        let raw = raw.trim().to_owned();
        let mut value_warnings = Vec::new();
        let value = read_value(&key, rest, &cont, &mut value_warnings);
        warnings.extend(value_warnings);
        if let Some(at) = earlier {
            warnings.push(format!(
                "field `{key}` appears more than once; the last one is used"
            ));
            slots[at] = None;
        }
        index.insert(key.clone(), slots.len());
        slots.push(Some(Field { key, raw, value }));
    }
    Frontmatter {
        fields: slots.into_iter().flatten().collect(),
        warnings: warnings.into_vec(),
    }
}

fn read_value(key: &str, rest: &str, cont: &[&str], warnings: &mut Vec<String>) -> Value {
    let head = strip_comment(rest).trim();
    if let Some(style) = head.strip_prefix(['|', '>']) {
        return Value::String(block_scalar(head.starts_with('>'), style, cont));
    }
    if head.is_empty() {
        if cont.is_empty() {
            return Value::Null;
        }
        let first = cont
            .iter()
            .find(|l| !l.trim().is_empty())
            .map_or("", |l| l.trim());
        if first.starts_with("- ") || first == "-" {
            return block_sequence(cont);
        }
        if mapping_key(first).is_some() {
            return nested_mapping(cont);
        }
        let joined: Vec<&str> = cont.iter().map(|l| l.trim()).collect();
        return scalar(&joined.join(" "), key, warnings);
    }
    let mut whole = head.to_owned();
    for l in cont {
        whole.push(' ');
        whole.push_str(strip_comment(l).trim());
    }
    let whole = whole.trim();
    if whole.starts_with('[') {
        if let Some(list) = flow_sequence(whole) {
            return list;
        }
        warnings.push(format!("field `{key}`: unclosed `[`; read as text"));
        return Value::String(whole.to_owned());
    }
    scalar(whole, key, warnings)
}

/// Cuts a ` #` comment that is outside quotes.
fn strip_comment(text: &str) -> &str {
    let mut quote = None;
    let mut prev = ' ';
    for (at, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if (c == '"' || c == '\'') && (prev == ' ' || at == 0) => quote = Some(c),
            None if c == '#' && prev.is_whitespace() => return &text[..at],
            None => {}
        }
        prev = c;
    }
    if text.starts_with('#') {
        return "";
    }
    text
}

fn mapping_key(line: &str) -> Option<(&str, &str)> {
    let colon = line
        .find(": ")
        .or_else(|| line.strip_suffix(':').map(|k| k.len()))?;
    let key = &line[..colon];
    if key.is_empty() || key.contains(' ') && !key.starts_with(['"', '\'']) {
        return None;
    }
    Some((key.trim_matches(['"', '\'']), line[colon + 1..].trim()))
}

fn block_scalar(folded: bool, style: &str, cont: &[&str]) -> String {
    let style = strip_comment(style).trim();
    let width = cont
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let mut lines: Vec<&str> = cont
        .iter()
        .map(|l| if l.len() >= width { &l[width..] } else { "" })
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let mut out = String::new();
    for (n, line) in lines.iter().enumerate() {
        if n > 0 {
            let prev = lines[n - 1];
            let soft = folded && !line.is_empty() && !prev.is_empty() && !line.starts_with(' ');
            out.push(if soft { ' ' } else { '\n' });
        }
        out.push_str(line);
    }
    if !style.contains('-') && !out.is_empty() {
        out.push('\n');
    }
    out
}

fn block_sequence(cont: &[&str]) -> Value {
    let mut items = Vec::new();
    for line in cont {
        let t = strip_comment(line.trim()).trim();
        if let Some(item) = t.strip_prefix('-') {
            items.push(unquote(item.trim()).unwrap_or_else(|| item.trim().to_owned()));
        } else if let Some(last) = items.last_mut().filter(|_| !t.is_empty()) {
            last.push(' ');
            last.push_str(t);
        }
    }
    Value::Array(items.into_iter().map(Value::String).collect())
}

fn nested_mapping(cont: &[&str]) -> Value {
    let mut map = Map::new();
    for line in cont {
        let t = strip_comment(line.trim()).trim();
        if let Some((k, v)) = mapping_key(t) {
            let value = match unquote(v) {
                Some(s) => Value::String(s),
                None if v.is_empty() => Value::Null,
                None => typed_plain(v),
            };
            map.insert(k.to_owned(), value);
        }
    }
    Value::Object(map)
}

fn flow_sequence(text: &str) -> Option<Value> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quote = None;
    for c in inner.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                current.push(c)
            }
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                current.push(c)
            }
            None if c == ',' => items.push(std::mem::take(&mut current)),
            None => current.push(c),
        }
    }
    items.push(current);
    let mut out = Vec::new();
    for item in items {
        let item = item.trim();
        if !item.is_empty() {
            out.push(Value::String(
                unquote(item).unwrap_or_else(|| item.to_owned()),
            ));
        }
    }
    Some(Value::Array(out))
}

/// The value of a quoted scalar, if `text` is exactly one.
fn unquote(text: &str) -> Option<String> {
    if text.len() >= 2 && text.starts_with('\'') && text.ends_with('\'') {
        let inner = &text[1..text.len() - 1];
        return Some(inner.replace("''", "'"));
    }
    if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
        let inner = &text[1..text.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    let code = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                    out.push(code.unwrap_or('\u{fffd}'));
                }
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        }
        return Some(out);
    }
    None
}

fn typed_plain(text: &str) -> Value {
    match text {
        "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        _ => match text.parse::<i64>() {
            Ok(n) if !(text.starts_with('+') || text.starts_with('0') && text.len() > 1) => {
                Value::from(n)
            }
            _ => Value::String(text.to_owned()),
        },
    }
}

fn scalar(text: &str, key: &str, warnings: &mut Vec<String>) -> Value {
    if let Some(s) = unquote(text) {
        return Value::String(s);
    }
    if text.starts_with(['"', '\'']) {
        warnings.push(format!(
            "field `{key}`: text after the closing quote; read as written"
        ));
        return Value::String(text.to_owned());
    }
    if text.contains(": ") {
        warnings.push(format!(
            "field `{key}`: unquoted `: ` (strict YAML refuses it); read as plain text"
        ));
    }
    typed_plain(text)
}

impl Frontmatter {
    /// The field called `key`.
    pub fn get(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// A string field: the string value, or the raw text when YAML would read something else
    /// (`argument-hint: [x]` → `"[x]"`); `None` when absent or null.
    pub fn text(&self, key: &str) -> Option<String> {
        let field = self.get(key)?;
        match &field.value {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            _ => Some(field.raw.clone()),
        }
    }

    /// A list field: a YAML list, or a string split on commas and whitespace outside `( )`.
    pub fn list(&self, key: &str) -> Vec<String> {
        match self.get(key).map(|f| &f.value) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .filter(|s| !s.is_empty())
                .collect(),
            Some(Value::String(s)) => split_list(s),
            _ => Vec::new(),
        }
    }

    /// A boolean field: true/false/yes/no/on/off/1/0 in any case; `Err` with the raw text.
    pub fn flag(&self, key: &str) -> Option<Result<bool, String>> {
        let field = self.get(key)?;
        let text = match &field.value {
            Value::Bool(b) => return Some(Ok(*b)),
            Value::Null => return None,
            _ => field.raw.to_ascii_lowercase(),
        };
        Some(match text.trim_matches(['"', '\'']) {
            "true" | "yes" | "on" | "1" => Ok(true),
            "false" | "no" | "off" | "0" => Ok(false),
            _ => Err(field.raw.clone()),
        })
    }
}

/// Splits `a, b c` or `Bash(git add:*) Read` on commas and whitespace outside parentheses.
pub fn split_list(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0u32;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c == ',' || c.is_whitespace()) {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

// Work done looking keys up, counted in tests to prove the reader linear.
#[cfg(test)]
thread_local! {
    static PROBES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one key lookup (nothing outside tests).
fn probe() {
    #[cfg(test)]
    PROBES.with(|p| p.set(p.get() + 1));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `text`, returning the frontmatter and the key probes it took.
    fn parse_counting(text: &str) -> (Frontmatter, usize) {
        PROBES.with(|p| p.set(0));
        let (fm, _) = parse(text).unwrap();
        (fm, PROBES.with(|p| p.get()))
    }

    fn block(fields: impl Iterator<Item = String>) -> String {
        let mut text = String::from("---\n");
        for field in fields {
            text.push_str(&field);
            text.push('\n');
        }
        text.push_str("---\nbody\n");
        text
    }

    /// Finding: a 0.97 MB SKILL.md of 120,000 fields took 31–37 s (every field was compared
    /// with every earlier one). Counting key probes proves the work linear without timing.
    #[test]
    fn key_lookups_are_linear_in_the_number_of_fields() {
        for n in [10, 100, MAX_FIELDS] {
            let (fm, probes) = parse_counting(&block((0..n).map(|i| format!("k{i}: v"))));
            assert_eq!(fm.fields.len(), n);
            assert!(probes <= n, "{n} fields took {probes} key probes");
        }
    }

    #[test]
    fn a_block_of_120000_fields_reads_only_the_bound_and_says_so_once() {
        let text = block((0..120_000).map(|i| format!("field{i:06}: value")));
        assert!(text.len() > 900_000, "{}", text.len());
        let (fm, probes) = parse_counting(&text);
        assert_eq!(fm.fields.len(), MAX_FIELDS);
        assert_eq!(fm.fields[0].key, "field000000");
        assert!(probes <= MAX_FIELDS + 1, "{probes} key probes");
        assert_eq!(
            fm.warnings.len(),
            1,
            "{:?}",
            &fm.warnings[..3.min(fm.warnings.len())]
        );
        assert!(
            fm.warnings[0].contains(&format!("more than {MAX_FIELDS} fields")),
            "{:?}",
            fm.warnings
        );
    }

    #[test]
    fn warnings_stop_at_their_bound_with_a_count_of_the_rest() {
        // Lines that are not `key: value` and one key repeated: a warning each, bounded.
        let text = block((0..50_000).map(|i| {
            if i % 2 == 0 {
                "stray".into()
            } else {
                "k: v".into()
            }
        }));
        let (fm, probes) = parse_counting(&text);
        assert_eq!(fm.fields.len(), 1);
        assert!(probes <= 25_000, "{probes} key probes");
        assert_eq!(fm.warnings.len(), MAX_WARNINGS + 1);
        let last = fm.warnings.last().unwrap();
        assert!(
            last.contains(&format!("{} more warnings", 50_000 - 1 - MAX_WARNINGS)),
            "{last}"
        );
    }

    #[test]
    fn blank_and_comment_lines_are_skipped_without_a_warning() {
        let (fm, probes) = parse_counting(&block(
            ["", "# a comment", "a: 1", "", "  # indented"]
                .into_iter()
                .map(String::from),
        ));
        assert_eq!(fm.fields.len(), 1);
        assert_eq!(probes, 1);
        assert!(fm.warnings.is_empty(), "{:?}", fm.warnings);
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value_in_its_last_place() {
        let (fm, _) = parse_counting(&block(
            ["a: 1", "b: 2", "a: 3", "c: 4"]
                .into_iter()
                .map(String::from),
        ));
        let keys: Vec<(&str, &Value)> = fm
            .fields
            .iter()
            .map(|f| (f.key.as_str(), &f.value))
            .collect();
        assert_eq!(
            keys,
            [
                ("b", &Value::from(2)),
                ("a", &Value::from(3)),
                ("c", &Value::from(4))
            ]
        );
        assert_eq!(
            fm.warnings,
            ["field `a` appears more than once; the last one is used"]
        );
    }
}
