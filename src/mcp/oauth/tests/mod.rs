mod assertion;
mod chaos;
mod encoding;
mod enterprise;
mod flow;
mod grants;
mod harness;
