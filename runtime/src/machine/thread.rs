//! A thread: three stacks and a state. Pointer registers of every
//! activation live on `ptrs` (scanned by the GC), unboxed registers on
//! `vals` (never scanned), return continuations on `frames` (pure data:
//! an update frame's thunk and an apply frame's pending arguments are kept
//! on `ptrs`, so the GC sees and moves them).
//!
//! The current activation is `ptrs[pbase..]` and `vals[vbase..]`: its
//! window always ends at the top of the stack, so a call's new window
//! starts at `ptrs.len()` and a return truncates back to the callee's base.

use crate::machine::heap::Ptr;

/// What to do with a value returned to a frame.
pub mod fk {
    /// Resume the caller at `pc`, the boxed result in pointer register `dst`.
    pub const RET: u8 = 0;
    /// Resume the caller at `pc`, the unboxed result in value register `dst`.
    pub const RETV: u8 = 1;
    /// Update the thunk at `ptrs[base]` with the value, then keep returning.
    pub const UPDATE: u8 = 2;
    /// Apply the value (a function) to the `dst` pending arguments saved at
    /// `ptrs[base..base + dst]`.
    pub const APPLY: u8 = 3;
    /// An exception handler (`catchIO`): the handler and the world token
    /// are saved at `ptrs[base..base + 2]`. A value returned through it
    /// passes; an exception raised above it unwinds to it and applies the
    /// handler.
    pub const CATCH: u8 = 4;
}

#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub kind: u8,
    pub dst: u16,
    pub pc: u32,
    /// The caller's pointer base (RET/RETV) or the saved slot
    /// (UPDATE/APPLY/CATCH).
    pub pbase: u32,
    pub vbase: u32,
}

impl Frame {
    /// The update frame of a thunk whose code runs with its registers
    /// from `slot`/`vslot` (the thunk itself saved at `slot`).
    pub fn update(slot: usize, vslot: usize) -> Frame {
        Frame {
            kind: fk::UPDATE,
            dst: 0,
            pc: 0,
            pbase: slot as u32,
            vbase: vslot as u32,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Runnable,
    /// Waiting for the black hole `blocked_on` to be updated.
    Blocked,
    Finished,
}

pub struct Thread {
    pub id: u32,
    pub ptrs: Vec<Ptr>,
    pub vals: Vec<u64>,
    pub frames: Vec<Frame>,
    /// Where to continue (when suspended).
    pub pc: u32,
    pub pbase: u32,
    pub vbase: u32,
    pub state: State,
    pub blocked_on: Ptr,
    /// The value the thread ended with.
    pub result: Ptr,
}

impl Thread {
    /// A thread that starts at `entry` with `regs` as its first registers.
    pub fn new(id: u32, entry: u32, regs: &[Ptr], dummy: Ptr) -> Thread {
        let mut ptrs = Vec::with_capacity(1024);
        ptrs.extend_from_slice(regs);
        ptrs.push(dummy); // one scratch register for the entry code
        Thread {
            id,
            ptrs,
            vals: Vec::with_capacity(1024),
            frames: Vec::with_capacity(256),
            pc: entry,
            pbase: 0,
            vbase: 0,
            state: State::Runnable,
            blocked_on: dummy,
            result: dummy,
        }
    }

    /// A placeholder (while the real thread runs outside the table).
    pub fn empty() -> Thread {
        Thread {
            id: u32::MAX,
            ptrs: Vec::new(),
            vals: Vec::new(),
            frames: Vec::new(),
            pc: 0,
            pbase: 0,
            vbase: 0,
            state: State::Finished,
            blocked_on: Ptr(0),
            result: Ptr(0),
        }
    }

    /// Every pointer the GC must see.
    pub fn roots_mut(&mut self, mut f: impl FnMut(&mut Ptr)) {
        for p in self.ptrs.iter_mut() {
            f(p);
        }
        f(&mut self.blocked_on);
        f(&mut self.result);
    }
}
