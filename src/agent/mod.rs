//! The agent loop: a sans-IO state machine from user message to final answer.
