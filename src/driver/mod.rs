//! The async driver: futures-only wrappers over the sans-IO machines, for hosts with an executor.
