//! The REPL on any lines typed at it (`gph::fuzz::repl`): each gets an
//! answer, never a panic, a hang or a stack overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gph::fuzz::repl_init(), |data: &[u8]| gph::fuzz::repl(data));
