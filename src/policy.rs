//! The permission gate: allow / ask / deny rules over tool names.
