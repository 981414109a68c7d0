//! The mock model (placeholder while it is being written).

/// A deterministic model that needs no network.
#[derive(Clone, Copy, Debug, Default)]
pub struct MockModel;
