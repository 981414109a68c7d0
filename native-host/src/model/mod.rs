//! Real models for the native host: an OpenAI-compatible chat completions backend (OpenAI,
//! DashScope, vLLM, Ollama, ...) that also speaks Anthropic Messages, and the choice between it
//! and the mock model.
//!
//! ```no_run
//! use agentwire_host::model::{ModelChoice, ModelOverrides, ModelSettings};
//! let overrides = ModelOverrides { model: Some("qwen-max".into()), ..Default::default() };
//! let choice = ModelSettings::from_env(|name| std::env::var(name).ok(), &overrides)?;
//! let (backend, notice) = choice.into_backend()?;
//! if let Some(notice) = notice {
//!     eprintln!("{notice}");
//! }
//! # Ok::<(), String>(())
//! ```

mod backend;
mod error;
mod key;
pub mod named;
mod retry;
mod settings;
mod wire;

pub use backend::OpenAiBackend;
pub use error::ModelError;
pub use key::ApiKey;
pub use retry::{is_retryable, parse_retry_after, RetryPolicy};
pub use settings::{
    ModelChoice, ModelOverrides, ModelSettings, Provider, ANTHROPIC_DEFAULT_BASE_URL,
    ANTHROPIC_DEFAULT_MODEL, DASHSCOPE_DEFAULT_BASE_URL, DASHSCOPE_DEFAULT_MODEL,
    DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_MAX_ANSWER_DURATION, MOCK_MODEL_NAME, OPENAI_DEFAULT_BASE_URL, OPENAI_DEFAULT_MODEL,
};
pub use wire::ANTHROPIC_VERSION;

use agentwire::driver::ModelBackend;
use agentwire::model::MockModel;
use std::rc::Rc;

impl ModelChoice {
    /// The backend to run with, plus the notice to show the user before the first run (set
    /// when the mock model stands in for a real one).
    pub fn into_backend(self) -> Result<(Rc<dyn ModelBackend>, Option<String>), String> {
        match self {
            ModelChoice::OpenAi(settings) => {
                let backend = OpenAiBackend::new(settings).map_err(|e| e.to_string())?;
                Ok((Rc::new(backend), None))
            }
            ModelChoice::Mock { notice } => Ok((Rc::new(MockModel::new()), Some(notice))),
        }
    }
}
