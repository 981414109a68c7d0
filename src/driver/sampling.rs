//! Sampling: answering a server's `sampling/createMessage` with the runtime's model.

use super::backends::ModelStream;
use super::client::RequestHandler;
use super::runtime::Runtime;
use super::traits::Clock;
use crate::jsonrpc::{codes, ErrorObject};
use crate::mcp::sampling::{sampling_request, sampling_result};
use serde_json::Value;
use std::rc::Rc;

impl<C: Clock> Runtime<C> {
    /// A handler for [`McpClient::connect_serving`](super::McpClient::connect_serving) that
    /// answers `sampling/createMessage` with the runtime's model at the time of each request
    /// (text only; see [`crate::mcp::sampling`]). Sampling spends the user's model budget on
    /// the server's behalf: hosts offer it only to servers the user trusts with that.
    pub fn sampling_handler(&self) -> RequestHandler {
        let current = Rc::clone(&self.model);
        Rc::new(move |method: &str, params: Option<Value>| {
            let model = Rc::clone(&current.borrow());
            let method = method.to_owned();
            Box::pin(async move {
                if method != "sampling/createMessage" {
                    return Err(ErrorObject::method_not_found(&method));
                }
                let request = sampling_request(params.as_ref())?;
                let ignore_stream = |_: ModelStream<'_>| {};
                let response = model.complete(request, &ignore_stream).await.map_err(|e| {
                    ErrorObject::new(codes::INTERNAL_ERROR, format!("the model failed: {e}"))
                })?;
                let name = model.model_name().unwrap_or_else(|| "agentwire".into());
                Ok(sampling_result(&response, &name))
            })
        })
    }
}
