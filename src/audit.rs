//! Audit records: one per tool call, with secrets redacted.
