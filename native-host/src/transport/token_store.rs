//! OAuth tokens kept between runs, so a remote MCP server asks the user to authorize once, not
//! on every run.
//!
//! One JSON file, `oauth-tokens.json`, in `$AGENTWIRE_STATE_DIR`, else
//! `$XDG_STATE_HOME/agentwire`, else `~/.local/state/agentwire`. Entries are keyed by the MCP
//! server's URL and hold the access token, its expiry (Unix seconds), the refresh token, the
//! client the tokens were issued to and the issuer of the authorization server that issued
//! them: the refresh token and a registered client are bound to that issuer, and never go to
//! another (an entry without one, written by an older version, lends neither). The file is written whole to a temporary file and renamed
//! over the old one (a crash never leaves half a file) with mode `0600` on Unix (it holds
//! credentials). A file that cannot be read as such a store is never overwritten: saving fails
//! with an error naming it, and the run goes on without stored tokens.

use crate::os::private_file;
use agentwire::mcp::oauth::{OAuthClient, OAuthToken};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The store's file name inside its directory.
pub const FILE_NAME: &str = "oauth-tokens.json";
/// A stored access token this close to its expiry is not used: it could expire in flight.
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);

/// Tokens for one MCP server, as kept on disk.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredToken {
    /// The bearer token.
    pub access_token: String,
    /// When it expires, in seconds since the Unix epoch, if the server said.
    pub expires_at: Option<u64>,
    /// The refresh token, if the server issued one.
    pub refresh_token: Option<String>,
    /// The client the tokens were issued to (a refresh must come from the same client).
    pub client: OAuthClient,
    /// Whether that client was registered by a flow (not pre-registered): it then belongs to
    /// [`issuer`](Self::issuer) only.
    pub client_registered: bool,
    /// The issuer of the authorization server that issued the tokens; `None` in entries
    /// written before credentials were bound to their issuer.
    pub issuer: Option<String>,
}

impl std::fmt::Debug for StoredToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print tokens.
        f.debug_struct("StoredToken")
            .field("expires_at", &self.expires_at)
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("client", &self.client)
            .field("client_registered", &self.client_registered)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl StoredToken {
    /// What to keep of a token a flow just returned, `now` being the current Unix time.
    pub fn from_token(token: &OAuthToken, now: u64) -> Self {
        StoredToken {
            access_token: token.access_token.clone(),
            expires_at: token.expires_in.map(|s| now.saturating_add(s)),
            refresh_token: token.refresh_token.clone(),
            client: token.client.clone(),
            client_registered: token.client_registered,
            issuer: Some(token.issuer.clone()),
        }
    }

    /// True while the access token may still be sent at Unix time `now` (no known expiry
    /// counts as usable: the server says otherwise with a `401`).
    pub fn is_fresh(&self, now: u64) -> bool {
        self.expires_at
            .is_none_or(|at| now.saturating_add(EXPIRY_MARGIN.as_secs()) < at)
    }

    fn to_value(&self) -> Value {
        let client = &self.client;
        json!({
            "accessToken": self.access_token,
            "expiresAt": self.expires_at,
            "refreshToken": self.refresh_token,
            "client": {
                "clientId": client.client_id,
                "clientSecret": client.client_secret,
                "authMethod": client.auth_method,
                "registered": self.client_registered,
            },
            "issuer": self.issuer,
        })
    }

    fn from_value(value: &Value) -> Option<Self> {
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let client = value.get("client")?;
        Some(StoredToken {
            access_token: text(value, "accessToken")?,
            expires_at: value.get("expiresAt").and_then(Value::as_u64),
            refresh_token: text(value, "refreshToken"),
            client: OAuthClient {
                client_id: text(client, "clientId")?,
                client_secret: text(client, "clientSecret"),
                auth_method: text(client, "authMethod"),
            },
            client_registered: client.get("registered").and_then(Value::as_bool) == Some(true),
            issuer: text(value, "issuer"),
        })
    }
}

/// The token file. Cheap to clone; every call reads or writes the file anew, so two runs
/// side by side see each other's tokens. There is no lock: two runs saving at the same instant
/// may lose one of their new entries (read, change, rename), which costs that server one more
/// authorization, never a broken file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenStore {
    path: PathBuf,
}

impl TokenStore {
    /// A store in the file `path`.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        TokenStore { path: path.into() }
    }

    /// The store in the default location (see the module docs); `None` when no directory
    /// can be found (no `$HOME`).
    pub fn default_location() -> Option<Self> {
        Some(TokenStore::at(private_file::state_dir()?.join(FILE_NAME)))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The tokens stored for the server at `url`. A missing file, a missing entry or an
    /// unreadable file all give `None` (the caller authorizes as if nothing were stored).
    pub fn load(&self, url: &str) -> Option<StoredToken> {
        let servers = self.read().ok()?;
        StoredToken::from_value(servers.get(url)?)
    }

    /// Stores `token` for the server at `url`, keeping every other entry (also those another
    /// agentwire process saves at the same time).
    pub fn save(&self, url: &str, token: &StoredToken) -> Result<(), String> {
        self.locked(|| {
            let mut servers = self.read()?;
            servers.insert(url.to_owned(), token.to_value());
            self.write(servers)
        })
    }

    /// Removes the entry of `url`; false when there was none.
    pub fn forget(&self, url: &str) -> Result<bool, String> {
        self.locked(|| {
            let mut servers = self.read()?;
            let removed = servers.remove(url).is_some();
            if removed {
                self.write(servers)?;
            }
            Ok(removed)
        })
    }

    /// Runs `change` under the store's lock (see [`private_file::locked`]): two agentwire
    /// processes saving at once would otherwise each write back what they read, and one of the
    /// tokens would be lost.
    fn locked<T>(&self, change: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        private_file::locked(&self.path, "token store", change)
    }

    /// Every entry, by URL; an absent file is an empty store.
    fn read(&self) -> Result<Map<String, Value>, String> {
        let shown = self.path.display();
        let Some(text) = private_file::read(&self.path, "token store")? else {
            return Ok(Map::new());
        };
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| format!("the token store {shown} is not JSON ({e}); left as it is"))?;
        match value.get("servers") {
            Some(Value::Object(servers)) if value["version"] == 1 => Ok(servers.clone()),
            _ => Err(format!(
                "the token store {shown} is not a version 1 token store; left as it is"
            )),
        }
    }

    fn write(&self, servers: Map<String, Value>) -> Result<(), String> {
        let text = serde_json::to_string_pretty(&json!({"version": 1, "servers": servers}))
            .unwrap_or_default();
        private_file::replace(&self.path, text.as_bytes(), "token store")
    }
}

/// Seconds since the Unix epoch (0 if the clock is before it).
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(access: &str, expires_in: Option<u64>, refresh: Option<&str>) -> OAuthToken {
        OAuthToken {
            access_token: access.into(),
            refresh_token: refresh.map(str::to_owned),
            expires_in,
            scope: None,
            client: OAuthClient {
                client_id: "client-1".into(),
                client_secret: Some("shh".into()),
                auth_method: Some("client_secret_post".into()),
            },
            client_registered: true,
            issuer: "https://auth.example".into(),
            dpop: false,
        }
    }

    #[test]
    fn concurrent_saves_keep_every_entry() {
        // Eight writers (as two agentwire processes would be) saving at once: each reads the
        // file, adds its entry and writes it back, so without a lock they overwrite each other.
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::at(dir.path().join(FILE_NAME));
        let writers: Vec<_> = (0..8)
            .map(|writer| {
                let store = store.clone();
                std::thread::spawn(move || {
                    for n in 0..15 {
                        let url = format!("https://server-{writer}-{n}.example/mcp");
                        let saved = StoredToken::from_token(&token(&url, None, None), 1_000);
                        store.save(&url, &saved).unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        for writer in 0..8 {
            for n in 0..15 {
                let url = format!("https://server-{writer}-{n}.example/mcp");
                let loaded = store.load(&url).unwrap_or_else(|| panic!("{url} was lost"));
                assert_eq!(loaded.access_token, url);
            }
        }
    }

    #[test]
    fn a_saved_token_loads_back_under_its_url_and_others_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::at(dir.path().join("nested/dir").join(FILE_NAME));
        assert_eq!(store.load("https://a.example/mcp"), None, "no file yet");
        let a = StoredToken::from_token(&token("at-a", Some(3600), Some("rt-a")), 1_000);
        let b = StoredToken::from_token(&token("at-b", None, None), 1_000);
        store.save("https://a.example/mcp", &a).unwrap();
        store.save("https://b.example/mcp", &b).unwrap();
        let loaded = store.load("https://a.example/mcp").unwrap();
        assert_eq!(loaded, a);
        assert_eq!(loaded.expires_at, Some(4_600));
        assert_eq!(loaded.client.client_secret.as_deref(), Some("shh"));
        assert_eq!(loaded.issuer.as_deref(), Some("https://auth.example"));
        assert!(loaded.client_registered);
        assert_eq!(store.load("https://b.example/mcp"), Some(b));
        assert!(store.forget("https://a.example/mcp").unwrap());
        assert!(!store.forget("https://a.example/mcp").unwrap());
        assert_eq!(store.load("https://a.example/mcp"), None);
        assert!(store.load("https://b.example/mcp").is_some(), "b is kept");
        let debug = format!("{loaded:?}");
        assert!(!debug.contains("at-a") && !debug.contains("rt-a") && !debug.contains("shh"));
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_private_to_its_owner() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::at(dir.path().join(FILE_NAME));
        let entry = StoredToken::from_token(&token("at", None, None), 0);
        store.save("https://a.example/mcp", &entry).unwrap();
        let mode = std::fs::metadata(store.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        // The lock file stays: removing it would let a second writer lock a new file while a
        // first one still holds the old.
        assert_eq!(
            names,
            [FILE_NAME.to_owned(), format!("{FILE_NAME}.lock")],
            "no temporary file is left behind"
        );
        let lock = dir.path().join(format!("{FILE_NAME}.lock"));
        assert_eq!(
            std::fs::metadata(lock).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[test]
    fn a_file_that_is_not_a_token_store_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        for junk in ["{ not json", r#"{"version": 2, "servers": {}}"#, "[1, 2]"] {
            std::fs::write(&path, junk).unwrap();
            let store = TokenStore::at(&path);
            assert_eq!(store.load("https://a.example/mcp"), None);
            let entry = StoredToken::from_token(&token("at", None, None), 0);
            let error = store.save("https://a.example/mcp", &entry).unwrap_err();
            assert!(error.contains(&path.display().to_string()), "{error}");
            assert!(error.contains("left as it is"), "{error}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), junk);
        }
    }

    #[test]
    fn freshness_keeps_a_margin_before_the_expiry() {
        let entry = StoredToken::from_token(&token("at", Some(3600), None), 1_000);
        assert!(entry.is_fresh(1_000));
        assert!(entry.is_fresh(4_600 - 61));
        assert!(!entry.is_fresh(4_600 - 60), "within the margin");
        assert!(!entry.is_fresh(5_000));
        let forever = StoredToken::from_token(&token("at", None, None), 1_000);
        assert!(forever.is_fresh(u64::MAX));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_an_oversized_file_as_the_store_is_refused_at_once_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let big = dir.path().join("big.json");
        let padding = " ".repeat(private_file::MAX_STORE_BYTES as usize);
        std::fs::write(
            &big,
            format!(r#"{{"version": 1, "servers": {{}}}}{padding}"#),
        )
        .unwrap();
        for (path, needle) in [(fifo, "not a regular file (a FIFO)"), (big, "larger than")] {
            let (done, result) = std::sync::mpsc::channel();
            let store = TokenStore::at(&path);
            std::thread::spawn(move || {
                let entry = StoredToken::from_token(&token("at", None, None), 0);
                let loaded = store.load("https://a.example/mcp");
                let _ = done.send((loaded, store.save("https://a.example/mcp", &entry)));
            });
            let (loaded, saved) = result
                .recv_timeout(Duration::from_secs(5))
                .expect("the token store blocked");
            assert_eq!(loaded, None);
            let error = saved.unwrap_err();
            assert!(error.contains(needle), "{error}");
            assert!(error.contains(&path.display().to_string()), "{error}");
        }
        let kind = std::fs::symlink_metadata(dir.path().join("fifo.json")).unwrap();
        assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind.file_type()));
        let big = std::fs::read_to_string(dir.path().join("big.json")).unwrap();
        assert!(big.ends_with(&padding), "left as it was");
    }

    #[test]
    fn an_entry_from_before_issuer_binding_loads_without_an_issuer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let old = r#"{"version": 1, "servers": {"https://a.example/mcp": {"accessToken": "at",
            "expiresAt": null, "refreshToken": "rt",
            "client": {"clientId": "c", "clientSecret": null, "authMethod": null}}}}"#;
        std::fs::write(&path, old).unwrap();
        let loaded = TokenStore::at(&path).load("https://a.example/mcp").unwrap();
        assert_eq!(loaded.issuer, None);
        assert!(!loaded.client_registered);
        assert_eq!(loaded.refresh_token.as_deref(), Some("rt"));
    }
}
