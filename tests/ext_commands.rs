//! `/name args` through the runtime: rendered into the user message, shell snippets run as
//! gated `bash` calls before the model sees anything.

mod support;

use agentwire::agent::{Agent, AgentConfig, Approval, UiEvent};
use agentwire::content::ToolOutput;
use agentwire::driver::{LocalTools, Runtime};
use agentwire::ext::{parse_command_md, Scope};
use agentwire::model::ChatMessage;
use agentwire::policy::Policy;
use agentwire::registry::{Registry, Risk, ToolSpec};
use futures::executor::LocalPool;
use futures::future::LocalBoxFuture;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::async_io::ManualClock;
use support::host::{answer, Host, Observer, ScriptedModel};

/// A `bash` that records each command and echoes it.
#[derive(Default)]
struct Bash(RefCell<Vec<String>>);

impl LocalTools for Bash {
    fn call<'a>(&'a self, _name: &'a str, arguments: Value) -> LocalBoxFuture<'a, ToolOutput> {
        let command = arguments["command"].as_str().unwrap_or("").to_owned();
        self.0.borrow_mut().push(command.clone());
        Box::pin(async move { ToolOutput::text(format!("output of {command}")) })
    }
}

fn host(policy: Policy, bash: Rc<Bash>, model: Rc<ScriptedModel>) -> Host {
    let mut registry = Registry::new();
    let spec = ToolSpec::builtin(
        "bash",
        "Run a command",
        json!({"type": "object"}),
        Risk::Execute,
    );
    registry.register_builtin(spec).unwrap();
    let mut agent = Agent::new(registry, policy, AgentConfig::default());
    let text = "---\ndescription: Review a PR\n---\nReview PR $0 at priority $1.\nStatus: !`git status $0`";
    let command = parse_command_md(
        "c/review.md",
        "review",
        text,
        Scope::Project { trusted: false },
    );
    agent.skills_mut().insert(command.unwrap());
    let clock = ManualClock::default();
    Host {
        pool: LocalPool::new(),
        runtime: Runtime::new(agent, model, bash, clock.clone()),
        clock,
    }
}

fn first_user_message(model: &ScriptedModel) -> Option<String> {
    let requests = model.requests.borrow();
    requests.first()?.messages.iter().find_map(|m| match m {
        ChatMessage::User { content } => Some(content.clone()),
        _ => None,
    })
}

#[test]
fn a_command_is_expanded_after_its_approved_snippet_ran() {
    let bash = Rc::new(Bash::default());
    let model = ScriptedModel::new([answer("reviewed")]);
    let mut h = host(Policy::new(), bash.clone(), model.clone());
    let observer = Observer::answering([Approval::Yes]);
    assert_eq!(h.run("/review 42 high", &observer).unwrap(), "reviewed");
    assert_eq!(*bash.0.borrow(), ["git status '42'"]);
    assert_eq!(
        observer.asked.borrow()[0].arguments,
        json!({"command": "git status '42'"})
    );
    let message = first_user_message(&model).unwrap();
    assert_eq!(
        message,
        "<command name=\"review\" source=\"project\">\nReview PR 42 at priority high.\n\
         Status: output of git status '42'\n</command>"
    );
    let audits = observer.take_audits();
    assert_eq!(audits.len(), 1);
    assert_eq!(
        (audits[0].tool.as_str(), audits[0].origin.as_str()),
        ("bash", "command:/review")
    );
    let expanded = observer.events.borrow().iter().any(|e| {
        matches!(e, UiEvent::CommandExpanded { qualified, source, .. }
            if qualified == "review" && source == "project")
    });
    assert!(expanded);
    // Unknown `/x` goes to the model verbatim.
    let model = ScriptedModel::new([answer("ok")]);
    let mut h = host(Policy::new(), Rc::new(Bash::default()), model.clone());
    h.run("/usr/bin is a path", &Observer::default()).unwrap();
    assert_eq!(first_user_message(&model).unwrap(), "/usr/bin is a path");
}

#[test]
fn a_denied_or_declined_snippet_aborts_before_any_model_request() {
    for (policy, answers) in [
        (
            Policy::from_lists::<&str>(&[], &[], &["bash"]).unwrap(),
            vec![],
        ),
        (Policy::new(), vec![Approval::No]),
    ] {
        let bash = Rc::new(Bash::default());
        let model = ScriptedModel::new([answer("never")]);
        let mut h = host(policy, bash.clone(), model.clone());
        let observer = Observer::answering(answers);
        let err = h.run("/review 7; rm -rf ~", &observer).unwrap_err();
        assert!(
            err.to_string().contains("nothing was sent to the model"),
            "{err}"
        );
        assert!(bash.0.borrow().is_empty(), "no process ran");
        assert!(model.requests.borrow().is_empty(), "no model request");
        let audits = observer.take_audits();
        assert_eq!(audits.len(), 1);
        assert_eq!(audits[0].origin, "command:/review");
        assert_eq!(audits[0].outcome.as_str(), "denied");
    }
}
