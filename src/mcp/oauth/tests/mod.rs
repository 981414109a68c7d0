mod encoding;
mod flow;
mod harness;
