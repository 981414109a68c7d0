//! Tests of the extension formats and the skill set.

mod formats;
#[cfg(feature = "skill-set")]
mod mock_model;
mod record;
mod set;
