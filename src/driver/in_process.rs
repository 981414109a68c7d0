//! A transport to the built-in mock GitHub server, in process: no child, no pipe, same protocol.

use super::traits::Transport;
use crate::mock_github::MockGithubServer;
use futures::channel::mpsc;
use futures::lock::Mutex;
use futures::StreamExt;
use std::cell::RefCell;

/// Bytes to and from a [`MockGithubServer`] living in this process. The client code above it
/// is exactly the code that talks to a real server over stdio.
pub struct MockGithubTransport {
    server: RefCell<Option<MockGithubServer>>,
    replies: mpsc::UnboundedSender<Vec<u8>>,
    inbox: Mutex<mpsc::UnboundedReceiver<Vec<u8>>>,
}

impl MockGithubTransport {
    /// A transport to a fresh mock server.
    pub fn new(server: MockGithubServer) -> Self {
        let (replies, inbox) = mpsc::unbounded();
        MockGithubTransport {
            server: RefCell::new(Some(server)),
            replies,
            inbox: Mutex::new(inbox),
        }
    }
}

impl Default for MockGithubTransport {
    fn default() -> Self {
        Self::new(MockGithubServer::new())
    }
}

impl Transport for MockGithubTransport {
    async fn send(&self, bytes: Vec<u8>) -> Result<(), String> {
        let reply = match self.server.borrow_mut().as_mut() {
            Some(server) => server.handle_bytes(&bytes),
            None => return Err("the mock GitHub server was shut down".into()),
        };
        if !reply.is_empty() {
            let _ = self.replies.unbounded_send(reply);
        }
        Ok(())
    }

    async fn recv(&self) -> Option<Result<Vec<u8>, String>> {
        self.inbox.lock().await.next().await.map(Ok)
    }

    async fn closed_reason(&self) -> String {
        "the mock GitHub server stopped".into()
    }

    async fn close(&self) {
        self.server.borrow_mut().take();
        self.replies.close_channel();
    }
}
