//! Deterministic pseudo-random numbers for tests: varied inputs that never flake.

/// A xorshift64* generator: the same seed gives the same sequence. The seed must not be 0.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }

    /// One of `items`, which must not be empty.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
