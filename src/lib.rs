//! The `gph` command's parts, as a library: its options, the REPL, the
//! cache of compiled programs, `calibrate`, and the files and signals it
//! handles. `main.rs` is the command line over them; the fuzz targets
//! (`fuzz/`) are the bodies in [`fuzz`].

// The command's functions print their error and return `Err(())`: the
// message has been said, only the exit status is left to set.
#![allow(clippy::result_unit_err)]

pub mod cache;
// The browser build (web/, docs/web.md) has no threads to time and no
// signals; it takes the options and the REPL's sessions.
#[cfg(not(target_arch = "wasm32"))]
pub mod calibrate;
pub mod files;
// The fuzz targets' bodies: they reach the process's standard input.
#[cfg(not(target_arch = "wasm32"))]
pub mod fuzz;
pub mod options;
pub mod repl;
#[cfg(not(target_arch = "wasm32"))]
pub mod signals;

pub use options::{CompileOpts, MachineOpts, ObserveOpts};
