use super::*;

fn env(name: &str) -> Option<String> {
    match name {
        "GITHUB_TOKEN" => Some("ghp_123".into()),
        "HOME" => Some("/home/ada".into()),
        "GH_SECRET" => Some("s3cret".into()),
        "M2M_KEY" => Some(TEST_PEM.into()),
        "IDP_ID_TOKEN" => Some("eyJ.id-token.sig".into()),
        _ => None,
    }
}

fn parse(text: &str) -> Result<McpConfig, ConfigError> {
    McpConfig::parse(".mcp.json", text, &env)
}

/// The error of a broken file, or of its first broken entry (which fails alone).
fn err(text: &str) -> String {
    entry_err(text).to_string()
}

fn entry_err(text: &str) -> ConfigError {
    match parse(text) {
        Err(e) => e,
        Ok(config) => config
            .invalid()
            .next()
            .cloned()
            .unwrap_or_else(|| panic!("no error in {config:?}")),
    }
}

#[test]
fn claude_style_file_parses_in_file_order() {
    let cfg = parse(
        r#"{"mcpServers": {
            "zeta": {"command": "npx", "args": ["-y", "@scope/server", "${HOME}/data"],
                     "env": {"TOKEN": "${GITHUB_TOKEN}", "A": "1"}, "cwd": "${HOME}",
                     "timeout": 1500, "startupTimeout": 2500},
            "alpha": {"type": "http", "url": "https://example.test/mcp",
                      "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}},
            "mock_gh": {"type": "mock", "disabled": true, "risk": "read",
                        "toolRisk": {"create_issue": "write"}}
        }}"#,
    )
    .unwrap();
    let names: Vec<_> = cfg.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["zeta", "alpha", "mock_gh"],
        "file order, not sorted"
    );
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);

    let zeta = &cfg.servers[0];
    assert_eq!(zeta.timeout, Duration::from_millis(1500));
    assert_eq!(zeta.startup_timeout, Duration::from_millis(2500));
    assert!(!zeta.disabled);
    assert_eq!(
        zeta.transport,
        ServerTransport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "@scope/server".into(), "/home/ada/data".into()],
            env: vec![("TOKEN".into(), "ghp_123".into()), ("A".into(), "1".into())],
            cwd: Some("/home/ada".into()),
        }
    );

    let alpha = &cfg.servers[1];
    assert_eq!(alpha.timeout, DEFAULT_TIMEOUT);
    assert_eq!(alpha.startup_timeout, DEFAULT_STARTUP_TIMEOUT);
    assert_eq!(
        alpha.transport,
        ServerTransport::Http {
            url: "https://example.test/mcp".into(),
            protocol: RemoteProtocol::Streamable,
            headers: vec![("Authorization".into(), "Bearer ghp_123".into())],
            oauth: None,
        }
    );

    let mock = cfg.server("mock_gh").unwrap();
    assert!(mock.disabled);
    assert_eq!(mock.transport, ServerTransport::Mock);
    assert_eq!(mock.risk_of("create_issue"), Some("write"));
    assert_eq!(mock.risk_of("list_issues"), Some("read"));
    assert_eq!(alpha.risk_of("anything"), None);
    let enabled: Vec<_> = cfg.enabled().map(|s| s.name.as_str()).collect();
    assert_eq!(enabled, ["zeta", "alpha"]);
}

#[test]
fn explicit_stdio_type_and_minimal_entries() {
    let cfg = parse(r#"{"mcpServers": {"a": {"type": "stdio", "command": "srv"}}}"#).unwrap();
    assert_eq!(
        cfg.servers[0].transport,
        ServerTransport::Stdio {
            command: "srv".into(),
            args: vec![],
            env: vec![],
            cwd: None
        }
    );
    let empty = parse(r#"{"mcpServers": {}}"#).unwrap();
    assert!(empty.servers.is_empty() && empty.warnings.is_empty());
}

#[test]
fn unknown_and_inapplicable_fields_are_warnings() {
    let cfg = parse(
        r#"{"version": 2, "mcpServers": {
            "s": {"command": "x", "autoApprove": [], "url": "http://a"},
            "m": {"type": "mock", "command": "ignored"}
        }}"#,
    )
    .unwrap();
    assert_eq!(cfg.servers.len(), 2);
    let w = cfg.warnings.join("\n");
    assert_eq!(cfg.warnings.len(), 4, "{w}");
    assert!(
        w.contains(".mcp.json: unknown top-level field \"version\""),
        "{w}"
    );
    assert!(
        w.contains("server \"s\": unknown field \"autoApprove\" ignored"),
        "{w}"
    );
    assert!(
        w.contains("server \"s\": field \"url\" does not apply"),
        "{w}"
    );
    assert!(
        w.contains("server \"m\": field \"command\" does not apply"),
        "{w}"
    );
}

#[test]
fn missing_mcp_servers_is_empty_with_a_warning() {
    let cfg = parse("{}").unwrap();
    assert!(cfg.servers.is_empty());
    assert!(cfg.warnings[0].contains("no \"mcpServers\""));
}

#[test]
fn syntax_errors_carry_line_and_column() {
    let e = parse("{\n  \"mcpServers\": {\n    \"a\": {,}\n}}").unwrap_err();
    assert_eq!(e.position, Some((3, 11)));
    let msg = e.to_string();
    assert!(msg.starts_with(".mcp.json:3:11: invalid JSON: "), "{msg}");
    assert!(!msg.contains("at line"), "position printed once: {msg}");
    assert!(err("").starts_with(".mcp.json:1:0: invalid JSON"));
}

#[test]
fn shape_errors_name_file_server_and_field() {
    let cases = [
        (r#"[]"#, ".mcp.json: the top level must be a JSON object"),
        (
            r#"{"mcpServers": []}"#,
            ".mcp.json: \"mcpServers\" must be an object",
        ),
        (
            r#"{"mcpServers": {"github": {"command": "x", "args": "-y"}}}"#,
            ".mcp.json: server \"github\": \"args\" must be an array of strings",
        ),
        (
            r#"{"mcpServers": {"github": {"command": "x", "args": ["a", 1]}}}"#,
            ".mcp.json: server \"github\": \"args\" must be an array of strings (item 1 is not)",
        ),
        (
            r#"{"mcpServers": {"g": {"args": []}}}"#,
            ".mcp.json: server \"g\": \"command\" is required for a stdio server",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "  "}}}"#,
            "server \"g\": \"command\" must not be empty",
        ),
        (
            r#"{"mcpServers": {"g": {"command": 5}}}"#,
            "\"command\" must be a string",
        ),
        (
            r#"{"mcpServers": {"g": 5}}"#,
            "server \"g\": the entry must be a JSON object",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "env": {"PORT": 80}}}}"#,
            "server \"g\": \"env.PORT\" must be a string",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "env": []}}}"#,
            "\"env\" must be an object of strings",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "cwd": false}}}"#,
            "\"cwd\" must be a string",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "timeout": "5s"}}}"#,
            "\"timeout\" must be a number of milliseconds",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "timeout": 0}}}"#,
            "\"timeout\" must be a positive whole number of milliseconds (got 0)",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "startupTimeout": 1.5}}}"#,
            "\"startupTimeout\" must be a positive whole number",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "timeout": -3}}}"#,
            "\"timeout\" must be a positive whole number",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "disabled": "yes"}}}"#,
            "\"disabled\" must be a boolean",
        ),
        (
            r#"{"mcpServers": {"g": {"type": 1}}}"#,
            "\"type\" must be a string",
        ),
        (
            r#"{"mcpServers": {"g": {"type": "websocket"}}}"#,
            "server \"g\": unknown \"type\" \"websocket\"",
        ),
        (
            r#"{"mcpServers": {"g": {"type": "http"}}}"#,
            "\"url\" is required for an http server",
        ),
        (
            r#"{"mcpServers": {"g": {"type": "http", "url": "ftp://x"}}}"#,
            "\"url\" must start with http:// or https://",
        ),
        (
            r#"{"mcpServers": {"g": {"type": "http", "url": "http://x", "headers": {"A": null}}}}"#,
            "\"headers.A\" must be a string",
        ),
        (
            r#"{"mcpServers": {"g": {"type": "mock", "risk": "admin"}}}"#,
            "\"risk\" must be one of \"read\", \"write\", \"execute\", \"network\" (got \"admin\")",
        ),
        (
            r#"{"mcpServers": {"g": {"type": "mock", "toolRisk": {"t": 1}}}}"#,
            "\"toolRisk.t\" must be one of",
        ),
        (
            r#"{"mcpServers": {"g": {"type": "mock", "toolRisk": []}}}"#,
            "\"toolRisk\" must be an object",
        ),
    ];
    for (text, needle) in cases {
        let msg = err(text);
        assert!(
            msg.contains(needle),
            "{text}\n  got: {msg}\n  want: {needle}"
        );
        assert!(msg.starts_with(".mcp.json"), "{msg}");
    }
}

#[test]
fn error_fields_are_structured_too() {
    let e = entry_err(r#"{"mcpServers": {"github": {"command": "x", "args": {}}}}"#);
    assert_eq!(e.file, ".mcp.json");
    assert_eq!(e.server.as_deref(), Some("github"));
    assert_eq!(e.field.as_deref(), Some("args"));
    assert_eq!(e.position, None);
}

#[test]
fn server_names_must_be_sanitisable() {
    for bad in ["", "my server", "a.b", "名前", "x/y"] {
        let text = format!(r#"{{"mcpServers": {{"{bad}": {{"type": "mock"}}}}}}"#);
        let msg = err(&text);
        assert!(
            msg.contains("server names must be non-empty"),
            "{bad:?}: {msg}"
        );
    }
    for good in ["a", "A-b_9", "github-2"] {
        let text = format!(r#"{{"mcpServers": {{"{good}": {{"type": "mock"}}}}}}"#);
        assert_eq!(parse(&text).unwrap().servers[0].name, good);
    }
}

#[test]
fn unset_variables_name_variable_server_and_field() {
    let cases = [
        (r#"{"command": "${NOPE}"}"#, "\"command\""),
        (
            r#"{"command": "x", "args": ["ok", "${NOPE}"]}"#,
            "\"args[1]\"",
        ),
        (r#"{"command": "x", "env": {"K": "${NOPE}"}}"#, "\"env.K\""),
        (r#"{"command": "x", "cwd": "${NOPE}/d"}"#, "\"cwd\""),
        (r#"{"type": "http", "url": "https://${NOPE}/"}"#, "\"url\""),
        (
            r#"{"type": "http", "url": "https://h/", "headers": {"X-Key": "${NOPE}"}}"#,
            "\"headers.X-Key\"",
        ),
    ];
    for (entry, field) in cases {
        let text = format!(r#"{{"mcpServers": {{"svc": {entry}}}}}"#);
        let e = entry_err(&text);
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!(".mcp.json: server \"svc\": {field}: ")),
            "{msg}"
        );
        assert!(msg.contains("\"NOPE\" is not set"), "{msg}");
        assert_eq!(e.field.as_deref(), Some(field.trim_matches('"')));
    }
}

#[test]
fn defaults_and_escapes_apply_in_config_fields() {
    let cfg = parse(
        r#"{"mcpServers": {"s": {"command": "${BIN:-node}",
            "args": ["$${HOME}", "$HOME", "${HOME}"], "env": {"X": "${UNSET:-d}"}}}}"#,
    )
    .unwrap();
    let ServerTransport::Stdio {
        command, args, env, ..
    } = &cfg.servers[0].transport
    else {
        panic!("stdio expected");
    };
    assert_eq!(command, "node");
    assert_eq!(args, &["${HOME}", "$HOME", "/home/ada"]);
    assert_eq!(env, &[("X".to_string(), "d".to_string())]);
}

#[test]
fn variables_are_not_expanded_in_names_or_unlisted_fields() {
    // Only the documented fields expand, so an unset variable elsewhere is not an error.
    let cfg =
        parse(r#"{"mcpServers": {"s": {"type": "mock", "toolRisk": {"${T}": "read"}}}}"#).unwrap();
    assert_eq!(cfg.servers[0].risk_of("${T}"), Some("read"));
}

#[test]
fn http_servers_opt_in_to_oauth() {
    let on =
        parse(r#"{"mcpServers": {"r": {"type": "http", "url": "https://h/mcp", "oauth": true}}}"#)
            .unwrap();
    assert!(matches!(
        &on.servers[0].transport,
        ServerTransport::Http { oauth: Some(s), .. } if *s == OAuthSettings::default()
    ));
    let off =
        parse(r#"{"mcpServers": {"r": {"type": "http", "url": "https://h/mcp", "oauth": false}}}"#)
            .unwrap();
    assert!(matches!(
        off.servers[0].transport,
        ServerTransport::Http { oauth: None, .. }
    ));
    let text =
        err(r#"{"mcpServers": {"r": {"type": "http", "url": "https://h/mcp", "oauth": "yes"}}}"#);
    assert!(
        text.contains("\"oauth\" must be true, false or an object"),
        "{text}"
    );
}

/// Checks that an `http` server with `"oauth": <oauth>` is refused with an error naming
/// `field` and saying `message`.
fn assert_oauth_error(oauth: &str, field: &str, message: &str) {
    let text = err(&format!(
        r#"{{"mcpServers": {{"r": {{"type": "http", "url": "https://h/mcp", "oauth": {oauth}}}}}}}"#
    ));
    assert!(
        text.contains(field) && text.contains(message),
        "{oauth}: {text}"
    );
}

/// The `oauth` settings of the config's first server, which must be an `http` one with them.
fn first_oauth(config: &McpConfig) -> &OAuthSettings {
    match &config.servers[0].transport {
        ServerTransport::Http {
            oauth: Some(settings),
            ..
        } => settings,
        other => panic!("{other:?}"),
    }
}

#[test]
fn oauth_settings_name_a_pre_registered_client_with_its_secret_from_the_environment() {
    let config = parse(
        r#"{"mcpServers": {"gh": {"type": "http", "url": "https://h/mcp", "oauth": {
            "clientId": "Iv1.abc", "clientSecret": "${GH_SECRET}", "scope": "repo read:org",
            "colour": "blue"}}}}"#,
    )
    .unwrap();
    let settings = first_oauth(&config);
    assert_eq!(settings.client_id.as_deref(), Some("Iv1.abc"));
    assert_eq!(settings.client_secret.as_deref(), Some("s3cret"));
    assert_eq!(settings.scope.as_deref(), Some("repo read:org"));
    assert!(!settings.client_credentials);
    assert!(
        settings.store_tokens,
        "tokens are kept between runs by default"
    );
    assert!(
        !format!("{settings:?}").contains("s3cret"),
        "Debug hides the secret"
    );
    assert!(
        config.warnings.iter().any(|w| w.contains("oauth.colour")),
        "{:?}",
        config.warnings
    );
    let memory_only = parse(
        r#"{"mcpServers": {"r": {"type": "http", "url": "https://h/mcp", "oauth": {"storeTokens": false}}}}"#,
    )
    .unwrap();
    assert!(matches!(
        &memory_only.servers[0].transport,
        ServerTransport::Http { oauth: Some(s), .. } if !s.store_tokens
    ));

    for (oauth, field, message) in [
        (
            r#"{"privateKey": "${M2M_KEY}"}"#,
            "oauth.privateKey",
            "needs \"oauth.clientId\"",
        ),
        (
            r#"{"clientId": "a", "privateKey": "/home/me/key.pem"}"#,
            "oauth.privateKey",
            "must be the PEM text of a private key",
        ),
        (
            r#"{"clientId": "a", "privateKey": 1}"#,
            "oauth.privateKey",
            "must be a string",
        ),
        (
            r#"{"clientSecret": "x"}"#,
            "oauth.clientSecret",
            "needs \"oauth.clientId\"",
        ),
        (
            r#"{"clientId": "a", "clientCredentials": true}"#,
            "oauth.clientCredentials",
            "or \"oauth.privateKey\"",
        ),
        (r#"{"clientId": 7}"#, "oauth.clientId", "must be a string"),
        (
            r#"{"clientCredentials": "yes"}"#,
            "oauth.clientCredentials",
            "must be a boolean",
        ),
        (
            r#"{"storeTokens": 0}"#,
            "oauth.storeTokens",
            "must be a boolean",
        ),
    ] {
        assert_oauth_error(oauth, field, message);
    }
}

/// Not a real key: the config only checks the PEM framing; the host parses the key.
const TEST_PEM: &str =
    "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----\n";

#[test]
fn oauth_private_key_authenticates_a_client_credentials_client_without_a_secret() {
    let config = parse(
        r#"{"mcpServers": {"m2m": {"type": "http", "url": "https://h/mcp", "oauth": {
            "clientId": "svc", "privateKey": "${M2M_KEY}", "clientCredentials": true}}}}"#,
    )
    .unwrap();
    let settings = first_oauth(&config);
    assert_eq!(settings.client_id.as_deref(), Some("svc"));
    assert_eq!(settings.private_key.as_deref(), Some(TEST_PEM));
    assert_eq!(settings.client_secret, None);
    assert!(settings.client_credentials);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let shown = format!("{settings:?}");
    assert!(!shown.contains("MIGHAgEA"), "Debug hides the key: {shown}");
    assert!(
        shown.contains("private_key: Some(\"<redacted>\")"),
        "{shown}"
    );
}

#[test]
fn oauth_enterprise_names_the_identity_provider_and_takes_the_id_token_from_the_environment() {
    let config = parse(
        r#"{"mcpServers": {"notes": {"type": "http", "url": "https://h/mcp", "oauth": {
            "clientId": "notes-app", "clientSecret": "${GH_SECRET}",
            "enterprise": {"idpTokenEndpoint": "https://idp.example/token",
                "idToken": "${IDP_ID_TOKEN}", "idpClientId": "notes-at-idp", "tint": 1}}}}}"#,
    )
    .unwrap();
    let settings = first_oauth(&config);
    let grant = settings.enterprise.as_ref().expect("the enterprise grant");
    assert_eq!(
        grant.idp_token_endpoint.as_deref(),
        Some("https://idp.example/token")
    );
    assert_eq!(grant.id_token.as_deref(), Some("eyJ.id-token.sig"));
    assert_eq!(grant.idp_issuer, None);
    assert_eq!(grant.idp_client_id, "notes-at-idp");
    assert_eq!(grant.idp_client_secret, None);
    assert_eq!(settings.client_id.as_deref(), Some("notes-app"));
    assert!(
        config
            .warnings
            .iter()
            .any(|w| w.contains("oauth.enterprise.tint")),
        "{:?}",
        config.warnings
    );
    let shown = format!("{settings:?}");
    assert!(
        !shown.contains("id-token"),
        "Debug hides the ID token: {shown}"
    );

    // With the issuer alone, the user signs in at the identity provider for the ID token.
    let config = parse(
        r#"{"mcpServers": {"notes": {"type": "http", "url": "https://h/mcp", "oauth": {
            "clientId": "notes-app", "enterprise": {"idpIssuer": "https://acme.okta.example",
                "idpClientId": "agentwire", "idToken": ""}}}}}"#,
    )
    .unwrap();
    let grant = first_oauth(&config).enterprise.clone().unwrap();
    assert_eq!(
        grant.idp_issuer.as_deref(),
        Some("https://acme.okta.example")
    );
    assert_eq!(grant.id_token, None, "an empty ID token counts as none");
    assert_eq!(grant.idp_token_endpoint, None, "discovered later");

    let idp = r#""idpTokenEndpoint": "https://idp.example/token", "idpClientId": "c""#;
    for (oauth, field, message) in [
        (
            format!(r#"{{"enterprise": {{{idp}, "idToken": "t"}}}}"#),
            "oauth.enterprise",
            "needs \"oauth.clientId\"",
        ),
        (
            format!(
                r#"{{"clientId": "a", "clientSecret": "s", "clientCredentials": true,
                    "enterprise": {{{idp}, "idToken": "t"}}}}"#
            ),
            "oauth.enterprise",
            "two different grants",
        ),
        (
            format!(r#"{{"clientId": "a", "enterprise": {{{idp}}}}}"#),
            "oauth.enterprise",
            "needs \"idpIssuer\" (to sign in at the identity provider), or \"idToken\" and \"idpTokenEndpoint\"",
        ),
        (
            r#"{"clientId": "a", "enterprise": {"idToken": "t", "idpClientId": "c"}}"#.into(),
            "oauth.enterprise",
            "needs \"idpIssuer\"",
        ),
        (
            r#"{"clientId": "a", "enterprise": {"idpIssuer": "https://idp.example"}}"#.into(),
            "oauth.enterprise.idpClientId",
            "is required",
        ),
        (
            r#"{"clientId": "a", "enterprise": {"idpIssuer": "idp.example", "idpClientId": "c"}}"#
                .into(),
            "oauth.enterprise.idpIssuer",
            "must start with http:// or https://",
        ),
        (
            format!(r#"{{"clientId": "a", "enterprise": {{{idp}, "idToken": "${{NOPE}}"}}}}"#),
            "oauth.enterprise.idToken",
            "NOPE",
        ),
        (
            r#"{"clientId": "a", "enterprise": {"idpTokenEndpoint": "idp.example/token",
                "idToken": "t", "idpClientId": "c"}}"#
                .into(),
            "oauth.enterprise.idpTokenEndpoint",
            "must start with http:// or https://",
        ),
        (
            r#"{"clientId": "a", "enterprise": "okta"}"#.into(),
            "oauth.enterprise",
            "must be an object",
        ),
        (
            format!(r#"{{"clientId": "a", "enterprise": {{{idp}, "idToken": 5}}}}"#),
            "oauth.enterprise.idToken",
            "must be a string",
        ),
    ] {
        assert_oauth_error(&oauth, field, message);
    }
}

#[test]
fn sampling_is_off_unless_an_entry_turns_it_on() {
    let config = parse(
        r#"{"mcpServers": {"trusted": {"command": "x", "sampling": true},
            "other": {"command": "y"}}}"#,
    )
    .unwrap();
    let sampling: Vec<(&str, bool)> = config
        .servers
        .iter()
        .map(|s| (s.name.as_str(), s.sampling))
        .collect();
    assert_eq!(sampling, [("trusted", true), ("other", false)]);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let text = err(r#"{"mcpServers": {"s": {"command": "x", "sampling": "yes"}}}"#);
    assert!(text.contains("\"sampling\" must be a boolean"), "{text}");
}

#[test]
fn the_tasks_extension_is_off_unless_an_entry_turns_it_on() {
    let config = parse(
        r#"{"mcpServers": {"jobs": {"type": "http", "url": "https://jobs.example/mcp",
            "tasks": true}, "other": {"command": "y"}}}"#,
    )
    .unwrap();
    let tasks: Vec<(&str, bool)> = config
        .servers
        .iter()
        .map(|s| (s.name.as_str(), s.tasks))
        .collect();
    assert_eq!(tasks, [("jobs", true), ("other", false)]);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let text = err(r#"{"mcpServers": {"s": {"command": "x", "tasks": 1}}}"#);
    assert!(text.contains("\"tasks\" must be a boolean"), "{text}");
}

#[test]
fn the_skills_extension_is_off_unless_an_entry_turns_it_on() {
    let config = parse(
        r#"{"mcpServers": {"docs": {"command": "x", "skills": true}, "other": {"command": "y"}}}"#,
    )
    .unwrap();
    let skills: Vec<(&str, bool)> = config
        .servers
        .iter()
        .map(|s| (s.name.as_str(), s.skills))
        .collect();
    assert_eq!(skills, [("docs", true), ("other", false)]);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let text = err(r#"{"mcpServers": {"s": {"command": "x", "skills": "on"}}}"#);
    assert!(text.contains("\"skills\" must be a boolean"), "{text}");
}

#[test]
fn a_server_defined_twice_is_a_warning_and_the_last_definition_wins() {
    let cfg = parse(
        r#"{"mcpServers": {"gh": {"command": "first"}, "other": {"type": "mock"},
            "gh": {"command": "second"}}}"#,
    )
    .unwrap();
    assert_eq!(cfg.servers.len(), 2);
    assert!(matches!(&cfg.server("gh").unwrap().transport,
        ServerTransport::Stdio { command, .. } if command == "second"));
    assert_eq!(
        cfg.warnings,
        [
            ".mcp.json: server \"gh\" is defined more than once in \"mcpServers\"; only the last \
          definition is used"
        ]
    );
    let twice = parse(r#"{"mcpServers": {"a": {"type": "mock"}}, "mcpServers": {}}"#).unwrap();
    assert!(
        twice.warnings[0].contains("\"mcpServers\" appears more than once"),
        "{:?}",
        twice.warnings
    );
}

#[test]
fn deeply_nested_defaults_are_an_error_naming_the_field() {
    let deep = format!("{}x{}", "${A:-".repeat(200_000), "}".repeat(200_000));
    let text = serde_json::json!({"mcpServers": {"s": {"command": "c", "args": [deep]}}});
    let message = err(&text.to_string());
    assert!(message.contains("server \"s\""), "{message}");
    assert!(message.contains("\"args[0]\""), "{message}");
    assert!(
        message.contains("nested more than 16 levels deep"),
        "{message}"
    );
}

#[test]
fn defer_and_always_load_are_read_per_server() {
    let config = parse(
        r#"{"mcpServers": {
            "a": {"command": "x", "defer": true, "alwaysLoad": ["get_issue", "list_issues"]},
            "b": {"command": "x", "defer": false},
            "c": {"command": "x", "defer": "auto"},
            "d": {"command": "x"}}}"#,
    )
    .unwrap();
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let got: Vec<(&str, Defer, Vec<String>)> = config
        .servers
        .iter()
        .map(|s| {
            let t = &s.tool_search;
            (s.name.as_str(), t.defer, t.always_load.clone())
        })
        .collect();
    let load = vec!["get_issue".to_owned(), "list_issues".to_owned()];
    assert_eq!(
        got,
        [
            ("a", Defer::Always, load),
            ("b", Defer::Never, vec![]),
            ("c", Defer::Auto, vec![]),
            ("d", Defer::Auto, vec![]),
        ]
    );
    let text = err(r#"{"mcpServers": {"s": {"command": "x", "defer": "yes"}}}"#);
    assert!(
        text.contains("\"defer\" must be \"auto\", true or false"),
        "{text}"
    );
    assert!(text.contains("\"s\""), "names the server: {text}");
    let text = err(r#"{"mcpServers": {"s": {"command": "x", "alwaysLoad": ["a", 1]}}}"#);
    assert!(
        text.contains("\"alwaysLoad\" must be an array of tool names"),
        "{text}"
    );
    let text = err(r#"{"mcpServers": {"s": {"command": "x", "alwaysLoad": "a"}}}"#);
    assert!(text.contains("alwaysLoad"), "{text}");
}

fn transport(text: &str) -> ServerTransport {
    parse(text).unwrap().servers.remove(0).transport
}

fn protocol_and_url(text: &str) -> (RemoteProtocol, String) {
    match transport(text) {
        ServerTransport::Http { protocol, url, .. } => (protocol, url),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn a_url_alone_is_a_remote_server_as_other_clients_write_it() {
    let cases = [
        (
            r#"{"url": "https://h/mcp"}"#,
            RemoteProtocol::StreamableOrSse,
        ),
        (
            r#"{"serverUrl": "https://h/mcp"}"#,
            RemoteProtocol::StreamableOrSse,
        ),
        (
            r#"{"httpUrl": "https://h/mcp"}"#,
            RemoteProtocol::Streamable,
        ),
        (
            r#"{"type": "http", "url": "https://h/mcp"}"#,
            RemoteProtocol::Streamable,
        ),
        (
            r#"{"type": "streamable-http", "url": "https://h/mcp"}"#,
            RemoteProtocol::Streamable,
        ),
        (
            r#"{"type": "sse", "url": "https://h/mcp"}"#,
            RemoteProtocol::LegacySse,
        ),
        (
            r#"{"type": "http", "httpUrl": "https://h/mcp"}"#,
            RemoteProtocol::Streamable,
        ),
        (
            r#"{"type": "sse", "serverUrl": "https://h/mcp"}"#,
            RemoteProtocol::LegacySse,
        ),
    ];
    for (entry, want) in cases {
        let text = format!(r#"{{"mcpServers": {{"r": {entry}}}}}"#);
        assert_eq!(
            protocol_and_url(&text),
            (want, "https://h/mcp".into()),
            "{entry}"
        );
        assert!(parse(&text).unwrap().warnings.is_empty(), "{entry}");
    }
    // `${VAR}` is expanded in every spelling; headers and oauth apply.
    let text = r#"{"mcpServers": {"r": {"serverUrl": "https://${HOST:-h.example}/mcp",
        "headers": {"X": "y"}, "oauth": true}}}"#;
    match transport(text) {
        ServerTransport::Http {
            url,
            headers,
            oauth,
            ..
        } => {
            assert_eq!(url, "https://h.example/mcp");
            assert_eq!(headers, vec![("X".into(), "y".into())]);
            assert!(oauth.is_some());
        }
        other => panic!("{other:?}"),
    }
    // A command wins over a url (a stdio server with a stray field), with a warning.
    let config = parse(r#"{"mcpServers": {"s": {"command": "x", "url": "https://h"}}}"#).unwrap();
    assert!(matches!(
        config.servers[0].transport,
        ServerTransport::Stdio { .. }
    ));
    assert!(
        config.warnings[0].contains("does not apply"),
        "{:?}",
        config.warnings
    );
    // Two spellings: the first of url, httpUrl, serverUrl is used, and said so.
    let config =
        parse(r#"{"mcpServers": {"r": {"httpUrl": "https://a", "serverUrl": "https://b"}}}"#)
            .unwrap();
    assert!(
        config.warnings[0].contains(r#"both "httpUrl" and "serverUrl""#),
        "{:?}",
        config.warnings
    );
}

#[test]
fn one_broken_entry_fails_alone_and_names_itself() {
    let text = r#"{"mcpServers": {
        "browser": {"args": ["x"]},
        "ok": {"command": "node"},
        "bad url": {"url": "https://h"},
        "remote": {"url": "ftp://h/mcp"},
        "later": {"url": "https://h/mcp"}
    }}"#;
    let config = parse(text).unwrap();
    let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["browser", "ok", "bad url", "remote", "later"]);
    let broken: Vec<String> = config.invalid().map(ToString::to_string).collect();
    assert_eq!(broken.len(), 3, "{broken:?}");
    assert!(
        broken[0].starts_with(r#".mcp.json: server "browser": "command" is required"#),
        "{}",
        broken[0]
    );
    assert!(
        broken[1].contains(r#"server "bad url": server names must"#),
        "{}",
        broken[1]
    );
    assert!(
        broken[2].contains(r#""url" must start with http:// or https://"#),
        "{}",
        broken[2]
    );
    assert!(matches!(
        config.servers[1].transport,
        ServerTransport::Stdio { .. }
    ));
    assert!(matches!(
        config.servers[4].transport,
        ServerTransport::Http { .. }
    ));
    assert!(
        config.servers.iter().all(|s| !s.disabled),
        "a broken entry still reports"
    );
    // A file that is not JSON, or whose top level is wrong, is still an error as a whole.
    assert!(parse("{").is_err());
    assert!(parse(r#"{"mcpServers": []}"#).is_err());
}

#[test]
fn a_local_server_may_ask_for_a_sandbox_and_a_wrong_one_makes_the_entry_invalid() {
    let one = |sandbox: &str| {
        let text =
            format!(r#"{{"mcpServers": {{"s": {{"command": "x", "sandbox": {sandbox}}}}}}}"#);
        parse(&text).unwrap()
    };
    let config = one(r#""read-only""#);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let strict = ServerSandbox {
        read_only: true,
        network: true,
    };
    assert_eq!(config.servers[0].sandbox, Some(strict));
    assert_eq!(
        one(r#"{"mode": "workspace-write", "network": false}"#).servers[0].sandbox,
        Some(ServerSandbox {
            read_only: false,
            network: false
        })
    );
    assert_eq!(one("null").servers[0].sandbox, None);
    for bad in [
        r#""loose""#,
        "3",
        r#"{"mode": "read-only", "net": 1}"#,
        r#"{"network": false}"#,
        r#"{"mode": "read-only", "network": "no"}"#,
    ] {
        let text = format!(r#"{{"mcpServers": {{"s": {{"command": "x", "sandbox": {bad}}}}}}}"#);
        let error = err(&text);
        assert!(error.contains("\"sandbox\""), "{bad}: {error}");
    }
    // A remote server has no process to confine: the field does not apply.
    let remote =
        parse(r#"{"mcpServers": {"r": {"url": "http://h/mcp", "sandbox": "read-only"}}}"#).unwrap();
    assert_eq!(remote.servers[0].sandbox, None);
    assert!(
        remote.warnings[0].contains("does not apply"),
        "{:?}",
        remote.warnings
    );
    // Stricter: fewer writes, or no network.
    let loose = ServerSandbox {
        read_only: false,
        network: true,
    };
    assert!(strict.at_least_as_strict_as(&loose));
    assert!(!loose.at_least_as_strict_as(&strict));
    let offline = ServerSandbox {
        read_only: false,
        network: false,
    };
    assert!(offline.at_least_as_strict_as(&loose));
    assert!(!loose.at_least_as_strict_as(&offline));
    assert!(!strict.at_least_as_strict_as(&offline));
}
