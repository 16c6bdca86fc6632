//! A processing element: heap, threads, run queue, spark pool, CAF table
//! and the outside world. All PE state is in [`Pe`] (no globals), so that
//! PEs can run side by side. The scheduler is in `scheduler`, the spark
//! pool in `sparks`, what a PE does among others in `parallel`.
//!
//! What an engine may do with a PE (engine/mod.rs): `step` it, hand it an
//! [`Envelope`] (`receive`), take what it sent (`take_packets`, through
//! its send buffers; tests take the bare messages with `take_outbox`), and
//! ask whether it has work (`has_work`, `quiescent`), messages to handle
//! (`has_mail`), threads waiting (`has_blocked_threads`) or was told to
//! finish (`finished`). The fields are the machine's own.

use crate::machine::heap::{h_info, h_kind, header, kind, Heap, HeapBudget, Ptr};
use crate::machine::io::Io;
use crate::machine::load::Loaded;
use crate::machine::thread::Thread;
use crate::obs::event::Event;
use crate::obs::stats::PeStats;
use crate::obs::{Obs, Recorder};
use crate::parallel::eden::Eden;
use crate::parallel::ga::GaTable;
use crate::parallel::gum::Gum;
use crate::parallel::ids::PeId;
use crate::parallel::policy::{LoadPolicy, Sched};
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::packet::{Chunking, Inbox, SendBuffers};
use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use gph_code::values::Stop;

/// What a failing IO primitive threw, besides its `Stop::Error` (the
/// message a run without a handler stops with): the reducer hands it to
/// the innermost `catchIO` of the thread, if there is one.
pub enum Thrown {
    /// `raiseIO e`: the library's exception value.
    Value(Ptr),
    /// A failed operation of the runtime.
    Io(crate::machine::io::IoErr),
    /// `exitWith` under a handler: GHC's ExitCode exception, with the
    /// status (0 for ExitSuccess).
    Exit(i32),
}

pub use gph_code::values::err;

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
    /// The run's heap limit, shared by its PEs (`Setup` makes one per
    /// run); None: a PE's own, of `Config::heap_limit`.
    pub heap_budget: Option<Arc<HeapBudget>>,
    /// Most live threads per PE (sparks wait while there are this many).
    pub thread_limit: usize,
    /// The largest packed graph (a SCHEDULE or RESUME), in words: a
    /// structure bigger than this travels by several FETCHes, a round trip
    /// each. 16,384 rather than 4,096 once lists travelled as runs (a
    /// list element in 1-3 bytes): raytracer 700x525 on 16 simulated PEs
    /// 1.085 -> 0.775 s virtual (the main PE fetches the image), parsort
    /// 0.761 -> 0.608, matmult 400 0.728 -> 0.741; 32,768 gave 0.684,
    /// 0.555 and 0.789.
    pub graph_words: usize,
    /// A PE that is busy but has fewer sparks than this, and nothing else
    /// queued, fishes early (so that work arrives before it runs dry). 0,
    /// GUM's way, fishes only when idle; 1 speeds up sumEuler and nfib on 16
    /// simulated PEs (speedups 14.0 -> 15.3 and 13.4 -> 13.9) but slows
    /// the threads engine on 2 PEs by 10-15% and small runs a little.
    /// None: the load policy's own default (gum 0, gum2 2, scaled by
    /// speed).
    pub low_watermark: Option<usize>,
    /// Under gum2, a fast fisher of another cluster gets several sparks
    /// at once (`parallel::policy::gum2`). Off: on the grids of
    /// bench/multicluster.py it cost up to 60 % (raytracer on two E
    /// machines and a remote M, 35.8 ms away: 1.30 s under gum, 2.05 s
    /// with it, 1.14 s without).
    pub super_schedule: bool,
    /// Thunks that move with the answer to a FETCH or with a spark (the
    /// root first): a lazy list fetched thunk by thunk costs a round trip
    /// per cell, and a spark whose thread must first fetch its argument
    /// leaves its PE idle meanwhile, so that it fishes and hoards a second
    /// spark (sumEuler on 16 simulated PEs: 2.13-2.67 s virtual over four
    /// seeds with only the root moving, 2.02-2.03 s with 8 thunks). More
    /// for a FETCH broke up a structure being evaluated (`parallel::gum`,
    /// Note [A thunk fetched from a busy PE]).
    pub thunks_per_graph: usize,
    /// After a FISH comes home empty, the PE waits this long before it
    /// sends the next one (Note [Fish delay] in `parallel/policy/mod.rs`).
    pub fish_delay: std::time::Duration,
    /// How messages are gathered into packets (`parallel::protocol::packet`).
    pub chunking: Chunking,
    /// The load policy (`parallel::policy`).
    pub sched: Sched,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            slice: 20_000,
            eager_threads: 0,
            spark_pool: 4096,
            initial_heap_words: 1 << 19,
            heap_budget: None,
            thread_limit: usize::MAX,
            graph_words: 16384,
            thunks_per_graph: 8,
            low_watermark: None,
            super_schedule: false,
            fish_delay: std::time::Duration::from_millis(1),
            chunking: Chunking::default(),
            sched: Sched::default(),
        }
    }
}

/// Messages a PE with runnable threads handles in a row at most before
/// it runs a slice: a producer faster than its consumer (an Eden stream
/// without end) would otherwise keep the consumer handling messages for
/// ever, as Eden's fair receive loop prevents (docs/eden.md). GUM's
/// traffic never comes in such bursts, so its runs are unchanged.
pub const MESSAGE_BURST: u32 = 256;

pub struct Pe<'p, 'io> {
    pub(crate) l: &'p Loaded<'p>,
    pub(crate) heap: Heap,
    /// This PE's number, and how many PEs there are.
    id: PeId,
    pub(crate) npes: usize,
    /// Threads by id; a free slot holds `Thread::empty()`.
    pub(crate) threads: Vec<Thread>,
    pub(crate) free_ids: Vec<u32>,
    pub(crate) run_queue: VecDeque<u32>,
    pub(crate) blocked: Vec<u32>,
    pub(crate) sparks: VecDeque<Ptr>,
    pub(crate) cafs: Vec<Ptr>,
    pub(crate) io: Io<'io>,
    /// The event stream: counters, and a recorder if any.
    pub(crate) obs: Obs,
    /// Reductions of the slice under way (the reducer counts them).
    pub(crate) slice_reductions: u64,
    /// Reductions of the running slice not yet in `slice_reductions`:
    /// the reducer's count, stored before each primitive (`clock` reads it).
    pub(crate) slice_pending: u64,
    /// The engine's clock at the start of this slice (`machine::view`).
    pub(crate) clock: crate::machine::view::SliceClock,
    /// The grid the run simulates or emulates, if any.
    pub(crate) grid: Option<&'p crate::engine::grid::Grid>,
    /// What costly primitives charged in this slice on top of their
    /// reductions, in reductions (`Pe::charge`).
    pub(crate) slice_work: u64,
    /// The thread whose slice mail cut short, and the reductions its
    /// slice had left: it runs next with those, not a fresh slice
    /// (Note [Mail ends a slice]).
    pub(crate) cut_short: Option<(u32, u64)>,
    pub(crate) tuning: Tuning,
    pub(crate) interrupt: Option<Arc<AtomicBool>>,
    pub(crate) heap_limit_bytes: usize,
    /// Scratch pointers (a GC root, Note [GC safety]): arguments being
    /// gathered for an application.
    pub(crate) tmp: Vec<Ptr>,
    pub(crate) live_threads: usize,
    /// The global-address tables.
    pub(crate) ga: GaTable,
    /// The protocol state of a PE among others.
    pub(crate) gum: Gum,
    /// Eden's channels and processes on this PE.
    pub(crate) eden: Eden,
    /// Whom to ask for work, what to give (`parallel::policy`).
    pub(crate) policy: Box<dyn LoadPolicy>,
    /// The messages of failed speculative evaluations (RAISE nodes).
    pub(crate) raised: Vec<String>,
    /// Messages sent, not yet in a send buffer: the driver moves them.
    pub(crate) outbox: Vec<Envelope>,
    /// A send buffer per destination PE (the packet layer).
    pub(crate) sending: SendBuffers,
    /// Messages received and not handled yet, a queue per sender.
    pub(crate) inbox: Inbox,
    /// Messages handled since the last step.
    pub(crate) handled_in_a_row: u32,
    /// Whether a message has come for this PE since it last looked: the
    /// threads engine's channel, polled while a slice runs (Note [Mail
    /// ends a slice]); None on the sim engine.
    pub(crate) mail: Option<Box<dyn Fn() -> bool + Send + 'io>>,
    /// Words the collector copied since the engine last asked
    /// (`take_gc_copied`: the sim charges them).
    gc_copied: u64,
    /// The main PE said FINISH.
    pub(crate) finished: bool,
    /// What the failing primitive threw (taken by the reducer at once).
    pub(crate) thrown: Option<Thrown>,
    /// How the last primitive stopped its thread, if it did: its slice
    /// ends there, and the scheduler takes it (machine::concurrency).
    pub(crate) suspend: Option<crate::machine::concurrency::Suspend>,
    /// Threads in `threadDelay`: their deadline and id.
    pub(crate) sleeping: Vec<(crate::machine::concurrency::Deadline, u32)>,
    /// The main thread's id on the main PE (as `step` was last told).
    pub(crate) main_thread: Option<u32>,
    /// Entries of each code position (indexed by pc; only entry points
    /// count) when `GPH_SC_PROFILE` names a file, else empty
    /// (`obs::sc_profile`).
    pub(crate) entry_counts: Vec<u64>,
}

impl Drop for Pe<'_, '_> {
    fn drop(&mut self) {
        if !self.entry_counts.is_empty() {
            crate::obs::sc_profile::write(self.l, &self.entry_counts);
        }
    }
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
        // Both semispaces count against the limit (`HeapBudget`), shared
        // with the run's other PEs when the engine gives one.
        let budget = tuning
            .heap_budget
            .clone()
            .unwrap_or_else(|| Arc::new(HeapBudget::new(heap_limit_bytes)));
        let initial = tuning
            .initial_heap_words
            .min(heap_limit_bytes / 16)
            .max(l.statics.len() + 1024);
        let mut heap = Heap::new(l.statics.clone(), initial, budget);
        heap.selectors = l.selectors.clone();
        if gc_stress {
            heap.stress = Some(24);
            heap.alloc_end = (heap.hp + 24).min(heap.mem.len());
        }
        let policy = tuning.sched.policy(PeId(0), 1, 1.0, 0, &tuning);
        let sending = SendBuffers::new(tuning.chunking);
        Pe {
            l,
            heap,
            id: PeId(0),
            npes: 1,
            threads: Vec::new(),
            free_ids: Vec::new(),
            run_queue: VecDeque::new(),
            blocked: Vec::new(),
            sparks: VecDeque::new(),
            cafs: Vec::new(),
            io,
            obs: Obs::default(),
            slice_reductions: 0,
            slice_pending: 0,
            clock: Default::default(),
            grid: None,
            slice_work: 0,
            cut_short: None,
            tuning,
            interrupt,
            heap_limit_bytes,
            tmp: Vec::with_capacity(64),
            live_threads: 0,
            ga: GaTable::new(PeId(0)),
            gum: Gum::default(),
            eden: Eden::default(),
            policy,
            raised: Vec::new(),
            outbox: Vec::new(),
            sending,
            inbox: Inbox::default(),
            handled_in_a_row: 0,
            gc_copied: 0,
            mail: None,
            finished: false,
            thrown: None,
            suspend: None,
            sleeping: Vec::new(),
            main_thread: None,
            entry_counts: crate::obs::sc_profile::counters(l),
        }
    }

    /// Makes this PE number `id` of `npes` (the default is the only PE),
    /// running at `speed` (relative to the fastest PE).
    pub fn join(&mut self, id: PeId, npes: usize, speed: f64, seed: u64) {
        self.id = id;
        self.npes = npes;
        self.ga = GaTable::new(id);
        self.gum = Gum::default();
        self.eden = Eden::default();
        self.policy = self
            .tuning
            .sched
            .policy(id, npes, speed, seed, &self.tuning);
    }

    pub fn id(&self) -> PeId {
        self.id
    }

    // ------------------------------------------------------------ for engines and tests

    /// What this PE sent since the last call (the engine puts it on its way).
    pub fn take_outbox(&mut self) -> Vec<Envelope> {
        std::mem::take(&mut self.outbox)
    }

    /// Whether messages that arrived together wait to be handled (the
    /// engines step such PEs: a step handles one).
    pub fn has_mail(&self) -> bool {
        !self.inbox.is_empty()
    }

    /// Lets a slice end early when `mail` says a message has come (Note
    /// [Mail ends a slice]).
    pub fn poll_mail(&mut self, mail: Box<dyn Fn() -> bool + Send + 'io>) {
        self.mail = Some(mail);
    }

    /// Whether the running slice should end for a message.
    #[inline]
    pub(crate) fn mail_came(&self) -> bool {
        self.mail.as_ref().is_some_and(|m| m())
    }

    /// Words the collector copied since the last call.
    pub fn take_gc_copied(&mut self) -> u64 {
        std::mem::take(&mut self.gc_copied)
    }

    /// Whether the PE has handled so many messages in a row while threads
    /// could run that its next step must run one (MESSAGE_BURST).
    pub fn owes_a_slice(&self) -> bool {
        self.handled_in_a_row >= MESSAGE_BURST && self.has_work()
    }

    /// Whether messages wait in a send buffer.
    pub fn holds_messages(&self) -> bool {
        !self.sending.is_empty()
    }

    /// Whether the main PE told this one to finish.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Whether threads wait for black holes (or for other PEs).
    pub fn has_blocked_threads(&self) -> bool {
        !self.blocked.is_empty()
    }

    /// Threads blocked, and threads ready to run.
    pub fn blocked_threads(&self) -> usize {
        self.blocked.len()
    }

    pub fn runnable_threads(&self) -> usize {
        self.run_queue.len()
    }

    /// Whether a FISH of this PE's is out.
    pub fn fishing(&self) -> bool {
        self.gum.fish_out
    }

    /// What this PE did so far.
    pub fn stats(&self) -> &PeStats {
        self.obs.stats()
    }

    /// Records this PE's events with `recorder` from now on.
    pub fn record(&mut self, recorder: Box<dyn Recorder>) {
        self.obs.record(recorder);
    }

    pub fn recording(&self) -> bool {
        self.obs.recording()
    }

    /// The driver's clock went from `start` to `end` during the last step:
    /// stamps the events it recorded.
    pub fn step_done(&mut self, start: f64, end: f64) {
        self.obs.step_done(start, end);
    }

    /// The run ended (at `t`): the heap as it is now goes into the
    /// statistics, and the last recorded events are stamped.
    pub fn end_run(&mut self, t: f64) {
        let words = self.heap.live_words() as u64;
        self.obs.emit(Event::HeapAllocated { words });
        let words = self.heap.mem.len() as u64;
        self.obs.emit(Event::HeapSize { words });
        self.obs.step_done(t, t);
        self.obs.finish(t);
    }

    pub fn heap(&self) -> &Heap {
        &self.heap
    }

    pub fn heap_mut(&mut self) -> &mut Heap {
        &mut self.heap
    }

    pub fn ga(&self) -> &GaTable {
        &self.ga
    }

    pub fn ga_mut(&mut self) -> &mut GaTable {
        &mut self.ga
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

    /// A node with header `h` and `payload` (zeros after it) after `ensure`.
    pub fn node(&mut self, h: u64, payload: &[u64]) -> Ptr {
        self.heap.alloc_node(h, payload).expect("ensured space")
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
        self.obs.emit(Event::GcStart);
        let words = self.heap.live_words() as u64;
        self.obs.emit(Event::HeapAllocated { words });
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
        self.ga.roots_mut(|p| *p = h.evacuate(*p));
        self.gum.roots_mut(|p| *p = h.evacuate(*p));
        self.eden.roots_mut(|p| *p = h.evacuate(*p));
        let before = self.sparks.len();
        self.sparks.retain(|s| !h.gc_is_value(*s));
        for _ in self.sparks.len()..before {
            self.obs.emit(Event::SparkGc);
        }
        let h = &mut self.heap;
        for s in self.sparks.iter_mut() {
            *s = h.evacuate(*s);
        }
        h.scan();
        self.ga.after_gc(|p| h.forwarded(p));
        let dead = self.eden.after_gc(h.live_words(), |p| h.forwarded(p));
        let r = h.finish(need);
        let copied = h.live_words() as u64;
        self.gc_copied += copied;
        self.obs.emit(Event::GcEnd {
            copied_words: copied,
            heap_words: h.mem.len() as u64,
        });
        self.send_frees();
        for (chan, sender) in dead {
            self.dropped(chan, sender);
        }
        r.map_err(|_| {
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
        match self.l.int_box(i) {
            Some(p) => p,
            None => self.build_raw(kind::INT, i as u64),
        }
    }

    pub fn char_words(&self, c: u32) -> usize {
        if self.l.char_box(c).is_some() {
            0
        } else {
            2
        }
    }

    pub fn build_char(&mut self, c: u32) -> Ptr {
        match self.l.char_box(c) {
            Some(p) => p,
            None => self.build_raw(kind::CHAR, c as u64),
        }
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
}

/// Clears the dead registers of every suspended activation of `t` (see
/// `load::compute_liveness`), so that they keep nothing alive.
fn clear_dead(l: &Loaded, t: &mut Thread) {
    for f in &t.frames {
        if f.kind != crate::machine::thread::fk::RET && f.kind != crate::machine::thread::fk::RETV {
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
