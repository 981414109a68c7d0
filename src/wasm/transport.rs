//! An MCP transport over a JS object: the host moves lines, the core does the protocol.
//!
//! The JS layer hands over a normalised object `{ send(line), start(onMessage, onClose,
//! onAuthorizing), close() }` (it adapts the public `{ send, onMessage, onClose, onAuthorizing,
//! close }` shape to it and makes sure a callback is never called after the transport is
//! closed). Messages arrive one whole
//! JSON-RPC message per `onMessage` call, without a newline; this side adds one, so the core's
//! line framing reads them exactly as it reads a child's stdout.

use super::js::{error_text, settle};
use crate::driver::Transport;
use crate::framing::excerpt;
use crate::jsonrpc::Message;
use futures::channel::mpsc;
use futures::lock::Mutex;
use futures::StreamExt;
use js_sys::{Function, Reflect};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How many of the first messages are checked for being JSON-RPC, to explain a failed
/// handshake ("it printed a banner") better than "it did not answer in time".
const PROBED_MESSAGES: usize = 8;

/// A callback the host calls with one value (a message, or the reason the connection ended).
type Callback = Closure<dyn FnMut(JsValue)>;

enum Incoming {
    Line(Vec<u8>),
    Closed(String),
}

/// What the first messages of a connection looked like.
#[derive(Default)]
pub(crate) struct Probe {
    seen: usize,
    /// The first message that was not JSON-RPC, shortened.
    pub(crate) bad_message: Option<String>,
}

/// A [`Transport`] whose far end is a JS object.
pub(crate) struct JsTransport {
    target: JsValue,
    send: Function,
    close: Function,
    inbox: Mutex<mpsc::UnboundedReceiver<Incoming>>,
    reason: RefCell<Option<String>>,
    /// Authorization rounds the host announces: `true` at the start, `false` at the end.
    authorizing: Mutex<mpsc::UnboundedReceiver<bool>>,
    /// Kept alive as long as the transport, so the host can call them until it is closed.
    _callbacks: (Callback, Callback, Callback),
}

fn method(target: &JsValue, name: &str) -> Result<Function, String> {
    Reflect::get(target, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| format!("the transport has no {name}() method"))
}

impl JsTransport {
    /// Wires the callbacks and starts the transport; fails when `start` throws.
    pub(crate) fn new(target: JsValue, probe: Rc<RefCell<Probe>>) -> Result<JsTransport, String> {
        let send = method(&target, "send")?;
        let close = method(&target, "close")?;
        let start = method(&target, "start")?;
        let (tx, rx) = mpsc::unbounded();
        let lines = tx.clone();
        let on_message = Callback::new(move |message: JsValue| {
            let Some(text) = message.as_string() else {
                return;
            };
            {
                let mut probe = probe.borrow_mut();
                if probe.seen < PROBED_MESSAGES {
                    probe.seen += 1;
                    if probe.bad_message.is_none() {
                        if let Err(error) = Message::parse(text.as_bytes()) {
                            probe.bad_message =
                                Some(format!("{error}: {}", excerpt(text.as_bytes())));
                        }
                    }
                }
            }
            let mut bytes = text.into_bytes();
            bytes.push(b'\n');
            let _ = lines.unbounded_send(Incoming::Line(bytes));
        });
        let on_close = Callback::new(move |reason: JsValue| {
            let reason = if reason.is_undefined() || reason.is_null() {
                "the transport closed".to_owned()
            } else {
                error_text(&reason)
            };
            let _ = tx.unbounded_send(Incoming::Closed(reason));
        });
        let (rounds, authorizing) = mpsc::unbounded();
        let on_authorizing = Callback::new(move |flag: JsValue| {
            let _ = rounds.unbounded_send(flag.is_truthy());
        });
        start
            .call3(
                &target,
                on_message.as_ref().unchecked_ref(),
                on_close.as_ref().unchecked_ref(),
                on_authorizing.as_ref().unchecked_ref(),
            )
            .map_err(|e| format!("the transport failed to start: {}", error_text(&e)))?;
        Ok(JsTransport {
            target,
            send,
            close,
            inbox: Mutex::new(rx),
            reason: RefCell::new(None),
            authorizing: Mutex::new(authorizing),
            _callbacks: (on_message, on_close, on_authorizing),
        })
    }
}

impl Transport for JsTransport {
    async fn send(&self, bytes: Vec<u8>) -> Result<(), String> {
        // The session hands over one or more whole lines; the host gets one call per message.
        let text = String::from_utf8_lossy(&bytes);
        for line in text.split('\n').filter(|l| !l.is_empty()) {
            let returned = self
                .send
                .call1(&self.target, &JsValue::from_str(line))
                .map_err(|e| format!("send() threw: {}", error_text(&e)))?;
            if returned.has_type::<js_sys::Promise>() {
                settle(returned)
                    .await
                    .map_err(|e| format!("send() rejected: {e}"))?;
            }
        }
        Ok(())
    }

    async fn recv(&self) -> Option<Result<Vec<u8>, String>> {
        match self.inbox.lock().await.next().await {
            Some(Incoming::Line(bytes)) => Some(Ok(bytes)),
            Some(Incoming::Closed(reason)) => {
                *self.reason.borrow_mut() = Some(reason);
                None
            }
            None => None,
        }
    }

    async fn closed_reason(&self) -> String {
        self.reason
            .borrow_mut()
            .take()
            .unwrap_or_else(|| "the transport closed".into())
    }

    async fn authorizing(&self) -> bool {
        match self.authorizing.lock().await.next().await {
            Some(authorizing) => authorizing,
            // The transport is gone: no more rounds.
            None => futures::future::pending().await,
        }
    }

    async fn close(&self) {
        // A close() that throws changes nothing: the connection is over either way.
        let _ = self.close.call0(&self.target);
    }
}
