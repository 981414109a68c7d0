//! Tests of the extension formats and the skill set.

mod formats;
mod set;
