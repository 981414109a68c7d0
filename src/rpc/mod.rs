//! JSON-RPC endpoint state: the pending-request table and its deadlines.
