//! Partition, estimate, index and session rules.

use super::*;
use crate::model::ToolCall;
use crate::registry::{Registry, Risk, ToolSpec};
use serde_json::{json, Value};

/// A tool whose definition is padded to about `bytes` bytes: the description up to 2,000 (under
/// the registry's cut), the rest in a parameter's description.
fn sized(name: &str, bytes: usize) -> Value {
    let description = "d".repeat(bytes.min(2_000));
    if bytes <= 2_000 {
        return json!({"name": name, "description": description, "inputSchema": {"type": "object"}});
    }
    let rest = "p".repeat(bytes - 2_000);
    json!({"name": name, "description": description, "inputSchema": {"type": "object",
        "properties": {"x": {"type": "string", "description": rest}}}})
}

/// Servers `a` (two tools, ~2,000 tokens each) and `b` (one small tool), plus a built-in.
fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.load_server("b", &[sized("small", 100)]);
    registry.load_server("a", &[sized("one", 9_000), sized("two", 9_000)]);
    registry
        .register_builtin(ToolSpec::builtin(
            "shell",
            "Run a command",
            json!({"type": "object"}),
            Risk::Execute,
        ))
        .unwrap();
    registry
}

fn deferred(registry: &Registry, config: &ToolSearchConfig) -> Vec<String> {
    partition(registry, config)
        .into_iter()
        .filter(|l| l.loading == Loading::Deferred)
        .map(|l| l.name)
        .collect()
}

/// Estimated tokens of the registry's tools whose names start with `prefix`.
fn tokens_of(registry: &Registry, prefix: &str) -> u32 {
    partition(registry, &ToolSearchConfig::default())
        .iter()
        .filter(|l| l.name.starts_with(prefix))
        .map(|l| l.estimated_tokens)
        .sum()
}

fn config(mode: ToolSearchMode) -> ToolSearchConfig {
    ToolSearchConfig {
        mode,
        ..ToolSearchConfig::default()
    }
}

#[test]
fn estimate_is_encoded_bytes_over_four_and_a_half_rounded_up() {
    let registry = registry();
    let spec = registry.get("mcp__b__small").unwrap();
    let bytes = definition_text(&spec.definition()).len();
    assert_eq!(bytes, 203);
    assert_eq!(estimate_tokens(&spec.definition()), 46); // 203 / 4.5 = 45.1, rounded up
    let shell = registry.get("shell").unwrap();
    let bytes = definition_text(&shell.definition()).len();
    assert_eq!(
        estimate_tokens(&shell.definition()) as usize,
        (bytes * 2).div_ceil(9)
    );
}

#[test]
fn auto_defers_every_deferrable_mcp_tool_above_the_threshold_only() {
    let registry = registry();
    let all = ["mcp__a__one", "mcp__a__two", "mcp__b__small"];
    // About 4,050 tokens of MCP definitions: above 3,000.
    assert_eq!(deferred(&registry, &ToolSearchConfig::default()), all);
    let at = |threshold_tokens| config(ToolSearchMode::Auto { threshold_tokens });
    let total = tokens_of(&registry, "mcp__");
    assert!(
        deferred(&registry, &at(total)).is_empty(),
        "not above: direct"
    );
    assert_eq!(deferred(&registry, &at(total - 1)), all);
    assert!(deferred(&registry, &config(ToolSearchMode::Off)).is_empty());
    assert_eq!(deferred(&registry, &config(ToolSearchMode::On)), all);
}

#[test]
fn a_known_context_window_lowers_the_threshold_to_a_tenth_of_it() {
    let registry = registry();
    let mut config = config(ToolSearchMode::Auto {
        threshold_tokens: 100_000,
    });
    assert!(deferred(&registry, &config).is_empty());
    config.context_window = Some(32_000);
    assert_eq!(config.threshold(), Some(3_200));
    assert_eq!(deferred(&registry, &config).len(), 3);
    config.context_window = Some(1_000_000);
    assert_eq!(config.threshold(), Some(100_000), "the lower of the two");
}

#[test]
fn per_server_defer_and_always_load_are_honoured() {
    let registry = registry();
    let mut config = config(ToolSearchMode::On);
    config.set_server(
        "a",
        ServerDefer {
            defer: Defer::Auto,
            always_load: vec!["two".into()],
        },
    );
    config.set_server(
        "b",
        ServerDefer {
            defer: Defer::Never,
            always_load: vec![],
        },
    );
    assert_eq!(deferred(&registry, &config), ["mcp__a__one"]);
    // Setting a server again replaces its settings (a reconnect with other options).
    config.set_server("a", ServerDefer::default());
    assert_eq!(config.servers.len(), 2);
    assert_eq!(deferred(&registry, &config), ["mcp__a__one", "mcp__a__two"]);
    config.set_server(
        "a",
        ServerDefer {
            defer: Defer::Auto,
            always_load: vec!["two".into()],
        },
    );
    assert_eq!(deferred(&registry, &config), ["mcp__a__one"]);
    config.always_load = vec!["mcp__a__one".into()];
    assert!(deferred(&registry, &config).is_empty());

    // `"defer": true` defers below the threshold too, and only what it names.
    let mut config = config_with_b_always();
    assert_eq!(deferred(&registry, &config), ["mcp__b__small"]);
    config.mode = ToolSearchMode::Off;
    assert!(deferred(&registry, &config).is_empty(), "off is off");
}

#[test]
fn a_server_that_never_defers_does_not_count_towards_the_threshold() {
    let registry = registry();
    let at = |threshold_tokens| config(ToolSearchMode::Auto { threshold_tokens });
    let a_tokens = tokens_of(&registry, "mcp__a__");
    // a and b together are above a's size alone: everything deferrable is deferred.
    let mut config = at(a_tokens);
    assert_eq!(deferred(&registry, &config).len(), 3);
    // With b at `"defer": false`, only a's tokens count, and they are not above.
    config.set_server(
        "b",
        ServerDefer {
            defer: Defer::Never,
            always_load: vec![],
        },
    );
    assert!(deferred(&registry, &config).is_empty());
}

fn config_with_b_always() -> ToolSearchConfig {
    let mut config = config(ToolSearchMode::Auto {
        threshold_tokens: 1_000_000,
    });
    config.set_server(
        "b",
        ServerDefer {
            defer: Defer::Always,
            always_load: vec![],
        },
    );
    config
}

#[test]
fn the_index_groups_names_by_sorted_server_in_list_order() {
    let registry = registry();
    let session = ToolSession::start(&registry, &config(ToolSearchMode::On));
    let tools = session.request_tools(&registry);
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["shell", "tool_search", "call_tool"]);
    assert!(
        tools[1].description.ends_with(":\na: one, two\nb: small"),
        "{}",
        tools[1].description
    );
    assert_eq!(session.loading(&registry)[0].loading, Loading::Direct);
    assert!(session.loading(&registry)[1..]
        .iter()
        .all(|l| l.loading == Loading::Deferred));
}

#[test]
fn a_session_that_defers_nothing_sends_the_live_registry() {
    let mut registry = registry();
    let session = ToolSession::start(&registry, &config(ToolSearchMode::Off));
    assert!(!session.is_bridged());
    registry.remove_server("a");
    assert_eq!(session.request_tools(&registry), registry.definitions());
    let call = ToolCall {
        id: "1".into(),
        name: "tool_search".into(),
        arguments: json!({"query": "x"}),
    };
    assert_eq!(session.subject(&call, &registry), call);
}

#[test]
fn call_tool_resolves_full_and_unique_bare_names_only() {
    let mut registry = registry();
    registry.load_server("c", &[sized("one", 10)]);
    let bridge_name = |name: &str| bridge::resolve_name(&registry, name).map(|s| s.name.clone());
    assert_eq!(bridge_name("mcp__a__two").unwrap(), "mcp__a__two");
    assert_eq!(bridge_name("two").unwrap(), "mcp__a__two");
    assert_eq!(bridge_name("small").unwrap(), "mcp__b__small");
    let err = bridge_name("one").unwrap_err();
    assert!(
        err.contains("several tools (mcp__a__one, mcp__c__one)"),
        "{err}"
    );
    let err = bridge_name("shel").unwrap_err();
    assert!(err.contains("unknown tool \"shel\""), "{err}");
    let err = bridge_name("two_x").unwrap_err();
    assert!(err.contains("close names: mcp__a__two"), "{err}");
    // A built-in is found by its full name only (it has no bare name).
    assert_eq!(bridge_name("shell").unwrap(), "shell");
    // A sanitised name answers to its bare name and to the server's own name for it.
    registry.load_server("d", &[sized("get.page", 10)]);
    let bridge_name = |name: &str| bridge::resolve_name(&registry, name).map(|s| s.name.clone());
    assert_eq!(bridge_name("get_page").unwrap(), "mcp__d__get_page");
    assert_eq!(bridge_name("get.page").unwrap(), "mcp__d__get_page");
}

#[test]
fn found_definitions_are_the_bytes_tools_would_carry_and_encoded_once() {
    let mut registry = registry();
    let mut session = ToolSession::start(&registry, &config(ToolSearchMode::On));
    // The host's ranking too, as the npm runtime module (no index of its own) always gets one.
    let host = ["mcp__b__small".to_owned()];
    let host = Some(&host[..]);
    let found = session.search(&registry, "select:small", 5, host);
    let expected = definition_text(&registry.get("mcp__b__small").unwrap().definition());
    assert_eq!(found.results, ["mcp__b__small"]);
    assert_eq!(
        found.content,
        format!("1 tool definitions found; call them with call_tool:\n{expected}")
    );
    // Re-listed unchanged: same bytes. Changed: the new definition.
    registry.load_server("b", &[sized("small", 100)]);
    assert_eq!(
        session.search(&registry, "small", 5, host).content,
        found.content
    );
    registry.load_server("b", &[sized("small", 50)]);
    let changed = session.search(&registry, "small", 5, host).content;
    assert!(changed.ends_with(&definition_text(
        &registry.get("mcp__b__small").unwrap().definition()
    )));
}

#[test]
fn append_reveal_adds_each_loaded_definition_to_tools_once() {
    let registry = registry();
    let mut config = config(ToolSearchMode::On);
    config.reveal = Reveal::Append;
    let mut session = ToolSession::start(&registry, &config);
    let before = session.request_tools(&registry);
    session.load(&["mcp__a__two".into()], &registry);
    session.load(&["mcp__a__two".into()], &registry);
    let after = session.request_tools(&registry);
    assert_eq!(after.len(), before.len() + 1);
    assert_eq!(
        after[..before.len()],
        before[..],
        "appended, never reordered"
    );
    assert_eq!(after.last().unwrap().name, "mcp__a__two");
    let host = ["mcp__a__two".to_owned()];
    let found = session.search(&registry, "select:two", 5, Some(&host));
    assert!(found
        .content
        .contains("call them by name, or with call_tool"));
}

#[cfg(feature = "lexical-index")]
#[test]
fn host_rankings_are_fused_with_the_index_and_checked_against_the_catalog() {
    let registry = registry();
    let mut session = ToolSession::start(&registry, &config(ToolSearchMode::On));
    let host = vec![
        "mcp__a__two".to_owned(),
        "shell".to_owned(),
        "bogus".to_owned(),
    ];
    let found = session.search(&registry, "small", 5, Some(&host));
    assert_eq!(
        found.results,
        ["mcp__b__small", "mcp__a__two"],
        "no direct or unknown names"
    );
    let found = session.search(&registry, "select:one", 5, Some(&host));
    assert_eq!(found.results, ["mcp__a__one"], "select: is exact");
}

/// The npm runtime module's build: no lexical index; the host's ranking (the JS layer's, made
/// by the same index in the search module, or its pins when that module cannot be loaded:
/// `js/lib/pins.js`) is the answer, and without one nothing is found.
#[cfg(not(feature = "lexical-index"))]
#[test]
fn without_the_index_the_host_ranking_is_the_answer() {
    let registry = registry();
    let mut session = ToolSession::start(&registry, &config(ToolSearchMode::On));
    let host = [
        "mcp__a__two",
        "shell",
        "bogus",
        "mcp__a__two",
        "mcp__b__small",
    ]
    .map(String::from);
    let found = session.search(&registry, "small", 5, Some(&host));
    assert_eq!(
        found.results,
        ["mcp__a__two", "mcp__b__small"],
        "in the host's order, without direct, unknown or repeated names"
    );
    assert_eq!(
        session.search(&registry, "small", 1, Some(&host)).results,
        ["mcp__a__two"]
    );
    assert_eq!(
        session
            .search(&registry, "select:one,mcp__b__small", 5, None)
            .results,
        Vec::<String>::new(),
        "without a host ranking nothing is found, not even named tools"
    );
    let none = session.search(&registry, "small tools", 5, None);
    assert!(
        none.content.starts_with("no tool matches"),
        "{}",
        none.content
    );
}

#[test]
fn catalog_notices_say_what_appeared_and_left_once() {
    let mut registry = registry();
    let mut session = ToolSession::start(&registry, &config(ToolSearchMode::On));
    assert_eq!(session.catalog_notice(&registry), None);
    registry.load_server("b", &[sized("bigger", 10)]);
    assert_eq!(
        session.catalog_notice(&registry).as_deref(),
        Some("[catalog: + mcp__b__bigger; \u{2212} mcp__b__small]")
    );
    assert_eq!(session.catalog_notice(&registry), None, "told once");
    registry.remove_server("a");
    assert_eq!(
        session.catalog_notice(&registry).as_deref(),
        Some("[catalog: \u{2212} mcp__a__one, mcp__a__two]")
    );
}

/// The bridge's texts byte for byte: what the model sees must not change when the code that
/// builds it does (a changed byte is a prompt-cache miss for every deployed conversation).
#[test]
fn bridge_definitions_and_texts_keep_their_exact_bytes() {
    let search = definition_text(&bridge::tool_search_definition("a: one\nb: two", 7));
    assert_eq!(
        search,
        concat!(
            r#"{"type":"function","function":{"name":"tool_search","description":"Find tools "#,
            r#"that are not loaded yet and get their full definitions. Query with words for the "#,
            r#"task, or select:NAME,NAME for exact names from the list below. Then call a found "#,
            r#"tool with call_tool. Tools not loaded, by server:\na: one\nb: two","parameters":"#,
            r#"{"type":"object","properties":{"query":{"type":"string","description":"Words "#,
            r#"describing the task, or select:NAME,NAME"},"limit":{"type":"integer","#,
            r#""description":"Most definitions to return (default 7)"}},"required":["query"]}}}"#
        )
    );
    let call = definition_text(&bridge::call_tool_definition());
    assert_eq!(
        call,
        concat!(
            r#"{"type":"function","function":{"name":"call_tool","description":"Call a tool "#,
            r#"whose definition tool_search returned, with arguments that follow that "#,
            r#"definition's parameters.","parameters":{"type":"object","properties":{"name":"#,
            r#"{"type":"string","description":"The tool's name, e.g. mcp__github__list_issues"},"#,
            r#""arguments":{"type":"object","description":"The tool's arguments"}},"#,
            r#""required":["name","arguments"]}}}"#
        )
    );
    let mut registry = Registry::new();
    registry.load_server("zeta", &[sized("list_issue_comments", 10)]);
    registry.load_server("alpha", &[sized("get_issue", 10), sized("list_issues", 10)]);
    registry.load_server("mid", &[sized("issue_list_all", 10), sized("other", 10)]);
    // Most shared name words first, ties in registry order.
    assert_eq!(
        bridge::resolve_name(&registry, "list_issue").unwrap_err(),
        "error: unknown tool \"list_issue\"; close names: mcp__mid__issue_list_all, \
         mcp__zeta__list_issue_comments, mcp__alpha__get_issue, mcp__alpha__list_issues"
    );
    let specs: Vec<&ToolSpec> = registry.tools().iter().collect();
    assert_eq!(
        bridge::render_index(specs.iter().copied()),
        "alpha: get_issue, list_issues\nmid: issue_list_all, other\nzeta: list_issue_comments"
    );
    let mut session = ToolSession::start(&registry, &config(ToolSearchMode::On));
    assert_eq!(
        session.search(&registry, "zzzz", 5, None).content,
        "no tool matches \"zzzz\". Servers with tools to search: alpha, mid, zeta. Try other \
         words, or select:NAME with a name from tool_search's description."
    );
    // Reciprocal-rank fusion: summed scores first, ties in the index's order, then the host's.
    #[cfg(feature = "lexical-index")]
    let host = [
        "mcp__mid__other",
        "mcp__alpha__get_issue",
        "mcp__zeta__list_issue_comments",
    ]
    .map(String::from);
    #[cfg(feature = "lexical-index")]
    assert_eq!(
        session.search(&registry, "issue", 5, Some(&host)).results,
        [
            "mcp__alpha__get_issue",
            "mcp__zeta__list_issue_comments",
            "mcp__mid__other",
            "mcp__alpha__list_issues",
            "mcp__mid__issue_list_all"
        ]
    );
}

#[test]
fn modes_reveals_and_loadings_read_and_print_their_words() {
    let parse = |text| ToolSearchMode::parse(text);
    assert_eq!(parse(" Auto "), Ok(ToolSearchMode::default()));
    for on in ["on", "TRUE"] {
        assert_eq!(parse(on), Ok(ToolSearchMode::On));
    }
    for off in ["off", "false"] {
        assert_eq!(parse(off), Ok(ToolSearchMode::Off));
    }
    assert_eq!(
        parse("auto: 1200"),
        Ok(ToolSearchMode::Auto {
            threshold_tokens: 1_200
        })
    );
    assert_eq!(
        parse("sometimes"),
        Err(
            "unknown tool search mode \"sometimes\": expected auto, on, off or auto:TOKENS"
                .to_owned()
        )
    );
    let words = [
        ToolSearchMode::Off,
        ToolSearchMode::default(),
        ToolSearchMode::On,
    ]
    .map(|mode| mode.as_str());
    assert_eq!(words, ["off", "auto", "on"]);

    assert_eq!(Reveal::parse(" Bridge"), Ok(Reveal::Bridge));
    assert_eq!(Reveal::parse("append"), Ok(Reveal::Append));
    assert_eq!(
        Reveal::parse("inline"),
        Err("unknown reveal \"inline\": expected bridge or append".to_owned())
    );
    assert_eq!(
        [Reveal::Bridge, Reveal::Append].map(|r| r.as_str()),
        ["bridge", "append"]
    );

    assert_eq!(
        [Loading::Direct, Loading::Deferred].map(|l| l.as_str()),
        ["direct", "deferred"]
    );
    let loading = ToolLoading {
        name: "mcp__a__one".into(),
        loading: Loading::Deferred,
        estimated_tokens: 12,
    };
    assert_eq!(
        loading.to_value(),
        json!({"name": "mcp__a__one", "loading": "deferred", "estimatedTokens": 12})
    );
}

#[test]
fn bridge_arguments_are_read_with_defaults_caps_and_named_errors() {
    let search = |args: Value| bridge::search_arguments(&args, 5);
    assert_eq!(
        search(json!({"query": "  list issues "})),
        Ok(("list issues".to_owned(), 5))
    );
    for (limit, expected) in [
        (json!(3), 3),
        (json!(0), 5),
        (json!(50), 20),
        (json!("2"), 5),
    ] {
        assert_eq!(
            search(json!({"query": "q", "limit": limit})),
            Ok(("q".to_owned(), expected))
        );
    }
    let needs_query = Err("error: tool_search needs a non-empty string \"query\"".to_owned());
    for bad in [json!({}), json!({"query": "   "}), json!({"query": 7})] {
        assert_eq!(search(bad), needs_query);
    }

    let call = |args: Value| bridge::call_arguments(&args);
    assert_eq!(
        call(json!({"name": " mcp__a__one ", "arguments": "{\"n\": 1}"})),
        Ok(("mcp__a__one".to_owned(), json!({"n": 1})))
    );
    assert_eq!(
        call(json!({"name": "one", "arguments": null})),
        Ok(("one".to_owned(), json!({})))
    );
    let needs_name = Err("error: call_tool needs a string \"name\" (the tool to call)".to_owned());
    for bad in [
        json!({"arguments": {}}),
        json!({"name": "  "}),
        json!({"name": 1}),
    ] {
        assert_eq!(call(bad), needs_name);
    }
    let err = call(json!({"name": "one", "arguments": "{oops"})).unwrap_err();
    assert!(
        err.starts_with("error: call_tool's \"arguments\" for \"one\" are not valid JSON: "),
        "{err}"
    );
}

#[test]
fn an_unknown_name_sharing_only_mcp_with_the_tools_has_no_close_names() {
    let registry = registry();
    assert_eq!(
        bridge::resolve_name(&registry, "mcp__zz__nothing").unwrap_err(),
        "error: unknown tool \"mcp__zz__nothing\"; use tool_search to find tools"
    );
    assert_eq!(
        bridge::not_loaded_text("mcp__a__one", "{\"x\":1}"),
        "not run: mcp__a__one was called before its definition was loaded. Here it is; check \
         the arguments against it and call again:\n{\"x\":1}"
    );
}
