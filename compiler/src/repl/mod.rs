//! What the REPL asks of the compiler besides compiling: `:info` and `:kind`.

pub mod info;
