//! Names in a query: `select:a,b` and exact tool names, which rank above any scored match.
//!
//! A model that knows the name it wants (it read it in the catalog index) must get that tool
//! first: BM25 alone ranks `create_pull_request` below `create_pull_request_review` for the query
//! `create_pull_request`, and a search that misses a named tool makes models conclude it does
//! not exist.

/// The names listed after `select:` (case-insensitive prefix), split on commas and spaces;
/// `None` when the query is not a `select:`.
pub(crate) fn select_list(query: &str) -> Option<Vec<&str>> {
    let query = query.trim();
    let prefix = query.get(..7)?;
    if !prefix.eq_ignore_ascii_case("select:") {
        return None;
    }
    let mut names = Vec::new();
    for name in query[7..].split(|c: char| c == ',' || c.is_whitespace()) {
        push_token(&mut names, name);
    }
    Some(names)
}

/// The word-like tokens of a free-text query that could be tool names (punctuation around them
/// removed: quotes, backticks, brackets, a trailing `.`, `?`, `!` or `:`).
pub(crate) fn name_tokens(query: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    for token in query.split(|c: char| c.is_whitespace() || ",;\"'`()[]{}<>".contains(c)) {
        push_token(&mut tokens, token.trim_end_matches(['.', '?', '!', ':']));
    }
    tokens
}

/// What a query names outright, and what is left to score.
pub(crate) struct Pins {
    /// Catalog positions of the named tools, in query order, each once.
    pub positions: Vec<usize>,
    /// A `select:` that named existing tools: the positions are the whole answer.
    pub whole: bool,
    /// The text to score when the answer is not whole: the query, or the names of a `select:`
    /// that named no existing tool, as words.
    pub text: String,
}

/// The tools `query` names among the catalog's full `names` and `bare` (server-side) names: a
/// `select:` list (full or bare names), else tokens equal to a full name, or to a bare name that
/// is the whole query or [`distinctive`].
pub(crate) fn pins(names: &[String], bare: &[String], query: &str) -> Pins {
    let mut positions: Vec<usize> = Vec::new();
    let mut add = |found: Vec<usize>| {
        for i in found {
            if !positions.contains(&i) {
                positions.push(i);
            }
        }
    };
    if let Some(list) = select_list(query) {
        for name in &list {
            add(resolve(names, bare, name, true));
        }
        let whole = !positions.is_empty();
        return Pins {
            positions,
            whole,
            text: if whole { String::new() } else { list.join(" ") },
        };
    }
    let tokens = name_tokens(query);
    let whole_query = tokens.len() == 1;
    for token in tokens {
        add(resolve(
            names,
            bare,
            token,
            whole_query || distinctive(token),
        ));
    }
    Pins {
        positions,
        whole: false,
        text: query.to_owned(),
    }
}

/// Pushes `token` unless it is empty.
fn push_token<'a>(tokens: &mut Vec<&'a str>, token: &'a str) {
    if !token.is_empty() {
        tokens.push(token);
    }
}

/// Catalog positions of the tools `token` names: equal (ignoring ASCII case) to a full name, or
/// to a bare (server-side) name when `bare_ok`. Several servers may share a bare name.
pub(crate) fn resolve(names: &[String], bare: &[String], token: &str, bare_ok: bool) -> Vec<usize> {
    let full = equal_to(names, token);
    if !full.is_empty() || !bare_ok {
        return full;
    }
    equal_to(bare, token)
}

/// Positions of the names equal to `token`, ignoring ASCII case.
fn equal_to(names: &[String], token: &str) -> Vec<usize> {
    let mut found = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if name.eq_ignore_ascii_case(token) {
            found.push(i);
        }
    }
    found
}

/// Whether a bare name is name-like enough to pin when it occurs amid other words: it has a
/// separator or a camelCase hump, so it is not an ordinary word such as `echo`.
pub(crate) fn distinctive(token: &str) -> bool {
    token.contains(['_', '-', '.']) || token.bytes().skip(1).any(|b| b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same table as `pkg-tests/test/tool-search-parity.test.mjs` checks against the JS
    /// layer's copy of these rules (`js/lib/pins.js`), here with the limit of 2 applied.
    #[test]
    fn the_js_layers_table_holds_here() {
        let names: Vec<String> = [
            "mcp__github__create_pull_request",
            "mcp__github__create_pull_request_review",
            "mcp__everything__echo",
            "mcp__fs__read_file",
            "mcp__fs2__read_file",
        ]
        .map(String::from)
        .into();
        let bare: Vec<String> = names
            .iter()
            .map(|n| n.splitn(4, "__").last().unwrap().to_owned())
            .collect();
        let cases: [(&str, &[usize]); 10] = [
            ("select:echo, mcp__fs__read_file", &[2, 3]),
            ("  SELECT: nope", &[]),
            ("select:", &[]),
            ("create_pull_request", &[0]),
            ("please echo this", &[]),
            ("echo", &[2]),
            ("use read_file.", &[3, 4]),
            ("Mcp__GitHub__Create_Pull_Request?", &[0]),
            ("\"read_file\" or `echo`", &[3, 4]),
            ("select:read_file,echo", &[3, 4, 2]),
        ];
        for (query, expected) in cases {
            let found = pins(&names, &bare, query).positions;
            assert_eq!(found, expected, "{query}");
        }
    }

    #[test]
    fn select_lists_split_on_commas_and_spaces() {
        assert_eq!(select_list("select:a,b"), Some(vec!["a", "b"]));
        assert_eq!(select_list("  SELECT: a , b  c"), Some(vec!["a", "b", "c"]));
        assert_eq!(select_list("select:"), Some(vec![]));
        assert_eq!(select_list("selection of files"), None);
        assert_eq!(select_list("list: select:a"), None);
        assert_eq!(select_list("sélect"), None);
    }

    #[test]
    fn name_tokens_drop_surrounding_punctuation() {
        assert_eq!(
            name_tokens("use `get_issue`, then (list_issues)? \"x\"."),
            ["use", "get_issue", "then", "list_issues", "x"]
        );
    }

    #[test]
    fn resolves_full_names_before_bare_ones() {
        let names = ["mcp__a__echo", "mcp__b__echo", "mcp__b__get_issue"].map(String::from);
        let bare = ["echo", "echo", "get_issue"].map(String::from);
        assert_eq!(resolve(&names, &bare, "MCP__B__ECHO", true), [1]);
        assert_eq!(resolve(&names, &bare, "echo", true), [0, 1]);
        assert_eq!(resolve(&names, &bare, "echo", false), Vec::<usize>::new());
        assert_eq!(resolve(&names, &bare, "nope", true), Vec::<usize>::new());
        assert!(distinctive("get_issue") && distinctive("get-sum") && distinctive("readFile"));
        assert!(!distinctive("echo") && !distinctive("Echo"));
    }
}
