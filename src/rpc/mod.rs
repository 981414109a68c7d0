//! JSON-RPC endpoint state: the pending-request table and its deadlines.

mod pending;

pub use pending::{Deadlines, Pending, PendingTable};
