mod assertion;
mod encoding;
mod flow;
mod grants;
mod harness;
