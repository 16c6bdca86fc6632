//! Grid and machine files on any text (`gph::fuzz::grid`): a grid or a
//! located error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gph::fuzz::grid(data));
