//! The readers (`read_file`, `grep`, `glob`, `list_directory`) never read the places holding
//! secrets, wherever the workspace is: the user's keys and cloud credentials, the state
//! directory, the `--config` file and the `--sandbox-deny` paths; by identity, so `..`,
//! symlinks and hard-linked folders do not get around it, and nothing else is hidden.

use super::super::Protected;
use super::home::{call, Home};
use serde_json::json;
use std::os::unix::fs::symlink;
use std::path::Path;

const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY----- the user's key";

/// A home folder with keys, credentials, state and a project in it.
fn secret_home() -> Home {
    let home = Home::new();
    for rel in [
        ".ssh/id_ed25519",
        ".aws/credentials",
        ".gnupg/private-keys-v1.d/k.key",
        ".config/gcloud/application_default_credentials.json",
        ".local/state/agentwire/oauth-tokens.json",
    ] {
        home.write(rel, KEY);
    }
    home.write("project/notes.txt", "a note, not a key");
    home
}

fn assert_refused(outcome: (bool, String), place: &Path) {
    let (ok, text) = outcome;
    assert!(!ok, "went through: {text}");
    assert!(text.starts_with("refused: "), "{text}");
    assert!(text.contains("never read it"), "{text}");
    assert!(text.contains(&place.display().to_string()), "{text}");
    assert!(!text.contains("the user's key"), "{text}");
}

const SECRETS: [(&str, &str); 5] = [
    (".ssh/id_ed25519", ".ssh"),
    (".aws/credentials", ".aws"),
    (".gnupg/private-keys-v1.d/k.key", ".gnupg"),
    (
        ".config/gcloud/application_default_credentials.json",
        ".config/gcloud",
    ),
    (
        ".local/state/agentwire/oauth-tokens.json",
        ".local/state/agentwire",
    ),
];

#[tokio::test]
async fn read_file_and_list_directory_refuse_every_secret_place() {
    let home = secret_home();
    let h = home.path();
    let tools = home.tools(&h, home.protected());
    for (path, place) in SECRETS {
        let place = h.join(place);
        assert_refused(
            call(&tools, "read_file", json!({"path": path})).await,
            &place,
        );
        let spelled = format!("project/../{path}");
        assert_refused(
            call(&tools, "read_file", json!({"path": spelled})).await,
            &place,
        );
        let listed = call(&tools, "list_directory", json!({"path": place})).await;
        assert_refused(listed, &place);
    }
    // Everything else reads as before.
    let (ok, text) = call(&tools, "read_file", json!({"path": "project/notes.txt"})).await;
    assert!(ok && text.contains("a note"), "{text}");
    let (ok, text) = call(&tools, "list_directory", json!({"path": "."})).await;
    assert!(
        ok && text.contains(".ssh/"),
        "the name alone is listed: {text}"
    );
}

#[tokio::test]
async fn grep_and_glob_skip_the_secret_places_and_refuse_to_start_in_one() {
    let home = secret_home();
    let h = home.path();
    let tools = home.tools(&h, home.protected());
    // `hidden` entries are skipped anyway; a visible folder that is a secret place is not.
    home.write("keys/id_rsa", KEY);
    let tools_extra = home.tools(&h, home.protected().unreadable(&h.join("keys")));
    let (ok, text) = call(&tools_extra, "grep", json!({"pattern": "PRIVATE KEY"})).await;
    assert!(ok && !text.contains("the user's key"), "{text}");
    let (ok, text) = call(&tools_extra, "glob", json!({"pattern": "**/*"})).await;
    assert!(
        ok && !text.contains("id_rsa") && text.contains("notes.txt"),
        "{text}"
    );
    let (ok, text) = call(&tools, "grep", json!({"pattern": "PRIVATE KEY"})).await;
    assert!(
        ok && text.contains("keys/id_rsa"),
        "not a secret place here: {text}"
    );
    for (_, place) in SECRETS {
        let place_path = h.join(place);
        let grep = json!({"pattern": "KEY", "path": place});
        assert_refused(call(&tools, "grep", grep).await, &place_path);
        let glob = json!({"pattern": "**/*", "path": place});
        assert_refused(call(&tools, "glob", glob).await, &place_path);
    }
}

#[tokio::test]
async fn links_to_a_secret_place_are_refused_or_skipped() {
    let home = secret_home();
    let h = home.path();
    let tools = home.tools(&h, home.protected());
    symlink(h.join(".ssh/id_ed25519"), h.join("project/key")).unwrap();
    symlink(h.join(".aws"), h.join("project/cloud")).unwrap();
    assert_refused(
        call(&tools, "read_file", json!({"path": "project/key"})).await,
        &h.join(".ssh"),
    );
    assert_refused(
        call(
            &tools,
            "read_file",
            json!({"path": "project/cloud/credentials"}),
        )
        .await,
        &h.join(".aws"),
    );
    let grep = json!({"pattern": "KEY", "path": "project"});
    let (ok, text) = call(&tools, "grep", grep).await;
    assert!(ok && !text.contains("the user's key"), "{text}");
}

#[tokio::test]
async fn the_config_file_and_sandbox_deny_paths_are_not_read() {
    let home = secret_home();
    let h = home.path();
    home.write("project/servers.json", r#"{"env":{"TOKEN":"s3cret"}}"#);
    home.write("project/private/plan.txt", "the user's key");
    let protected = Protected::default()
        .config_file(&h.join("project/servers.json"))
        .unreadable(&h.join("project/private"));
    let tools = home.tools(&h, protected);
    let read = call(&tools, "read_file", json!({"path": "project/servers.json"})).await;
    assert_refused(read, &h.join("project/servers.json"));
    let read = call(
        &tools,
        "read_file",
        json!({"path": "project/private/plan.txt"}),
    )
    .await;
    assert_refused(read, &h.join("project/private"));
    let (ok, text) = call(&tools, "grep", json!({"pattern": "s3cret|key"})).await;
    assert!(
        ok && !text.contains("s3cret") && !text.contains("the user's"),
        "{text}"
    );
    // And they are never written either.
    let write = json!({"path": "project/private/x", "content": "y"});
    let (ok, text) = call(&tools, "write_file", write).await;
    assert!(!ok && text.contains("refused"), "{text}");
}
