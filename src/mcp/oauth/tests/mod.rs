mod assertion;
mod encoding;
mod enterprise;
mod flow;
mod grants;
mod harness;
