//! The bound on a streamed answer's size, shared by the stream decoders of every provider.
//!
//! A hostile or broken server can stream text or tool-argument deltas (or keep-alive noise)
//! for ever; without a bound the decoder's buffers and the caller's copy of the text grow
//! until the process runs out of memory. Every body byte counts, framing included, so the
//! bound holds whatever the server sends.

use super::openai::DecodeError;

/// The default bound on a streamed answer's body: 64 MiB. The longest answers models write
/// today (128k output tokens) take about 32 MB of SSE framing at ~250 bytes per token
/// delta; twice that leaves room for verbose gateways and reasoning while keeping a runaway
/// stream to tens of megabytes.
pub const DEFAULT_MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// Counts the bytes of one streamed answer against its bound.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SizeBudget {
    max: usize,
    received: usize,
}

impl SizeBudget {
    /// A budget of `max` bytes.
    pub(crate) fn new(max: usize) -> Self {
        SizeBudget { max, received: 0 }
    }

    /// Counts `len` more bytes; past the bound (now or before), [`DecodeError::TooLarge`].
    pub(crate) fn charge(&mut self, len: usize) -> Result<(), DecodeError> {
        self.received = self.received.saturating_add(len);
        if self.received > self.max {
            return Err(DecodeError::TooLarge { limit: self.max });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_itself_is_allowed_and_one_byte_more_is_not() {
        let mut budget = SizeBudget::new(10);
        assert_eq!(budget.charge(4), Ok(()));
        assert_eq!(budget.charge(6), Ok(()));
        assert_eq!(budget.charge(1), Err(DecodeError::TooLarge { limit: 10 }));
        // Once over, it stays over: a later empty chunk does not reopen the stream.
        assert_eq!(budget.charge(0), Err(DecodeError::TooLarge { limit: 10 }));
        assert_eq!(
            SizeBudget::new(usize::MAX).charge(usize::MAX),
            Ok(()),
            "no overflow at the top"
        );
    }
}
