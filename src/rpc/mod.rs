//! JSON-RPC endpoint state: the pending-request table and its deadlines, and recovering the
//! id of a message too long to keep.

mod pending;
mod sniff;

pub use pending::{Deadlines, Pending, PendingTable};
pub use sniff::{sniff_id, sniff_response_id};
