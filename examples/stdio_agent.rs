//! An agent over an MCP server in a child process, with nothing but the standard library: the
//! core does no I/O, so pipes, a reader thread and `std::time` are all a host needs.
//!
//! cargo run -p agentwire --example stdio_agent -- PROMPT COMMAND [ARGS...]
//! e.g. 'call add {"a": 2, "b": 3}' node native-host/tests/fixtures/normal.mjs

use agentwire::agent::{Action, Agent, AgentConfig, ToolFailure, UiEvent};
use agentwire::mcp::{CallOptions, ClientSession, SessionConfig, SessionEvent};
use agentwire::{model::MockModel, policy::Policy, registry::Registry, registry::ToolSource};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant as Clock};

/// The MCP server's pipes and the session speaking over them; time counts from `origin`.
struct Connection {
    child: Child,
    stdin: ChildStdin,
    stdout: Receiver<Vec<u8>>, // chunks from the reader thread; closed at end of file
    session: ClientSession,
    origin: Clock,
}

impl Connection {
    fn spawn(command: &str, args: &[String]) -> std::io::Result<Connection> {
        let mut child = Command::new(command)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let (stdin, mut out) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        let (send, stdout) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 64 * 1024];
            while let Ok(n @ 1..) = out.read(&mut buf) {
                if send.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let origin = Clock::now();
        let session =
            ClientSession::new(SessionConfig::default(), agentwire::Instant::from_millis(0));
        Ok(Connection {
            child,
            stdin,
            stdout,
            session,
            origin,
        })
    }

    fn now(&self) -> agentwire::Instant {
        agentwire::Instant::from_millis(self.origin.elapsed().as_millis() as u64)
    }

    /// Writes what the session queued, then feeds it bytes and timeouts until `pick` takes
    /// one of its events (others, such as server logs, are passed over).
    fn until<T>(&mut self, pick: impl Fn(SessionEvent) -> Option<T>) -> Result<T, String> {
        loop {
            while let Some(line) = self.session.poll_transmit() {
                let written = self.stdin.write_all(&line);
                written.map_err(|e| format!("writing to the server: {e}"))?;
            }
            if let Some(event) = self.session.poll_event() {
                if let SessionEvent::Failed { error, .. } = event {
                    return Err(error.to_string());
                }
                match pick(event) {
                    Some(picked) => return Ok(picked),
                    None => continue,
                }
            }
            if self.session.is_closed() {
                return Err("the session closed".into());
            }
            let wait = self
                .session
                .poll_timeout()
                .map_or(Duration::from_secs(60), |at| at - self.now());
            match self.stdout.recv_timeout(wait) {
                Ok(bytes) => self.session.handle_bytes(self.now(), &bytes),
                Err(RecvTimeoutError::Timeout) => self.session.handle_timeout(self.now()),
                Err(RecvTimeoutError::Disconnected) => self.session.handle_eof("the server exited"),
            }
        }
    }
}

/// Runs `prompt` through the agent with the tools of the MCP server `command args`, and
/// returns the answer.
pub fn run(prompt: &str, command: &str, args: &[String]) -> Result<String, String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    let mut mcp =
        Connection::spawn(command, args).map_err(|e| format!("starting {command}: {e}"))?;
    let server = mcp.until(|e| match e {
        SessionEvent::Ready(server) => Some(server),
        _ => None,
    })?;
    println!("connected to {}", server.name());
    mcp.session.list_tools(mcp.now()).map_err(|e| text(&e))?;
    let tools = mcp.until(|e| match e {
        SessionEvent::ToolsListed { tools, .. } => Some(tools),
        _ => None,
    })?;
    let mut registry = Registry::new();
    registry.load_server("server", &tools);
    let mut policy = Policy::new();
    policy.allow("mcp__server__*").map_err(|e| text(&e))?; // this example asks nobody
    let mut agent = Agent::new(registry, policy, AgentConfig::default());
    agent.start_run(mcp.now(), prompt).map_err(|e| text(&e))?;
    let mut answer = Err("the run ended without an answer".to_owned());
    loop {
        while let Some(event) = agent.poll_event() {
            println!("{}", event.to_value());
            match event {
                UiEvent::Done { answer: done, .. } => answer = Ok(done),
                UiEvent::Error { message } => answer = Err(message),
                _ => {}
            }
        }
        match agent.poll_action() {
            Some(Action::CallModel(request)) => {
                let response = MockModel::new().complete(&request); // or any model, over HTTP
                agent
                    .handle_model_response(mcp.now(), Ok(response))
                    .map_err(|e| text(&e))?;
            }
            Some(Action::CallTools(calls)) => {
                for call in calls {
                    let ToolSource::Mcp { original_name, .. } = &call.target else {
                        return Err("not an MCP tool".into());
                    };
                    let options = CallOptions {
                        timeout: Some(call.timeout),
                        ..CallOptions::default()
                    };
                    mcp.session
                        .call_tool(mcp.now(), original_name, call.arguments, options)
                        .map_err(|e| text(&e))?;
                    let result = mcp.until(|e| match e {
                        SessionEvent::ToolResult { result, .. } => Some(result),
                        _ => None,
                    })?;
                    let result = result.map_err(|e| ToolFailure::Error(e.to_string()));
                    agent
                        .handle_tool_result(mcp.now(), &call.call_id, result)
                        .map_err(|e| text(&e))?;
                }
            }
            Some(other) => return Err(format!("not handled here: {other:?}")),
            None => break,
        }
    }
    mcp.session.close("done");
    drop(mcp.stdin); // end of input: a stdio server exits
    let _ = mcp.child.wait();
    answer
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [prompt, command, rest @ ..] = args.as_slice() else {
        eprintln!("usage: stdio_agent PROMPT COMMAND [ARGS...]");
        std::process::exit(2);
    };
    match run(prompt, command, rest) {
        Ok(answer) => println!("{answer}"),
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The repository's well-behaved fixture server, run with node.
    fn fixture() -> Vec<String> {
        vec![concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/native-host/tests/fixtures/normal.mjs"
        )
        .to_owned()]
    }

    #[test]
    fn the_agent_calls_the_servers_tool_and_answers_with_its_result() {
        let answer = super::run(r#"call add {"a": 2, "b": 37}"#, "node", &fixture()).unwrap();
        assert!(answer.contains("39"), "{answer}");
    }

    #[test]
    fn a_server_that_cannot_start_is_an_error_naming_it() {
        let error = super::run("hello", "/nonexistent/server", &[]).unwrap_err();
        assert!(
            error.starts_with("starting /nonexistent/server:"),
            "{error}"
        );
    }
}
