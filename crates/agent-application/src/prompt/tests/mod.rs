mod assemble;
mod snapshot;
