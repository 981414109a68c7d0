//! Newline-delimited framing: a linear-time decoder of byte chunks into frames, and an encoder.
