//! The reducer: runs one thread's instructions for a time slice.
//!
//! The current activation (pc and register bases) lives in Rust locals;
//! registers are read and written in place on the thread's stacks. Calls
//! copy their arguments register-to-register into the new window on the
//! same stacks and push a frame; returns pop frames. Nothing here recurses
//! in Rust, allocates per instruction or dispatches dynamically. The heap
//! may be collected at any allocation: every live pointer is then in a
//! register (on `t.ptrs`) or in `Pe::tmp`, never only in a Rust local
//! (Note [GC safety] in `heap.rs`).

use crate::code::Prim;
use crate::machine::concurrency::Suspend;
use crate::machine::heap::{h_info, h_kind, header, is_value_kind, kind, Ptr};
use crate::machine::load::Op;
use crate::machine::pe::{err, Pe, Stop};
use crate::machine::scheduler::SliceEnd;
use crate::machine::thread::{fk, Frame, State, Thread};
use gph_code::values::{unop, vop};

/// The current activation.
#[derive(Clone, Copy)]
pub struct Act {
    pub pc: usize,
    pub pbase: usize,
    pub vbase: usize,
}

impl Act {
    /// The frame that returns a value into register `dst` of this activation.
    #[inline]
    fn ret_frame(&self, dst: u16) -> Frame {
        Frame {
            kind: fk::RET,
            dst,
            pc: self.pc as u32,
            pbase: self.pbase as u32,
            vbase: self.vbase as u32,
        }
    }
}

/// Where an application's callee goes.
#[derive(Clone, Copy)]
enum Mode {
    /// A non-tail `Apply`: result into this register.
    Call(u16),
    /// `TailApply`: replaces the current activation.
    Tail,
    /// An apply frame's pending arguments (at ptrs/vals of this base).
    Frame(usize, usize),
}

enum Applied {
    /// A supercombinator was entered (the activation is set up).
    Entered,
    /// Too few arguments: this PAP is the value.
    Value(Ptr),
}

enum Evaled {
    /// The register now holds a value.
    Value(Ptr),
    Blocked,
}

macro_rules! get {
    ($v:expr, $i:expr) => {{
        let i = $i;
        debug_assert!(i < $v.len());
        // SAFETY: load-time checks keep register numbers below the
        // activation's size, and each window is resized to that size on
        // entry, so `i` is in bounds.
        unsafe { *$v.get_unchecked(i) }
    }};
}
macro_rules! set {
    ($v:expr, $i:expr, $x:expr) => {{
        let i = $i;
        let x = $x;
        debug_assert!(i < $v.len());
        // SAFETY: as in `get!`.
        unsafe {
            *$v.get_unchecked_mut(i) = x;
        }
    }};
}

/// Reductions between two looks at the mailbox (Note [Mail ends a slice]).
///
/// Note [Mail ends a slice]
/// A PE handles its messages between slices, and a slice is 20,000
/// reductions, about a millisecond of a core: a FETCH that reached a busy
/// PE waited for the slice to end, half of one on average, which on real
/// cores was most of a round trip. On the threads engine a slice looks at
/// its PE's channel every 1,024 reductions and ends when a message has
/// come; the PE handles its mail and the same thread goes on first,
/// where it stopped (`Pe::step`), with the rest of its slice, not a new
/// one: a thread that mail kept cutting would otherwise never give the PE
/// up. On 2 cores (`bench/predict.py --lazy`,
/// run alone, least of 3): a lazy list read element by element from a
/// busy PE (bench/lazy/parsort.gph 200000 16) 1.65 -> 1.35-1.55 s on 2
/// PEs, bench/lazy/linsolv.gph 40 0.63 -> 0.55-0.57 s; the other programs
/// within noise.
/// Looking costs two atomic loads (crossbeam's `is_empty`). The sim
/// engine, whose slices are atomic events in virtual time, does not cut
/// them: its message waits half a slice as before.
const MAIL_POLL: u64 = 1024;

/// Arguments of a tail call that are moved through locals rather than
/// through the top of the stack.
const STAGED: usize = 8;

/// Registers a call's window starts with as one block of the dummy node
/// and one of 0, after its arguments (nfib's worker has 11 value
/// registers: with 8 the rest was a memset call).
const FILL: usize = 16;

impl<'p, 'io> Pe<'p, 'io> {
    /// Runs `t` for about `budget` reductions.
    #[allow(unused_unsafe)]
    pub fn run_slice(&mut self, t: &mut Thread, budget: u64) -> Result<SliceEnd, Stop> {
        let l = self.l;
        let ops = &l.ops[..];
        let pool = &l.args[..];
        let dummy = l.dummy;
        let mut a = Act {
            pc: t.pc as usize,
            pbase: t.pbase as usize,
            vbase: t.vbase as usize,
        };
        let mut red: u64 = 0;
        // The next count at which the slice looks at its budget and its
        // mail: one comparison a reduction (Note [Mail ends a slice]).
        let mut check_at = if self.entry_counts.is_empty() {
            budget.min(MAIL_POLL)
        } else {
            1
        };

        macro_rules! save {
            () => {{
                t.pc = a.pc as u32;
                t.pbase = a.pbase as u32;
                t.vbase = a.vbase as u32;
                self.slice_reductions += red;
            }};
        }
        macro_rules! finish {
            ($r:expr) => {{
                let r = $r;
                if r.is_err() {
                    self.slice_reductions += red;
                }
                r?
            }};
        }
        // A supercombinator was entered: count it, end the slice when due,
        // or early when mail has come (Note [Mail ends a slice]).
        macro_rules! entered {
            () => {{
                red += 1;
                if red >= check_at {
                    // Profiling (`obs::sc_profile`) looks at every entry
                    // here, off the common path: a test a reduction cost
                    // sumEuler 2-6 %.
                    if !self.entry_counts.is_empty() {
                        self.entry_counts[a.pc] += 1;
                    }
                    if red >= budget || self.mail_came() {
                        save!();
                        return Ok(SliceEnd::Yield);
                    }
                    check_at = if self.entry_counts.is_empty() {
                        budget.min(red + MAIL_POLL)
                    } else {
                        red + 1
                    };
                }
            }};
        }
        // The current windows' first registers. Refreshed whenever the
        // activation changes or the stacks may have been reallocated.
        let mut pp: *mut Ptr = t.ptrs.as_mut_ptr().wrapping_add(a.pbase);
        let mut vp: *mut u64 = t.vals.as_mut_ptr().wrapping_add(a.vbase);
        macro_rules! refresh {
            () => {{
                pp = t.ptrs.as_mut_ptr().wrapping_add(a.pbase);
                vp = t.vals.as_mut_ptr().wrapping_add(a.vbase);
            }};
        }
        // SAFETY (the four register macros): load-time checks keep
        // register numbers below the activation's size; each window is
        // sized on entry and `pp`/`vp` are refreshed after every change of
        // activation or stack.
        macro_rules! rp {
            ($r:expr) => {{
                let r = $r as usize;
                debug_assert!(a.pbase + r < t.ptrs.len());
                unsafe { *pp.add(r) }
            }};
        }
        macro_rules! wp {
            ($r:expr, $x:expr) => {{
                let r = $r as usize;
                let x = $x;
                debug_assert!(a.pbase + r < t.ptrs.len());
                unsafe { *pp.add(r) = x }
            }};
        }
        macro_rules! rv {
            ($r:expr) => {{
                let r = $r as usize;
                debug_assert!(a.vbase + r < t.vals.len());
                unsafe { *vp.add(r) }
            }};
        }
        macro_rules! wv {
            ($r:expr, $x:expr) => {{
                let r = $r as usize;
                let x = $x;
                debug_assert!(a.vbase + r < t.vals.len());
                unsafe { *vp.add(r) = x }
            }};
        }
        macro_rules! mem {
            ($i:expr) => {
                get!(self.heap.mem, $i as usize)
            };
        }
        // Allocates `words`, collecting when full (registers are roots).
        macro_rules! alloc {
            ($words:expr) => {{
                let w = $words;
                match self.heap.try_alloc(w) {
                    Some(p) => p.0 as usize,
                    None => {
                        finish!(self.gc(t, w));
                        self.heap.try_alloc(w).expect("space after GC").0 as usize
                    }
                }
            }};
        }
        // A new node of `n` fields, the registers the pool names at `args`.
        macro_rules! node {
            ($kind:expr, $n:expr, $info:expr, $args:expr) => {{
                let (n, args) = ($n as usize, $args as usize);
                let p = alloc!(1 + n);
                set!(self.heap.mem, p, header($kind, n as u32, $info));
                for i in 0..n {
                    let x = rp!(get!(pool, args + i));
                    set!(self.heap.mem, p + 1 + i, x.0 as u64);
                }
                Ptr(p as u32)
            }};
        }
        // Returns the value `$v` to the frames below the current activation.
        macro_rules! ret {
            ($v:expr) => {{
                let mut v: Ptr = $v;
                let mut ptop = a.pbase;
                let mut vtop = a.vbase;
                loop {
                    let f = match t.frames.pop() {
                        Some(f) => f,
                        None => {
                            self.slice_reductions += red;
                            return err("internal error: return with no frame");
                        }
                    };
                    match f.kind {
                        fk::RET => {
                            t.ptrs.truncate(ptop);
                            t.vals.truncate(vtop);
                            a = Act {
                                pc: f.pc as usize,
                                pbase: f.pbase as usize,
                                vbase: f.vbase as usize,
                            };
                            refresh!();
                            wp!(f.dst, v);
                            break;
                        }
                        fk::UPDATE => {
                            let th = t.ptrs[f.pbase as usize];
                            self.update(th, v);
                            ptop = f.pbase as usize;
                            vtop = f.vbase as usize;
                        }
                        fk::CATCH => {
                            // The action returned: its handler is done.
                            ptop = f.pbase as usize;
                            vtop = f.vbase as usize;
                        }
                        fk::APPLY => {
                            let slot = f.pbase as usize;
                            self.tmp.clear();
                            self.tmp.push(v);
                            self.tmp
                                .extend_from_slice(&t.ptrs[slot..slot + f.dst as usize]);
                            let (r, na) =
                                finish!(self.apply(t, a, Mode::Frame(slot, f.vbase as usize)));
                            a = na;
                            refresh!();
                            match r {
                                Applied::Entered => {
                                    entered!();
                                    break;
                                }
                                Applied::Value(p) => {
                                    v = p;
                                    ptop = slot;
                                    vtop = f.vbase as usize;
                                }
                            }
                        }
                        _ => {
                            self.slice_reductions += red;
                            return err("internal error: a boxed value returned to CallV");
                        }
                    }
                }
            }};
        }

        // Enters thunk `$p` (header `$h`), the node in register `$reg`: a
        // return frame (none in tail position), an update frame, the
        // thunk's fields as the first registers of its code, and the thunk
        // black-holed. Here rather than in a function: `eval_slow`'s call
        // and result cost 11 % of the Sudoku program's time, and a function
        // of its own, even inlined, 3-5 % more instructions than this.
        macro_rules! enter_thunk {
            ($reg:expr, $p:expr, $h:expr, $tail:expr) => {{
                let (p, h) = ($p, $h);
                let info = l.scs[h_info(h) as usize];
                let (ar, nr, nvr) = (
                    info.arity as usize,
                    info.nregs as usize,
                    info.nvregs as usize,
                );
                if $tail {
                    t.ptrs.truncate(a.pbase);
                    t.vals.truncate(a.vbase);
                } else {
                    t.frames.push(a.ret_frame($reg));
                }
                let slot = t.ptrs.len();
                let vslot = t.vals.len();
                // A thunk entered in tail position right above an update
                // frame has the value that frame's thunk will get (`r` in
                // `foldr (\x r -> if p x then x : r else r)`): it becomes
                // an indirection to that (black-holed) thunk instead of
                // pushing a frame of its own. GHC squeezes such adjacent
                // update frames at GC time; without this a run of rejected
                // elements took a frame each (20 bytes of stack per element).
                let outer = match t.frames.last() {
                    Some(f) if $tail && f.kind == fk::UPDATE => Some(t.ptrs[f.pbase as usize]),
                    _ => None,
                };
                // What the thunk becomes while its code runs.
                let (nh, w) = match outer {
                    Some(o) => (header(kind::IND, 1, 0), o.0 as u64),
                    None => {
                        t.frames.push(Frame::update(slot, vslot));
                        (header(kind::BLACKHOLE, 1, t.id), 0)
                    }
                };
                t.ptrs.reserve(1 + nr);
                t.vals.reserve(nvr);
                let i = p.0 as usize;
                let fields = &self.heap.mem[i + 1..i + 1 + ar];
                // SAFETY: capacity was reserved above; the window is fully
                // written before the lengths are set.
                unsafe {
                    let bp = t.ptrs.as_mut_ptr().add(slot);
                    *bp = p;
                    for (k, &f) in fields.iter().enumerate() {
                        *bp.add(1 + k) = Ptr(f as u32);
                    }
                    for k in ar..nr {
                        *bp.add(1 + k) = dummy;
                    }
                    t.ptrs.set_len(slot + 1 + nr);
                    let bv = t.vals.as_mut_ptr().add(vslot);
                    for k in 0..nvr {
                        *bv.add(k) = 0;
                    }
                    t.vals.set_len(vslot + nvr);
                }
                set!(self.heap.mem, i, nh);
                set!(self.heap.mem, i + 1, w);
                a = Act {
                    pc: info.entry as usize,
                    pbase: slot + 1,
                    vbase: vslot,
                };
                refresh!();
                entered!();
                continue;
            }};
        }
        // An `Eval` of a register whose node is not a value: enters the
        // thunk (the op after this one runs when it returns), or blocks.
        macro_rules! eval_slow {
            ($reg:expr) => {{
                let p = rp!($reg);
                let h = mem!(p.0);
                if h_kind(h) == kind::THUNK {
                    enter_thunk!($reg, p, h, false);
                }
                let (r, na) = finish!(self.eval_slow(t, a, $reg));
                a = na;
                refresh!();
                match r {
                    Evaled::Value(v) => wp!($reg, v),
                    Evaled::Blocked => {
                        save!();
                        return Ok(SliceEnd::Blocked);
                    }
                }
            }};
        }
        // Writes the `ar` pointer and `var` value registers the pool names
        // at `args` (at most STAGED each) to `pdst` and `vdst`, all read
        // before any is written. Read back one at a time, as written: a
        // wider load of locals just stored one by one cannot be forwarded
        // from the stores and waits for them (16 % of sumEuler's time was
        // on one such load).
        macro_rules! staged {
            ($args:expr, $ar:expr, $var:expr, $pdst:expr, $vdst:expr) => {{
                let (args, pdst, vdst) = ($args, $pdst, $vdst);
                let mut ps = [dummy; STAGED];
                let mut vs = [0u64; STAGED];
                for i in 0..$ar {
                    ps[i] = rp!(get!(pool, args + i));
                }
                for i in 0..$var {
                    vs[i] = rv!(get!(pool, args + $ar + i));
                }
                for i in 0..$ar {
                    *pdst.add(i) = std::ptr::read_volatile(&ps[i]);
                }
                for i in 0..$var {
                    *vdst.add(i) = std::ptr::read_volatile(&vs[i]);
                }
            }};
        }
        // Makes the window of supercombinator `sc` at `pbase`/`vbase` (a
        // call's above the caller's, a tail call's over it), its arguments
        // the registers the pool names at `args`, and goes to its entry.
        // The arguments are read before any is written (a tail call's
        // windows overlap): a few through locals, then stored with a
        // block of the dummy node and one of 0 after them (the capacity
        // is there); more through the top of the stack. Copies
        // and fills of a variable length were calls of memmove and memset,
        // 7 % of the Sudoku program's time.
        macro_rules! window {
            ($sc:expr, $args:expr, $pbase:expr, $vbase:expr, $overlap:expr) => {{
                let info = get!(l.scs, $sc as usize);
                let (ar, nr) = (info.arity as usize, info.nregs as usize);
                let (var, nvr) = (info.varity as usize, info.nvregs as usize);
                let (pbase, vbase, args) = ($pbase, $vbase, $args as usize);
                let top = t.ptrs.len();
                let vtop = t.vals.len();
                if t.ptrs.capacity() < (top + ar).max(pbase + nr.max(ar + FILL))
                    || t.vals.capacity() < (vtop + var).max(vbase + nvr.max(var + FILL))
                {
                    t.ptrs.reserve(ar + nr.max(ar + FILL));
                    t.vals.reserve(var + nvr.max(var + FILL));
                    refresh!();
                }
                // SAFETY: capacity was reserved above; everything up to
                // the new lengths is written first.
                unsafe {
                    let bp = t.ptrs.as_mut_ptr();
                    let bv = t.vals.as_mut_ptr();
                    let (pfill, vfill);
                    if !$overlap {
                        // Above the caller's window: the arguments go
                        // straight in, and a block of the dummy node and
                        // one of 0 after them.
                        for i in 0..ar {
                            *bp.add(pbase + i) = rp!(get!(pool, args + i));
                        }
                        for i in 0..var {
                            *bv.add(vbase + i) = rv!(get!(pool, args + ar + i));
                        }
                        (bp.add(pbase + ar) as *mut [Ptr; FILL]).write_unaligned([dummy; FILL]);
                        (bv.add(vbase + var) as *mut [u64; FILL]).write_unaligned([0; FILL]);
                        (pfill, vfill) = (ar + FILL, var + FILL);
                    } else if ar <= STAGED && var <= STAGED {
                        staged!(args, ar, var, bp.add(pbase), bv.add(vbase));
                        (bp.add(pbase + ar) as *mut [Ptr; FILL]).write_unaligned([dummy; FILL]);
                        (bv.add(vbase + var) as *mut [u64; FILL]).write_unaligned([0; FILL]);
                        (pfill, vfill) = (ar + FILL, var + FILL);
                    } else {
                        for i in 0..ar {
                            *bp.add(top + i) = rp!(get!(pool, args + i));
                        }
                        std::ptr::copy(bp.add(top), bp.add(pbase), ar);
                        for i in 0..var {
                            *bv.add(vtop + i) = rv!(get!(pool, args + ar + i));
                        }
                        std::ptr::copy(bv.add(vtop), bv.add(vbase), var);
                        (pfill, vfill) = (ar, var);
                    }
                    for i in pfill..nr {
                        *bp.add(pbase + i) = dummy;
                    }
                    t.ptrs.set_len(pbase + nr);
                    for i in vfill..nvr {
                        *bv.add(vbase + i) = 0;
                    }
                    t.vals.set_len(vbase + nvr);
                }
                a = Act {
                    pc: info.entry as usize,
                    pbase,
                    vbase,
                };
            }};
        }
        // A jump to `target` from the op before `next`; one backwards is
        // a loop's, counted so that it cannot starve the scheduler.
        macro_rules! jump {
            ($target:expr, $next:expr) => {{
                let target = $target as usize;
                if target < $next {
                    red += 1;
                    if red >= budget {
                        a.pc = target;
                        save!();
                        return Ok(SliceEnd::Yield);
                    }
                }
                a.pc = target;
            }};
        }
        // Goes to the target of constructor node `h`'s tag.
        macro_rules! switch {
            ($h:expr, $n:expr, $targets:expr) => {{
                let h = $h;
                if h_kind(h) != kind::CON {
                    self.slice_reductions += red;
                    return err("internal error: Switch on a value that is not a constructor");
                }
                let tag = get!(l.con_tag, h_info(h) as usize);
                if tag >= $n as u32 {
                    self.slice_reductions += red;
                    return err("internal error: Switch without a target for this tag");
                }
                a.pc = get!(l.targets, $targets as usize + tag as usize) as usize;
            }};
        }

        loop {
            let op = get!(ops, a.pc);
            a.pc += 1;
            match op {
                Op::Move { dst, src } => wp!(dst, rp!(src)),
                Op::MoveV { dst, src } => wv!(dst, rv!(src)),
                Op::Node { dst, node } => wp!(dst, Ptr(node)),
                Op::Caf { dst, caf } => wp!(dst, self.cafs[caf as usize]),
                Op::ConstV { dst, bits } => wv!(dst, bits),
                Op::IAdd { dst, a: x, b: y } => {
                    wv!(dst, (rv!(x) as i64).wrapping_add(rv!(y) as i64) as u64)
                }
                Op::ISub { dst, a: x, b: y } => {
                    wv!(dst, (rv!(x) as i64).wrapping_sub(rv!(y) as i64) as u64)
                }
                Op::IMul { dst, a: x, b: y } => {
                    wv!(dst, (rv!(x) as i64).wrapping_mul(rv!(y) as i64) as u64)
                }
                Op::AddK { dst, a: x, k, imm } => {
                    wv!(k, imm as i64 as u64);
                    wv!(dst, (rv!(x) as i64).wrapping_add(imm as i64) as u64);
                    a.pc += 1;
                }
                Op::SubK { dst, a: x, k, imm } => {
                    wv!(k, imm as i64 as u64);
                    wv!(dst, (rv!(x) as i64).wrapping_sub(imm as i64) as u64);
                    a.pc += 1;
                }
                Op::BrILtK {
                    a: x,
                    k,
                    imm,
                    target,
                } => {
                    wv!(k, imm as i64 as u64);
                    a.pc = if (rv!(x) as i64) < imm as i64 {
                        target as usize
                    } else {
                        a.pc + 1
                    };
                }
                Op::BrILeK {
                    a: x,
                    k,
                    imm,
                    target,
                } => {
                    wv!(k, imm as i64 as u64);
                    a.pc = if (rv!(x) as i64) <= imm as i64 {
                        target as usize
                    } else {
                        a.pc + 1
                    };
                }
                Op::BrIGtK {
                    a: x,
                    k,
                    imm,
                    target,
                } => {
                    wv!(k, imm as i64 as u64);
                    a.pc = if (rv!(x) as i64) > imm as i64 {
                        target as usize
                    } else {
                        a.pc + 1
                    };
                }
                Op::BrIGeK {
                    a: x,
                    k,
                    imm,
                    target,
                } => {
                    wv!(k, imm as i64 as u64);
                    a.pc = if (rv!(x) as i64) >= imm as i64 {
                        target as usize
                    } else {
                        a.pc + 1
                    };
                }
                Op::BrIEqK {
                    a: x,
                    k,
                    imm,
                    target,
                } => {
                    wv!(k, imm as i64 as u64);
                    a.pc = if (rv!(x) as i64) == imm as i64 {
                        target as usize
                    } else {
                        a.pc + 1
                    };
                }
                Op::BrINeK {
                    a: x,
                    k,
                    imm,
                    target,
                } => {
                    wv!(k, imm as i64 as u64);
                    a.pc = if (rv!(x) as i64) != imm as i64 {
                        target as usize
                    } else {
                        a.pc + 1
                    };
                }
                Op::BrILt { a: x, b: y, target } => {
                    if (rv!(x) as i64) < (rv!(y) as i64) {
                        a.pc = target as usize;
                    }
                }
                Op::BrILe { a: x, b: y, target } => {
                    if (rv!(x) as i64) <= (rv!(y) as i64) {
                        a.pc = target as usize;
                    }
                }
                Op::BrIGt { a: x, b: y, target } => {
                    if (rv!(x) as i64) > (rv!(y) as i64) {
                        a.pc = target as usize;
                    }
                }
                Op::BrIGe { a: x, b: y, target } => {
                    if (rv!(x) as i64) >= (rv!(y) as i64) {
                        a.pc = target as usize;
                    }
                }
                Op::BrIEq { a: x, b: y, target } => {
                    if rv!(x) == rv!(y) {
                        a.pc = target as usize;
                    }
                }
                Op::BrINe { a: x, b: y, target } => {
                    if rv!(x) != rv!(y) {
                        a.pc = target as usize;
                    }
                }
                Op::Br {
                    cmp: c,
                    a: x,
                    b: y,
                    target,
                } => {
                    if c.holds(rv!(x), rv!(y)) {
                        a.pc = target as usize;
                    }
                }
                Op::BrEqConst { a: x, target, bits } => {
                    if rv!(x) == bits {
                        a.pc = target as usize;
                    }
                }
                Op::MoveJump { dst, src, target } => {
                    wp!(dst, rp!(src));
                    // As the `Jump` after it, at a.pc.
                    jump!(target, a.pc + 1);
                }
                Op::Jump { target } => jump!(target, a.pc),
                Op::OpV {
                    op,
                    dst,
                    a: x,
                    b: y,
                } => {
                    let r = finish!(vop(op, rv!(x), rv!(y)));
                    wv!(dst, r);
                }
                Op::UnOpV { op, dst, a: x } => {
                    let r = finish!(unop(op, rv!(x)));
                    wv!(dst, r);
                }
                Op::CmpBool {
                    cmp: c,
                    dst,
                    a: x,
                    b: y,
                } => {
                    let b = if c.holds(rv!(x), rv!(y)) {
                        l.true_node
                    } else {
                        l.false_node
                    };
                    wp!(dst, b);
                }
                Op::Integer { dst, idx } => {
                    let n = &l.prog.integers[idx as usize];
                    let p = finish!(self.alloc_integer(t, n));
                    wp!(dst, p);
                }
                Op::Str { dst, idx } => {
                    if l.prog.strings[idx as usize].is_empty() {
                        wp!(dst, l.nil_node);
                    } else {
                        let p = alloc!(2);
                        self.heap.mem[p] = header(kind::STR, 1, idx);
                        self.heap.mem[p + 1] = 0;
                        wp!(dst, Ptr(p as u32));
                    }
                }
                Op::BoxInt { dst, src } => {
                    let i = rv!(src) as i64;
                    let p = match l.int_box(i) {
                        Some(p) => p,
                        None => {
                            let p = alloc!(2);
                            set!(self.heap.mem, p, header(kind::INT, 1, 0));
                            set!(self.heap.mem, p + 1, i as u64);
                            Ptr(p as u32)
                        }
                    };
                    wp!(dst, p);
                }
                Op::BoxChar { dst, src } => {
                    let c = rv!(src);
                    let p = match l.char_box(c as u32) {
                        Some(p) => p,
                        None => {
                            let p = alloc!(2);
                            set!(self.heap.mem, p, header(kind::CHAR, 1, 0));
                            set!(self.heap.mem, p + 1, c);
                            Ptr(p as u32)
                        }
                    };
                    wp!(dst, p);
                }
                Op::BoxDouble { dst, src } => {
                    let d = rv!(src);
                    let p = alloc!(2);
                    set!(self.heap.mem, p, header(kind::DOUBLE, 1, 0));
                    set!(self.heap.mem, p + 1, d);
                    wp!(dst, Ptr(p as u32));
                }
                Op::Unbox { dst, src } => {
                    let p = self.heap.deref(rp!(src));
                    wv!(dst, mem!(p.0 as usize + 1));
                }
                Op::MkCon { dst, n, con, args } => {
                    let p = node!(kind::CON, n, con, args);
                    wp!(dst, p);
                }
                Op::MkThunk { dst, n, sc, args } => {
                    let size = (n as usize).max(1);
                    let p = alloc!(1 + size);
                    set!(self.heap.mem, p, header(kind::THUNK, size as u32, sc));
                    set!(self.heap.mem, p + 1, dummy.0 as u64);
                    for i in 0..n as usize {
                        let x = rp!(get!(pool, args as usize + i));
                        set!(self.heap.mem, p + 1 + i, x.0 as u64);
                    }
                    wp!(dst, Ptr(p as u32));
                }
                Op::MkPap { dst, n, sc, args } => {
                    let p = node!(kind::PAP, n, sc, args);
                    wp!(dst, p);
                }
                Op::Fill { node, field, src } => {
                    let p = rp!(node).0 as usize;
                    let h = self.heap.mem[p];
                    if !matches!(h_kind(h), kind::CON | kind::THUNK | kind::PAP)
                        || field as usize >= crate::machine::heap::h_size(h)
                    {
                        self.slice_reductions += red;
                        return err("internal error: Fill of a field that is not there");
                    }
                    self.heap.mem[p + 1 + field as usize] = rp!(src).0 as u64;
                }
                Op::Eval { reg } => {
                    let mut p = rp!(reg);
                    let mut h = mem!(p.0);
                    if h_kind(h) == kind::IND {
                        p = self.heap.deref(p);
                        h = mem!(p.0);
                        wp!(reg, p);
                    }
                    if !is_value_kind(h_kind(h)) {
                        eval_slow!(reg);
                    }
                }
                Op::EvalSwitch { reg, n, targets } => {
                    let p = self.heap.deref(rp!(reg));
                    let h = mem!(p.0);
                    wp!(reg, p);
                    if is_value_kind(h_kind(h)) {
                        switch!(h, n, targets);
                    } else {
                        // As `Eval`: the `Switch` at the next pc runs when
                        // the thunk's value returns.
                        eval_slow!(reg);
                    }
                }
                Op::EvalUnbox { dst, src } => {
                    let p = self.heap.deref(rp!(src));
                    wp!(src, p);
                    if is_value_kind(h_kind(mem!(p.0))) {
                        wv!(dst, mem!(p.0 as usize + 1));
                        a.pc += 1;
                    } else {
                        eval_slow!(src);
                    }
                }
                Op::Enter { reg } => {
                    let p = self.heap.deref(rp!(reg));
                    if is_value_kind(h_kind(mem!(p.0))) {
                        ret!(p);
                    } else {
                        wp!(reg, p);
                        let h = mem!(p.0);
                        if h_kind(h) == kind::THUNK {
                            enter_thunk!(reg, p, h, true);
                        }
                        let (r, na) = finish!(self.eval_slow(t, a, reg));
                        a = na;
                        match r {
                            Evaled::Value(v) => ret!(v),
                            Evaled::Blocked => {
                                save!();
                                return Ok(SliceEnd::Blocked);
                            }
                        }
                    }
                }
                Op::Switch { reg, n, targets } => {
                    let p = self.heap.deref(rp!(reg));
                    let h = mem!(p.0);
                    switch!(h, n, targets);
                }
                Op::Fields { reg, dst, n } => {
                    let p = self.heap.deref(rp!(reg)).0 as usize;
                    if crate::machine::heap::h_size(self.heap.mem[p]) < n as usize {
                        self.slice_reductions += red;
                        return err("internal error: Fields of a smaller node");
                    }
                    for i in 0..n as usize {
                        let f = mem!(p + 1 + i);
                        wp!(dst as usize + i, Ptr(f as u32));
                    }
                }
                Op::Field2 {
                    reg,
                    dst,
                    field,
                    dst2,
                    field2,
                } => {
                    let p = self.heap.deref(rp!(reg)).0 as usize;
                    if crate::machine::heap::h_size(self.heap.mem[p]) <= field.max(field2) as usize
                    {
                        self.slice_reductions += red;
                        return err("internal error: Field of a smaller node");
                    }
                    let f = mem!(p + 1 + field as usize);
                    let f2 = mem!(p + 1 + field2 as usize);
                    wp!(dst, Ptr(f as u32));
                    wp!(dst2, Ptr(f2 as u32));
                    a.pc += 1;
                }
                Op::Field { dst, reg, field } => {
                    let p = self.heap.deref(rp!(reg)).0 as usize;
                    if crate::machine::heap::h_size(self.heap.mem[p]) <= field as usize {
                        self.slice_reductions += red;
                        return err("internal error: Field of a smaller node");
                    }
                    let f = mem!(p + 1 + field as usize);
                    wp!(dst, Ptr(f as u32));
                }
                Op::Prim {
                    prim: Prim::CatchIO,
                    dst,
                    args,
                    ..
                } => {
                    // A return frame to here, then the handler's frame
                    // (handler and world saved), then the action.
                    let m = self.heap.deref(rp!(get!(pool, args as usize)));
                    let h = rp!(get!(pool, args as usize + 1));
                    let w = rp!(get!(pool, args as usize + 2));
                    t.frames.push(a.ret_frame(dst));
                    let slot = t.ptrs.len();
                    let vslot = t.vals.len();
                    t.ptrs.push(h);
                    t.ptrs.push(w);
                    t.frames.push(Frame {
                        kind: fk::CATCH,
                        dst: 0,
                        pc: 0,
                        pbase: slot as u32,
                        vbase: vslot as u32,
                    });
                    self.tmp.clear();
                    self.tmp.push(m);
                    self.tmp.push(w);
                    let (r, na) = finish!(self.apply(t, a, Mode::Frame(slot + 2, vslot)));
                    a = na;
                    refresh!();
                    match r {
                        Applied::Entered => entered!(),
                        Applied::Value(p) => {
                            a.pbase = slot + 2;
                            a.vbase = vslot;
                            ret!(p)
                        }
                    }
                }
                Op::Prim { prim, dst, n, args } => {
                    let regs = &pool[args as usize..args as usize + n as usize];
                    self.slice_pending = red;
                    match crate::machine::prims::prim(self, t, a.pbase, prim, dst, regs) {
                        Ok(()) => {
                            refresh!();
                            // An MVar operation that must wait, yield or
                            // threadDelay (machine::concurrency); the
                            // scheduler takes `suspend`.
                            if let Some(s) = self.suspend {
                                if s == Suspend::Block {
                                    a.pc -= 1; // retried when woken
                                }
                                save!();
                                return Ok(s.slice_end());
                            }
                        }
                        Err(e) => {
                            self.slice_reductions += red;
                            return Err(e);
                        }
                    }
                }
                Op::Call { dst, sc, args } | Op::CallV { dst, sc, args } => {
                    let kind = if matches!(op, Op::Call { .. }) {
                        fk::RET
                    } else {
                        fk::RETV
                    };
                    t.frames.push(Frame {
                        kind,
                        dst,
                        pc: a.pc as u32,
                        pbase: a.pbase as u32,
                        vbase: a.vbase as u32,
                    });
                    let (np, nv) = (t.ptrs.len(), t.vals.len());
                    window!(sc, args, np, nv, false);
                    refresh!();
                    entered!();
                }
                Op::TailCall { sc, args } => {
                    window!(sc, args, a.pbase, a.vbase, true);
                    refresh!();
                    entered!();
                }
                Op::Loop { sc, args } => {
                    let info = get!(l.scs, sc as usize);
                    let (ar, nr, var) = (
                        info.arity as usize,
                        info.nregs as usize,
                        info.varity as usize,
                    );
                    if ar <= STAGED && var <= STAGED {
                        // The window is the one the function has: only its
                        // arguments are written (through locals, as they
                        // may be registers the others are written to), and
                        // its other pointer registers are cleared so that
                        // a loop holds nothing a pass of it left behind.
                        // SAFETY: the window has the function's registers.
                        unsafe { staged!(args as usize, ar, var, pp, vp) };
                        for i in ar..nr {
                            wp!(i, dummy);
                        }
                        a.pc = info.entry as usize;
                    } else {
                        window!(sc, args, a.pbase, a.vbase, true);
                        refresh!();
                    }
                    entered!();
                }
                Op::Apply { f, dst, n, args } => {
                    self.tmp.clear();
                    self.tmp.push(self.heap.deref(rp!(f)));
                    for i in 0..n as usize {
                        let x = rp!(get!(pool, args as usize + i));
                        self.tmp.push(x);
                    }
                    let (r, na) = finish!(self.apply(t, a, Mode::Call(dst)));
                    a = na;
                    refresh!();
                    match r {
                        Applied::Entered => entered!(),
                        Applied::Value(p) => wp!(dst, p),
                    }
                }
                Op::TailApply { f, n, args } => {
                    self.tmp.clear();
                    self.tmp.push(self.heap.deref(rp!(f)));
                    for i in 0..n as usize {
                        let x = rp!(get!(pool, args as usize + i));
                        self.tmp.push(x);
                    }
                    let (r, na) = finish!(self.apply(t, a, Mode::Tail));
                    a = na;
                    refresh!();
                    match r {
                        Applied::Entered => entered!(),
                        Applied::Value(p) => ret!(p),
                    }
                }
                Op::Ret { reg } => {
                    let v = rp!(reg);
                    ret!(v);
                }
                Op::MkConRet { dst, n, con, args } => {
                    let p = node!(kind::CON, n, con, args);
                    wp!(dst, p);
                    ret!(p);
                }
                Op::RetV { reg } => {
                    let v = rv!(reg);
                    let f = match t.frames.pop() {
                        Some(f) if f.kind == fk::RETV => f,
                        _ => {
                            self.slice_reductions += red;
                            return err(
                                "internal error: an unboxed value returned to a boxed continuation",
                            );
                        }
                    };
                    t.ptrs.truncate(a.pbase);
                    t.vals.truncate(a.vbase);
                    a = Act {
                        pc: f.pc as usize,
                        pbase: f.pbase as usize,
                        vbase: f.vbase as usize,
                    };
                    refresh!();
                    wv!(f.dst, v);
                }
                Op::Par { reg } => {
                    let p = rp!(reg);
                    self.spark(p);
                }
                Op::Halt { reg } => {
                    t.result = rp!(reg);
                    t.state = State::Finished;
                    save!();
                    return Ok(SliceEnd::Finished);
                }
                Op::FellOff { sc } => {
                    self.slice_reductions += red;
                    return err(format!(
                        "internal error: control ran past the end of {}",
                        l.prog.scs[sc as usize].name
                    ));
                }
            }
        }
    }

    /// Evaluates the non-value in register `reg` that is not a thunk (the
    /// reducer enters thunks itself, `enter_thunk!`): unpacks a string or
    /// stdin node, or blocks on a black hole.
    fn eval_slow(&mut self, t: &mut Thread, mut a: Act, reg: u16) -> Result<(Evaled, Act), Stop> {
        let p = self.heap.deref(t.ptrs[a.pbase + reg as usize]);
        let h = self.heap.mem[p.0 as usize];
        match h_kind(h) {
            kind::BLACKHOLE | kind::FETCHME | kind::RBH | kind::INPORT => {
                let k = h_kind(h);
                if k == kind::BLACKHOLE && h_info(h) == t.id {
                    return err("<<loop>>");
                }
                if k == kind::FETCHME && !self.heap.waiters(p) {
                    self.fetch(p);
                }
                self.heap.set_waiters(p);
                t.blocked_on = p;
                t.state = State::Blocked;
                a.pc -= 1; // retry the Eval / Enter when woken
                Ok((Evaled::Blocked, a))
            }
            kind::RAISE => err(self.raised[h_info(h) as usize].clone()),
            kind::STR => {
                let v = self.unpack_str(t, a.pbase + reg as usize)?;
                Ok((Evaled::Value(v), a))
            }
            kind::STDIN => {
                let v = self.unpack_stdin(t, a.pbase + reg as usize)?;
                Ok((Evaled::Value(v), a))
            }
            k => err(format!("internal error: evaluating a node of kind {k}")),
        }
    }

    /// Unpacks the next characters of the string node in `ptrs[slot]`
    /// (up to a chunk at a time) and updates it with the list.
    fn unpack_str(&mut self, t: &mut Thread, slot: usize) -> Result<Ptr, Stop> {
        const CHUNK: usize = 32;
        let p = self.heap.deref(t.ptrs[slot]);
        let h = self.heap.hdr(p);
        let idx = h_info(h) as usize;
        let off = self.heap.word(p, 0) as usize;
        let s = &self.l.prog.strings[idx];
        let rest = &s[off..];
        let mut end = 0;
        let mut words = 0;
        for (n, (i, c)) in rest.char_indices().enumerate() {
            if n == CHUNK {
                break;
            }
            end = i + c.len_utf8();
            words += 3 + self.char_words(c as u32);
        }
        let more = off + end < s.len();
        self.ensure(t, words + if more { 2 } else { 0 })?;
        let p = self.heap.deref(t.ptrs[slot]);
        let tail = if more {
            let q = self.bump(2);
            self.heap.mem[q.0 as usize] = header(kind::STR, 1, idx as u32);
            self.heap.mem[q.0 as usize + 1] = (off + end) as u64;
            q
        } else {
            self.l.nil_node
        };
        let list = self.build_string(&s[off..off + end], tail);
        self.heap.mem[p.0 as usize] = header(kind::IND, 1, 0);
        self.heap.mem[p.0 as usize + 1] = list.0 as u64;
        t.ptrs[slot] = list;
        Ok(list)
    }

    /// Reads the next piece of a handle for the lazy hGetContents list.
    fn unpack_stdin(&mut self, t: &mut Thread, slot: usize) -> Result<Ptr, Stop> {
        let p = self.heap.deref(t.ptrs[slot]);
        let h = self.heap.word(p, 0) as i64;
        let chunk = self.io.read_chunk(h).map_err(Stop::Error)?;
        let words = match &chunk {
            Some(s) => self.string_words(s) + 2,
            None => 0,
        };
        self.ensure(t, words)?;
        let p = self.heap.deref(t.ptrs[slot]);
        let list = match chunk {
            Some(s) => {
                let q = self.bump(2);
                self.heap.mem[q.0 as usize] = header(kind::STDIN, 1, 0);
                self.heap.mem[q.0 as usize + 1] = h as u64;
                self.build_string(&s, q)
            }
            None => self.l.nil_node,
        };
        self.heap.mem[p.0 as usize] = header(kind::IND, 1, 0);
        self.heap.mem[p.0 as usize + 1] = list.0 as u64;
        t.ptrs[slot] = list;
        Ok(list)
    }

    /// Applies `tmp[0]` (an evaluated FUN or PAP) to `tmp[1..]`.
    fn apply(&mut self, t: &mut Thread, a: Act, mode: Mode) -> Result<(Applied, Act), Stop> {
        let f = self.heap.deref(self.tmp[0]);
        let h = self.heap.hdr(f);
        let sc = h_info(h);
        match h_kind(h) {
            kind::FUN => {}
            kind::PAP => {
                // The partial application's arguments go before the new
                // ones, in place (a vector collected and spliced in was a
                // malloc and a free a call: 4 % of sumEuler's time when its
                // loop applied `relprime n`).
                let n = crate::machine::heap::h_size(h);
                let given = self.tmp.len();
                self.tmp.resize(given + n, f);
                self.tmp.copy_within(1..given, 1 + n);
                for i in 0..n {
                    self.tmp[1 + i] = self.heap.field(f, i);
                }
            }
            _ => return err("internal error: applying a value that is not a function"),
        }
        let info = self.l.scs[sc as usize];
        let arity = info.arity as usize;
        let total = self.tmp.len() - 1;
        if total < arity {
            let p = self.alloc(t, 1 + total.max(1))?;
            let i = p.0 as usize;
            self.heap.mem[i] = header(kind::PAP, total as u32, sc);
            self.heap.mem[i + 1] = 0;
            for k in 0..total {
                self.heap.mem[i + 1 + k] = self.tmp[1 + k].0 as u64;
            }
            self.tmp.clear();
            return Ok((Applied::Value(p), a));
        }
        let (mut base, vb) = match mode {
            Mode::Call(dst) => {
                t.frames.push(a.ret_frame(dst));
                (t.ptrs.len(), t.vals.len())
            }
            Mode::Tail => (a.pbase, a.vbase),
            Mode::Frame(p, v) => (p, v),
        };
        t.ptrs.truncate(base);
        t.vals.truncate(vb);
        if total > arity {
            let extra = total - arity;
            t.ptrs.extend_from_slice(&self.tmp[1 + arity..]);
            t.frames.push(Frame {
                kind: fk::APPLY,
                dst: extra as u16,
                pc: 0,
                pbase: base as u32,
                vbase: vb as u32,
            });
            base += extra;
        }
        t.ptrs.extend_from_slice(&self.tmp[1..1 + arity]);
        t.ptrs.resize(base + info.nregs as usize, self.l.dummy);
        t.vals.resize(vb + info.nvregs as usize, 0);
        self.tmp.clear();
        let a = Act {
            pc: info.entry as usize,
            pbase: base,
            vbase: vb,
        };
        Ok((Applied::Entered, a))
    }
}
