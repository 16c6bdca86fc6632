//! A processing element: heap, threads, run queue, spark pool, CAF table
//! and the outside world, and the scheduler loop that runs threads in time
//! slices. All PE state is in [`Pe`] (no globals), so that several PEs can
//! later run side by side, each checking its message inbox between slices.

use crate::heap::{h_info, h_kind, header, is_value_kind, kind, Heap, Ptr};
use crate::io::Io;
use crate::load::Loaded;
use crate::thread::{State, Thread};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// A run-time error (the message, without "gph: ").
    Error(String),
    /// exitWith.
    Exit(i32),
}

pub fn err<T>(msg: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Error(msg.into()))
}

/// How a time slice ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceEnd {
    Yield,
    Blocked,
    Finished,
}

/// Knobs of the scheduler (not user options; tests set them).
#[derive(Clone, Debug)]
pub struct Tuning {
    /// Reductions per time slice.
    pub slice: u64,
    /// Sparks waiting at the end of a slice are turned into threads while
    /// fewer than this many threads are alive (0: only when the PE is
    /// idle, as in GUM).
    pub eager_threads: usize,
    /// The capacity of the spark pool (further sparks are dropped).
    pub spark_pool: usize,
    /// The first semispace, in words.
    pub initial_heap_words: usize,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            slice: 20_000,
            eager_threads: 0,
            spark_pool: 4096,
            initial_heap_words: 1 << 19,
        }
    }
}

#[derive(Default, Clone, Debug)]
pub struct Counters {
    pub reductions: u64,
    pub sparks_created: u64,
    pub sparks_fizzled: u64,
    pub sparks_converted: u64,
    pub sparks_overflowed: u64,
    pub threads: u64,
    /// Times a thread blocked on a black hole.
    pub blocked: u64,
    pub max_stack_words: u64,
}

pub struct Pe<'p, 'io> {
    pub l: &'p Loaded<'p>,
    pub heap: Heap,
    /// Threads by id; a free slot holds `Thread::empty()`.
    pub threads: Vec<Thread>,
    free_ids: Vec<u32>,
    pub run_queue: VecDeque<u32>,
    pub blocked: Vec<u32>,
    pub sparks: VecDeque<Ptr>,
    pub cafs: Vec<Ptr>,
    pub io: Io<'io>,
    pub counters: Counters,
    pub tuning: Tuning,
    interrupt: Option<Arc<AtomicBool>>,
    heap_limit_bytes: usize,
    /// Scratch pointers (a GC root): arguments being gathered for an
    /// application.
    pub tmp: Vec<Ptr>,
    live_threads: usize,
}

impl<'p, 'io> Pe<'p, 'io> {
    pub fn new(
        l: &'p Loaded<'p>,
        io: Io<'io>,
        heap_limit_bytes: usize,
        gc_stress: bool,
        interrupt: Option<Arc<AtomicBool>>,
        tuning: Tuning,
    ) -> Pe<'p, 'io> {
        let limit_words = (heap_limit_bytes / 8).max(l.statics.len() + 4096);
        let initial = tuning
            .initial_heap_words
            .min(limit_words)
            .max(l.statics.len() + 1024);
        let mut heap = Heap::new(l.statics.clone(), initial, limit_words);
        if gc_stress {
            heap.stress = Some(24);
            heap.alloc_end = (heap.hp + 24).min(heap.mem.len());
        }
        Pe {
            l,
            heap,
            threads: Vec::new(),
            free_ids: Vec::new(),
            run_queue: VecDeque::new(),
            blocked: Vec::new(),
            sparks: VecDeque::new(),
            cafs: Vec::new(),
            io,
            counters: Counters::default(),
            tuning,
            interrupt,
            heap_limit_bytes,
            tmp: Vec::with_capacity(64),
            live_threads: 0,
        }
    }

    // ------------------------------------------------------------ allocation

    /// Makes sure `words` can be bump-allocated without a collection.
    #[inline(always)]
    pub fn ensure(&mut self, t: &mut Thread, words: usize) -> Result<(), Stop> {
        if self.heap.hp + words <= self.heap.alloc_end {
            Ok(())
        } else {
            self.gc(t, words)
        }
    }

    #[inline(always)]
    pub fn alloc(&mut self, t: &mut Thread, words: usize) -> Result<Ptr, Stop> {
        match self.heap.try_alloc(words) {
            Some(p) => Ok(p),
            None => {
                self.gc(t, words)?;
                Ok(self.heap.try_alloc(words).expect("space after GC"))
            }
        }
    }

    /// Bump allocation after `ensure`.
    #[inline(always)]
    pub fn bump(&mut self, words: usize) -> Ptr {
        self.heap.try_alloc(words).expect("ensured space")
    }

    /// A collection. Roots: the running thread `t`, every other thread,
    /// the CAF table, the spark pool (weakly: sparks that are values are
    /// dropped) and the scratch arguments.
    #[cold]
    pub fn gc(&mut self, t: &mut Thread, need: usize) -> Result<(), Stop> {
        let l = self.l;
        clear_dead(l, t);
        for th in self.threads.iter_mut() {
            clear_dead(l, th);
        }
        let h = &mut self.heap;
        h.begin();
        t.roots_mut(|p| *p = h.evacuate(*p));
        for th in self.threads.iter_mut() {
            th.roots_mut(|p| *p = h.evacuate(*p));
        }
        for c in self.cafs.iter_mut() {
            *c = h.evacuate(*c);
        }
        for p in self.tmp.iter_mut() {
            *p = h.evacuate(*p);
        }
        let before = self.sparks.len();
        self.sparks.retain(|s| !h.gc_is_value(*s));
        self.counters.sparks_fizzled += (before - self.sparks.len()) as u64;
        for s in self.sparks.iter_mut() {
            *s = h.evacuate(*s);
        }
        h.scan();
        h.finish(need).map_err(|_| {
            Stop::Error(format!(
                "heap exhausted (the heap limit is {} MB; use --heap-limit to raise it)",
                self.heap_limit_bytes.div_ceil(1 << 20)
            ))
        })
    }

    // ------------------------------------------------------------ builders

    pub fn int_words(&self, i: i64) -> usize {
        if self.l.int_box(i).is_some() {
            0
        } else {
            2
        }
    }

    /// An Int box (space ensured).
    pub fn build_int(&mut self, i: i64) -> Ptr {
        if let Some(p) = self.l.int_box(i) {
            return p;
        }
        let p = self.bump(2);
        self.heap.mem[p.0 as usize] = header(kind::INT, 1, 0);
        self.heap.mem[p.0 as usize + 1] = i as u64;
        p
    }

    pub fn char_words(&self, c: u32) -> usize {
        if self.l.char_box(c).is_some() {
            0
        } else {
            2
        }
    }

    pub fn build_char(&mut self, c: u32) -> Ptr {
        if let Some(p) = self.l.char_box(c) {
            return p;
        }
        let p = self.bump(2);
        self.heap.mem[p.0 as usize] = header(kind::CHAR, 1, 0);
        self.heap.mem[p.0 as usize + 1] = c as u64;
        p
    }

    pub fn build_raw(&mut self, k: u8, w: u64) -> Ptr {
        let p = self.bump(2);
        self.heap.mem[p.0 as usize] = header(k, 1, 0);
        self.heap.mem[p.0 as usize + 1] = w;
        p
    }

    pub fn build_con(&mut self, con: u32, fields: &[Ptr]) -> Ptr {
        let n = fields.len();
        let p = self.bump(1 + n.max(1));
        let i = p.0 as usize;
        self.heap.mem[i] = header(kind::CON, n as u32, con);
        self.heap.mem[i + 1] = 0;
        for (k, f) in fields.iter().enumerate() {
            self.heap.mem[i + 1 + k] = f.0 as u64;
        }
        p
    }

    /// Words for a fully built `[Char]` of `s` ending in a tail.
    pub fn string_words(&self, s: &str) -> usize {
        s.chars().map(|c| 3 + self.char_words(c as u32)).sum()
    }

    /// A fully built `[Char]` of `s` followed by `tail` (space ensured).
    pub fn build_string(&mut self, s: &str, tail: Ptr) -> Ptr {
        let cs: Vec<char> = s.chars().collect();
        let mut list = tail;
        for &c in cs.iter().rev() {
            let ch = self.build_char(c as u32);
            list = self.build_con(crate::code::CONS.0, &[ch, list]);
        }
        list
    }

    // ------------------------------------------------------------ reading

    /// The characters of a fully evaluated `[Char]`.
    pub fn read_string(&self, p: Ptr) -> Result<String, Stop> {
        let mut s = String::new();
        let mut p = self.heap.deref(p);
        loop {
            let h = self.heap.hdr(p);
            if h_kind(h) != kind::CON {
                return err("internal error: a primitive was given an unevaluated string");
            }
            if h_info(h) == crate::code::NIL.0 {
                return Ok(s);
            }
            let c = self.heap.deref(self.heap.field(p, 0));
            if self.heap.kind(c) != kind::CHAR {
                return err("internal error: a primitive was given an unevaluated character");
            }
            s.push(char::from_u32(self.heap.word(c, 0) as u32).unwrap_or('\u{FFFD}'));
            p = self.heap.deref(self.heap.field(p, 1));
        }
    }

    // ------------------------------------------------------------ threads

    pub fn spawn(&mut self, entry: u32, regs: &[Ptr]) -> u32 {
        let id = match self.free_ids.pop() {
            Some(id) => id,
            None => {
                self.threads.push(Thread::empty());
                (self.threads.len() - 1) as u32
            }
        };
        self.threads[id as usize] = Thread::new(id, entry, regs, self.l.dummy);
        self.run_queue.push_back(id);
        self.counters.threads += 1;
        self.live_threads += 1;
        id
    }

    /// Records a spark for `p` unless it is a value (or under evaluation).
    pub fn spark(&mut self, p: Ptr) {
        let p = self.heap.deref(p);
        let k = self.heap.kind(p);
        if is_value_kind(k) || k == kind::BLACKHOLE {
            return;
        }
        if self.sparks.len() >= self.tuning.spark_pool {
            self.counters.sparks_overflowed += 1;
            return;
        }
        self.counters.sparks_created += 1;
        self.sparks.push_back(p);
    }

    /// Turns the oldest spark that is still a thunk into a thread.
    fn convert_spark(&mut self) -> bool {
        while let Some(s) = self.sparks.pop_front() {
            let s = self.heap.deref(s);
            let k = self.heap.kind(s);
            if is_value_kind(k) || k == kind::BLACKHOLE {
                self.counters.sparks_fizzled += 1;
                continue;
            }
            self.counters.sparks_converted += 1;
            self.spawn(self.l.spark_entry, &[s]);
            return true;
        }
        false
    }

    /// The black hole `bh` was updated: its blocked threads run again.
    pub fn wake(&mut self, bh: Ptr) {
        let mut i = 0;
        while i < self.blocked.len() {
            let id = self.blocked[i];
            let th = &mut self.threads[id as usize];
            if th.blocked_on == bh {
                th.state = State::Runnable;
                th.blocked_on = self.l.dummy;
                self.blocked.swap_remove(i);
                self.run_queue.push_back(id);
            } else {
                i += 1;
            }
        }
    }

    /// Overwrites the black hole `th` with its value `v` (small raw values
    /// are copied, others become an indirection) and wakes its waiters.
    #[inline]
    pub fn update(&mut self, th: Ptr, v: Ptr) {
        let i = th.0 as usize;
        let mem = &mut self.heap.mem;
        let waiters = h_kind(mem[i]) == kind::BLACKHOLE && mem[i + 1] != 0;
        let vh = mem[v.0 as usize];
        match h_kind(vh) {
            kind::INT | kind::DOUBLE | kind::CHAR | kind::SMALLINT => {
                mem[i] = vh;
                mem[i + 1] = mem[v.0 as usize + 1];
            }
            _ => {
                mem[i] = header(kind::IND, 1, 0);
                mem[i + 1] = v.0 as u64;
            }
        }
        if waiters {
            self.wake(th);
        }
    }

    // ------------------------------------------------------------ scheduler

    /// Allocates the CAF nodes (thunks without free variables).
    pub fn init_cafs(&mut self) -> Result<(), Stop> {
        let mut t = Thread::empty();
        let n = self.l.caf_sc.len();
        self.ensure(&mut t, 2 * n)?;
        for k in 0..n {
            let p = self.bump(2);
            self.heap.mem[p.0 as usize] = header(kind::THUNK, 1, self.l.caf_sc[k]);
            self.heap.mem[p.0 as usize + 1] = self.l.dummy.0 as u64;
            self.cafs.push(p);
        }
        Ok(())
    }

    /// Runs until the thread `main` finishes; its result value.
    pub fn run(&mut self, main: u32) -> Result<Ptr, Stop> {
        loop {
            if let Some(i) = &self.interrupt {
                if i.load(Ordering::Relaxed) {
                    return err("interrupted");
                }
            }
            // (the parallel machine checks its inbox here)
            let id = match self.run_queue.pop_front() {
                Some(id) => id,
                None => {
                    if self.convert_spark() {
                        continue;
                    }
                    // Every thread waits for a black hole that only a
                    // waiting thread can update: a cycle of evaluations,
                    // which a sequential run reports as <<loop>>.
                    return err("<<loop>>");
                }
            };
            let mut t = std::mem::replace(&mut self.threads[id as usize], Thread::empty());
            let budget = self.tuning.slice;
            let r = self.run_slice(&mut t, budget);
            let stack = (t.ptrs.len() + t.vals.len() * 2 + t.frames.len() * 4) as u64;
            self.counters.max_stack_words = self.counters.max_stack_words.max(stack);
            let end = match r {
                Ok(e) => e,
                Err(e) => {
                    self.threads[id as usize] = t;
                    return Err(e);
                }
            };
            if stack as usize * 4 > self.heap_limit_bytes.max(1 << 30) {
                return err("stack overflow");
            }
            match end {
                SliceEnd::Yield => {
                    self.run_queue.push_back(id);
                    self.threads[id as usize] = t;
                }
                SliceEnd::Blocked => {
                    self.blocked.push(id);
                    self.threads[id as usize] = t;
                }
                SliceEnd::Finished => {
                    self.live_threads -= 1;
                    if id == main {
                        let r = t.result;
                        self.threads[id as usize] = t;
                        return Ok(r);
                    }
                    self.free_ids.push(id);
                }
            }
            while self.live_threads < self.tuning.eager_threads && self.convert_spark() {}
        }
    }
}

/// Clears the dead registers of every suspended activation of `t` (see
/// `load::compute_liveness`), so that they keep nothing alive.
fn clear_dead(l: &Loaded, t: &mut Thread) {
    for f in &t.frames {
        if f.kind != crate::thread::fk::RET && f.kind != crate::thread::fk::RETV {
            continue;
        }
        let d = l.dead_at[f.pc as usize];
        if d == u32::MAX {
            continue;
        }
        let n = l.dead_regs[d as usize] as usize;
        for &r in &l.dead_regs[d as usize + 1..d as usize + 1 + n] {
            t.ptrs[f.pbase as usize + r as usize] = l.dummy;
        }
    }
}
