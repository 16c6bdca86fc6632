//! The front end on any text (`gph::fuzz::frontend`): diagnostics or a
//! program, never a panic, a hang or a stack overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gph::fuzz::frontend(data));
