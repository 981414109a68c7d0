//! Tests of the extension formats and the skill set.

mod formats;
mod record;
mod set;
