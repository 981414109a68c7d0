//! Connecting the configured MCP servers: all at once, each with its own startup timeout, with
//! a spinner per server on a terminal and one status line each when done.

use crate::os::clock::TokioClock;
use crate::os::display_url::redact_message;
use crate::transport::http_transport::HttpTransport;
use crate::transport::oauth::{Authorizer, OAuthOptions};
use crate::transport::sse_transport::SseTransport;
use crate::transport::stdio::{StderrTail, StdioCommand, StdioTransport};
use crate::transport::token_store::TokenStore;
use agentwire::config::{OAuthSettings, RemoteProtocol, ServerConfig, ServerTransport};
use agentwire::driver::{McpClient, MockGithubTransport, RequestHandler, Runtime};
use agentwire::mcp::http::HttpConfig;
use agentwire::mcp::oauth::OAuthClient;
use agentwire::mcp::{Root, SessionConfig};
use futures::future::{join_all, LocalBoxFuture};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The stderr tails of stdio servers, for `/mcp` and error messages.
pub type StderrTails = BTreeMap<String, Arc<Mutex<StderrTail>>>;

/// How one server's start went.
pub struct ConnectOutcome {
    /// The server's name.
    pub name: String,
    /// Tools registered, or why it failed.
    pub result: Result<usize, String>,
    /// How long it took.
    pub elapsed: Duration,
}

fn spawn_local(future: LocalBoxFuture<'static, ()>) {
    tokio::task::spawn_local(future);
}

/// Starts one server and waits for its handshake, within its startup timeout. `roots` are
/// offered to it (the `roots` capability; the session answers `roots/list` itself), and with
/// `sampling` it may use the model (`sampling/createMessage`, answered by that handler).
async fn connect_one(
    server: &ServerConfig,
    tails: &Mutex<StderrTails>,
    roots: &[Root],
    sampling: Option<RequestHandler>,
) -> Result<McpClient, String> {
    // A user authorizing in the browser during the handshake does not eat the startup time:
    // the session pauses its timeouts while the transport authorizes.
    let startup_timeout = server.startup_timeout;
    // The outer limit below has no such pause, so it allows for the longest authorization.
    let authorization_allowance = match &server.transport {
        ServerTransport::Http { oauth: Some(_), .. } => {
            crate::transport::oauth::BROWSER_TIMEOUT + Duration::from_secs(30)
        }
        _ => Duration::ZERO,
    };
    let config = SessionConfig {
        initialize_timeout: startup_timeout,
        request_timeout: server.timeout,
        fixed_roots: roots.to_vec(),
        // Declared only for servers the user let use the model (`"sampling": true`).
        sampling: sampling.is_some(),
        protocol: crate::transport::eras::protocol_for(server),
        // The Tasks extension, for servers the user opted in (`"tasks": true`).
        tasks: server.tasks,
        // The Skills extension, for servers the user opted in (`"skills": true`).
        skills: server.skills,
        ..SessionConfig::default()
    };
    let handshake = async {
        match &server.transport {
            ServerTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let caps = crate::os::sandbox::Capabilities::probe();
                let spec = StdioCommand {
                    command: command.clone(),
                    args: args.clone(),
                    env: env.clone(),
                    cwd: cwd.clone(),
                    sandbox: super::server_sandbox::confinement(server, &caps)?,
                };
                let transport = StdioTransport::spawn(&server.name, &spec)?;
                if let Ok(mut tails) = tails.lock() {
                    tails.insert(server.name.clone(), transport.stderr());
                }
                McpClient::connect_serving(config, transport, TokioClock, spawn_local, sampling)
                    .await
                    .map_err(|e| e.to_string())
            }
            ServerTransport::Mock => {
                let transport = MockGithubTransport::default();
                McpClient::connect_serving(config, transport, TokioClock, spawn_local, sampling)
                    .await
                    .map_err(|e| e.to_string())
            }
            ServerTransport::Http {
                url,
                protocol,
                headers,
                oauth,
            } => {
                let mut http = HttpConfig::new(url.as_str());
                http.headers = headers.clone();
                let legacy = async |http: HttpConfig| {
                    if oauth.is_some() {
                        return Err("OAuth is not supported over the legacy HTTP+SSE transport \
                                    (\"type\": \"sse\"); use \"type\": \"http\""
                            .to_owned());
                    }
                    let transport = SseTransport::connect(http)?;
                    let sampling = sampling.clone();
                    McpClient::connect_serving(
                        config.clone(),
                        transport,
                        TokioClock,
                        spawn_local,
                        sampling,
                    )
                    .await
                    .map_err(|e| e.to_string())
                };
                if *protocol == RemoteProtocol::LegacySse {
                    return legacy(http).await;
                }
                let transport =
                    HttpTransport::with_oauth(http.clone(), oauth.as_ref().map(oauth_options))?;
                let streamable = McpClient::connect_serving(
                    config.clone(),
                    transport,
                    TokioClock,
                    spawn_local,
                    sampling.clone(),
                )
                .await
                .map_err(|e| e.to_string());
                match streamable {
                    // The 2025-03-26 spec's backwards compatibility: a server that refuses the
                    // `initialize` POST with 400, 404 or 405 may speak the legacy transport.
                    Err(reason)
                        if *protocol == RemoteProtocol::StreamableOrSse
                            && refused_first_post(&reason) =>
                    {
                        legacy(http).await.map_err(|sse| {
                            format!("{reason}; the legacy HTTP+SSE transport failed too: {sse}")
                        })
                    }
                    other => other,
                }
            }
            ServerTransport::Invalid { error } => Err(error.to_string()),
            _ => Err("this transport type is not supported by this build".to_owned()),
        }
    };
    // The session has its own initialize timeout; this outer one also covers a spawn that hangs.
    let outer = startup_timeout + authorization_allowance + Duration::from_millis(500);
    match tokio::time::timeout(outer, handshake).await {
        Ok(result) => result.map(|(client, details)| {
            crate::transport::eras::remember(server, details.era);
            client
        }),
        Err(_) => Err(format!(
            "no answer to initialize within {} ms",
            startup_timeout.as_millis()
        )),
    }
}

/// Connects every enabled server concurrently and adds it to the runtime (tools included),
/// offering each the `roots` (the workspace). Disabled servers are recorded as such. Never
/// fails as a whole: each server reports its own outcome.
pub async fn connect_all(
    runtime: &Runtime<TokioClock>,
    servers: &[ServerConfig],
    tails: &Mutex<StderrTails>,
    show_progress: bool,
    roots: &[Root],
) -> Vec<ConnectOutcome> {
    let bars = MultiProgress::new();
    if !show_progress {
        bars.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let style = ProgressStyle::with_template("{spinner} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    let attempts = servers.iter().filter(|s| !s.disabled).map(|server| {
        let bar = bars.add(ProgressBar::new_spinner());
        bar.set_style(style.clone());
        let message = format!("starting MCP server {}…", server.name);
        bar.set_message(crate::os::term_safe::visible(&message).into_owned());
        bar.enable_steady_tick(Duration::from_millis(100));
        async move {
            let started = Instant::now();
            let sampling = server.sampling.then(|| runtime.sampling_handler());
            let connected = match connect_one(server, tails, roots, sampling).await {
                Ok(client) => {
                    let tools = Runtime::<TokioClock>::list_server_tools(&client)
                        .await
                        .map_err(|reason| redact_message(&reason));
                    Ok((client, tools))
                }
                // Errors quote URLs and stderr quotes anything: shown and kept only redacted.
                Err(reason) => Err(redact_message(&with_stderr(reason, &server.name, tails))),
            };
            bar.finish_and_clear();
            (server, connected, started.elapsed())
        }
    });
    // Connected and listed concurrently, registered in config order: when two servers' tool
    // names clash, the one configured first keeps the plain name, whichever answered first.
    let mut outcomes = Vec::new();
    for (server, connected, elapsed) in join_all(attempts).await {
        let result = match connected {
            Ok((client, tools)) => runtime.register_server(&server.name, client, tools),
            Err(reason) => {
                runtime.add_failed_server(&server.name, &reason);
                Err(reason)
            }
        };
        outcomes.push(ConnectOutcome {
            name: server.name.clone(),
            result,
            elapsed,
        });
    }
    for server in servers.iter().filter(|s| s.disabled) {
        runtime.add_disabled_server(&server.name);
    }
    outcomes
}

/// The last `n` lines a stdio server wrote to stderr (none for other transports), redacted.
pub fn last_stderr(tails: &Mutex<StderrTails>, server: &str, n: usize) -> Vec<String> {
    tails
        .lock()
        .ok()
        .and_then(|t| t.get(server).cloned())
        .and_then(|tail| tail.lock().ok().map(|t| t.last(n)))
        .unwrap_or_default()
        .iter()
        .map(|line| redact_message(line))
        .collect()
}

/// Adds the last stderr lines of a server to a failure reason, unless they are already in it.
fn with_stderr(reason: String, name: &str, tails: &Mutex<StderrTails>) -> String {
    let lines = last_stderr(tails, name, 3);
    if lines.is_empty() || reason.contains("stderr:") {
        reason
    } else {
        format!("{reason}; stderr: {}", lines.join(" | "))
    }
}

/// One line per server, as printed after startup.
pub fn describe(outcome: &ConnectOutcome) -> String {
    match &outcome.result {
        Ok(count) => format!(
            "✓ MCP server {} connected with {count} tools ({} ms)",
            outcome.name,
            outcome.elapsed.as_millis()
        ),
        Err(reason) => format!(
            "✗ MCP server {} failed to connect: {reason}. Continuing without {} tools.",
            outcome.name, outcome.name
        ),
    }
}

/// Whether a Streamable HTTP connection failed because the server refused the first `POST`
/// with 400, 404 or 405: the sign of a server that speaks only the legacy HTTP+SSE transport.
fn refused_first_post(reason: &str) -> bool {
    ["HTTP 400", "HTTP 404", "HTTP 405"]
        .iter()
        .any(|status| reason.contains(&format!("{status} ")) && reason.contains("from POST"))
}

/// The native OAuth options for a server's `oauth` settings: the browser flow, with the
/// configured client (with its secret or private key), scope and grant (authorization code,
/// client credentials, or cross-app access).
fn oauth_options(settings: &OAuthSettings) -> OAuthOptions {
    let mut options = OAuthOptions::new(Authorizer::Browser);
    options.config.client = settings.client_id.clone().map(|client_id| OAuthClient {
        client_id,
        client_secret: settings.client_secret.clone(),
        // A configured key means private_key_jwt, whatever else the server offers.
        auth_method: settings
            .private_key
            .as_ref()
            .map(|_| "private_key_jwt".to_owned()),
    });
    options.private_key = settings.private_key.clone();
    options.config.scope = settings.scope.clone();
    options.config.client_credentials = settings.client_credentials;
    options.config.enterprise = settings.enterprise.clone();
    if settings.store_tokens {
        options.store = TokenStore::default_location();
    }
    options
}

/// The workspace as an MCP root: its `file://` URI, named after the directory. `None` for a
/// path that cannot be a URI (not absolute).
pub fn workspace_root(dir: &std::path::Path) -> Option<Root> {
    let uri = reqwest::Url::from_directory_path(dir).ok()?;
    Some(Root {
        // Without the trailing slash `from_directory_path` adds: the form servers compare.
        uri: uri.as_str().trim_end_matches('/').to_owned(),
        name: dir.file_name().map(|n| n.to_string_lossy().into_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oauth_settings_become_the_flows_client_scope_and_grant() {
        let defaults = oauth_options(&OAuthSettings::default());
        assert!(
            defaults.config.client.is_none(),
            "dynamic registration by default"
        );
        assert!(matches!(defaults.authorizer, Authorizer::Browser));
        assert_eq!(
            defaults.store,
            TokenStore::default_location(),
            "tokens are kept between runs by default"
        );
        let settings = OAuthSettings {
            client_id: Some("Iv1.abc".into()),
            client_secret: Some("s3cret".into()),
            private_key: None,
            scope: Some("repo".into()),
            client_credentials: true,
            store_tokens: false,
            enterprise: None,
        };
        let options = oauth_options(&settings);
        assert_eq!(
            options.store, None,
            "\"storeTokens\": false keeps tokens in memory"
        );
        let client = options.config.client.expect("the pre-registered client");
        assert_eq!(client.client_id, "Iv1.abc");
        assert_eq!(client.client_secret.as_deref(), Some("s3cret"));
        assert_eq!(
            client.auth_method, None,
            "chosen from the server's metadata"
        );
        assert_eq!(options.config.scope.as_deref(), Some("repo"));
        assert!(options.config.client_credentials);
        assert_eq!(options.private_key, None);
        assert_eq!(options.config.enterprise, None);

        let grant = agentwire::mcp::oauth::EnterpriseGrant {
            idp_issuer: Some("https://idp.example".into()),
            idp_token_endpoint: None,
            id_token: None,
            idp_client_id: "at-idp".into(),
            idp_client_secret: None,
        };
        let settings = OAuthSettings {
            client_id: Some("notes-app".into()),
            enterprise: Some(grant.clone()),
            ..OAuthSettings::default()
        };
        let options = oauth_options(&settings);
        assert_eq!(options.config.enterprise, Some(grant));
        assert!(!options.config.client_credentials);

        let pem = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleQ==\n-----END PRIVATE KEY-----";
        let settings = OAuthSettings {
            client_id: Some("svc".into()),
            client_secret: None,
            private_key: Some(pem.into()),
            client_credentials: true,
            ..OAuthSettings::default()
        };
        let options = oauth_options(&settings);
        let client = options
            .config
            .client
            .clone()
            .expect("the configured client");
        assert_eq!(client.client_id, "svc");
        assert_eq!(client.client_secret, None);
        assert_eq!(client.auth_method.as_deref(), Some("private_key_jwt"));
        assert_eq!(options.private_key.as_deref(), Some(pem));
        let shown = format!("{options:?}");
        assert!(!shown.contains("c2VjcmV0"), "Debug hides the key: {shown}");
    }
}
