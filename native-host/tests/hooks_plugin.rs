//! A real plugin's hooks, unmodified: obra/superpowers' `SessionStart` hook (a trimmed copy in
//! `fixtures/plugins/superpowers`, MIT) runs through `${CLAUDE_PLUGIN_ROOT}` and its context
//! reaches the first model request, in the conversation, not the system prompt.

#[path = "hooks/harness.rs"]
mod harness;

use agentwire::model::ChatMessage;
use agentwire::policy::Policy;
use agentwire_host::extensions::hooks::load_hooks;
use agentwire_host::extensions::session::Extensions;
use harness::{local, World};

fn superpowers() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plugins/superpowers")
}

#[test]
fn superpowers_session_start_context_reaches_the_first_model_request() {
    let extensions = Extensions::discover(&[superpowers()], true, false);
    let hooks = load_hooks(&extensions, &[]);
    assert!(hooks.warnings.is_empty(), "{:?}", hooks.warnings);
    assert_eq!(hooks.blocked_notice, None);
    let specs = hooks.set.specs();
    assert_eq!(specs.len(), 1);
    assert_eq!(
        specs[0].source.label.split(':').next(),
        Some("plugin superpowers")
    );
    let world = World::with_set(
        tempfile::tempdir().unwrap(),
        Policy::new(),
        hooks.set.clone(),
        Vec::new(),
    );
    let observer = harness::Observer::default();
    local(async {
        world.runtime.session_start("startup", &observer).await;
        world
            .runtime
            .run("What can you do?", &observer)
            .await
            .unwrap();
    });
    assert!(observer.notices().is_empty(), "{:?}", observer.notices());
    let requests = world.model.requests.borrow();
    let ChatMessage::User { content } = &requests[0].messages[0] else {
        panic!("{:?}", requests[0].messages)
    };
    assert!(content.contains("You have superpowers."), "{content}");
    assert!(content.contains("using-superpowers"), "{content}");
    assert!(
        content.ends_with("What can you do?"),
        "the user's prompt comes last: {content}"
    );
    assert!(
        !requests[0].system.contains("superpowers"),
        "never the prefix"
    );
    // Its matcher is `startup|clear|compact`: a resume runs nothing.
    drop(requests);
    local(async {
        world.runtime.session_start("resume", &observer).await;
        world.runtime.run("again", &observer).await.unwrap();
    });
    let requests = world.model.requests.borrow();
    let last_user = requests
        .last()
        .unwrap()
        .messages
        .iter()
        .rev()
        .find_map(|m| match m {
            ChatMessage::User { content } => Some(content.clone()),
            _ => None,
        });
    assert_eq!(last_user.as_deref(), Some("again"));
}
