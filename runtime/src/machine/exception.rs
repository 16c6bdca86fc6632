//! Exceptions: a run-time error unwinds its thread to the innermost
//! `catchIO` handler (a CATCH frame), as GHC's `raise#` unwinds to
//! `catch#`. Every error a program can cause is caught — `error`, a
//! failed pattern match, arithmetic (`divide by zero`), `<<loop>>`, a
//! failed IO operation, `raiseIO` — but not the machine's own limits
//! (`heap exhausted`, `stack overflow`), an interrupt or an internal
//! error: those end the program, as they do in GHC's RTS unless a program
//! asks for them by name, which gph's library does not offer. `exitWith`
//! is GHC's ExitCode exception when a handler is there to see it.
//!
//! The handler learns what was raised through two arguments (the library
//! turns them into Control.Exception's `SomeException`, prelude/Gph/IO.gph):
//! a list of strings and a value.
//!
//! * `raiseIO e msg`: `[]` and `e`.
//! * a failed IO operation: `[kind, location, description]` and the file
//!   name as a fourth string when there is one; `kind` is one letter, `a`
//!   for GHC's first IOErrorType constructor (machine/io.rs);
//! * `exitWith` under a handler: `["X"]` and the exit status, an Int (the
//!   library makes it an ExitCode; a handler that does not want it calls
//!   `exitWith` again);
//! * any other error: `[class, message]`, the class `A` for an
//!   ArithException (the runtime's messages are GHC's `show` of them),
//!   `L` for NonTermination (`<<loop>>`), `P` for a PatternMatchFail (the
//!   compiler's `FILE:LINE:COL: Non-exhaustive patterns in ...`), `C` for a
//!   RecConError (`...: Missing field in record construction f`), `S` for
//!   a RecSelError (`No match in record selector f`), `M` for a
//!   NoMethodError (`...: No instance nor default method for class
//!   operation m`), `B` for BlockedIndefinitelyOnMVar (raised in the main
//!   thread at a deadlock, when it waits under a handler), `E` for an
//!   ErrorCall.
//!
//! The thunks the thread was evaluating above the handler become RAISE
//! nodes: demanded again they raise the same message (the class is read
//! off the message again; a `raiseIO` value is not kept, so a second
//! demand raises an ErrorCall with its text).

use crate::machine::heap::Ptr;
use crate::machine::pe::{Pe, Stop, Thrown};
use crate::machine::thread::{fk, Thread};
use gph_code::CONS;

/// The class letter of an error that is not an IO error, or None for the
/// errors no handler may catch.
pub fn class_of(msg: &str) -> Option<char> {
    const UNCATCHABLE: &[&str] = &[
        "heap exhausted",
        "stack overflow",
        "interrupted",
        "internal error",
    ];
    // GHC's ArithException constructors, as `show` writes them.
    const ARITH: &[&str] = &[
        "arithmetic overflow",
        "arithmetic underflow",
        "loss of precision",
        "divide by zero",
        "denormal",
        "Ratio has zero denominator",
    ];
    // The compiler's messages for a failed match (GHC's PatternMatchFail).
    const PATTERN: &[&str] = &[
        ": Non-exhaustive patterns in",
        ": Non-exhaustive guards in",
        ": Irrefutable pattern failed",
    ];
    if UNCATCHABLE.iter().any(|u| msg.starts_with(u)) {
        None
    } else if ARITH.contains(&msg) {
        Some('A')
    } else if msg == "<<loop>>" {
        Some('L')
    } else if msg == crate::machine::concurrency::BLOCKED_ON_MVAR {
        Some('B')
    } else if PATTERN.iter().any(|p| msg.contains(p)) {
        Some('P')
    } else if msg.contains(": Missing field in record construction") {
        Some('C')
    } else if msg.starts_with("No match in record selector ") {
        Some('S')
    } else if msg.contains(": No instance nor default method for class operation") {
        Some('M')
    } else {
        Some('E')
    }
}

impl Pe<'_, '_> {
    /// The thread `t` failed with `msg` (and `self.thrown`, when an IO
    /// primitive says what it threw). If the error is catchable and `t` has
    /// a handler, unwinds `t` to it and sets it to apply the handler when
    /// it runs next: Ok(true). Otherwise the error stands: Ok(false).
    pub(crate) fn catch(&mut self, t: &mut Thread, msg: &str) -> Result<bool, Stop> {
        let thrown = self.thrown.take();
        let Some(k) = t.frames.iter().rposition(|f| f.kind == fk::CATCH) else {
            return Ok(false);
        };
        let parts: Option<Vec<String>> = match &thrown {
            Some(Thrown::Value(_)) => None,
            Some(Thrown::Exit(_)) => Some(vec!["X".to_string()]),
            Some(Thrown::Io(e)) => {
                let mut parts = vec![
                    char::from(b'a' + e.kind as u8).to_string(),
                    e.location.clone(),
                    e.description.clone(),
                ];
                parts.extend(e.file.clone());
                Some(parts)
            }
            None => match class_of(msg) {
                Some(c) => Some(vec![c.to_string(), msg.to_string()]),
                None => return Ok(false),
            },
        };
        let l = self.l;
        // Built before the stacks change, so that a collection sees the
        // thread as it is (a raised value needs no space).
        let (strs, value) = match (parts, thrown) {
            (Some(parts), thrown) => {
                // An exit's status goes with its strings, as an Int.
                let words: usize = parts.iter().map(|s| self.string_words(s) + 3).sum();
                self.ensure(t, words + 2)?;
                let mut list = l.nil_node;
                for s in parts.iter().rev() {
                    let s = self.build_string(s, l.nil_node);
                    list = self.build_con(CONS.0, &[s, list]);
                }
                let value = match thrown {
                    Some(Thrown::Exit(code)) => self.build_int(code as i64),
                    _ => l.dummy,
                };
                (list, value)
            }
            (None, Some(Thrown::Value(p))) => (l.nil_node, p),
            (None, _) => unreachable!("only a raised value has no strings"),
        };
        let above = t.frames.split_off(k + 1);
        self.raise_thunks(&above, &t.ptrs, msg.to_string());
        let f = t.frames.pop().expect("the handler's frame");
        // The handler and the world token are saved at the frame's slot;
        // the handler's activation starts there.
        let slot = f.pbase as usize;
        let (handler, world): (Ptr, Ptr) = (t.ptrs[slot], t.ptrs[slot + 1]);
        t.ptrs.truncate(slot);
        t.ptrs.extend([handler, strs, value, world]);
        t.vals.truncate(f.vbase as usize);
        t.pc = l.catch_entry;
        t.pbase = slot as u32;
        t.vbase = f.vbase;
        Ok(true)
    }
}
