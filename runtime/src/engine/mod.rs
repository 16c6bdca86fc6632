//! How PEs run and how messages travel between them (docs/design.md
//! "Engines"): `sim` in virtual time on a simulated machine (`grid`),
//! `os_threads` on one OS thread per PE.
//!
//! An engine hosts some of the PEs (sim: all of them; os_threads: one per
//! OS thread) and implements [`Engine`]: it says what happens next (hand a
//! message to a PE, or step a PE), keeps the clocks and carries the
//! messages. Everything else is [`drive`], the one loop every engine runs:
//! the PEs step, the engine delivers. The driver alone
//!
//! * starts the PEs other than the main one (they go fishing at once),
//! * steps a PE that got a message and has no work (so it fishes again),
//! * moves what a PE sent into its send buffers and posts the packets that
//!   leave (`parallel::protocol::packet`), stamped with their send time;
//!   each time round it sends the buffers that timed out, and at the end
//!   of a run whatever is still held;
//! * takes a packet of several messages apart into the receiver's queues
//!   (`Pe::has_mail`; an engine steps such a PE, and a step then handles
//!   one message, senders taking turns),
//! * and tells a deadlock: every PE quiescent (`Pe::quiescent`) and no
//!   message on its way, held in a send buffer or queued but those that
//!   only look for work (FISH), seen when such a message is about to be
//!   delivered or handled or when the engine has nothing else to do. Then
//!   every thread waits for a black hole that only a waiting thread could
//!   update: `<<loop>>`, as on one PE. The count behind it ([`Census`]) is
//!   one atomic number, exact on every engine.
//!
//! An engine delivers a message with a `hold` that much after it arrives
//! (Note [Fish delay] in `parallel/policy/mod.rs`).

// Both need OS threads, which the browser build has not (docs/web.md).
#[cfg(not(target_arch = "wasm32"))]
pub mod calibrate;
pub mod faults;
pub mod grid;
pub mod mpi;
#[cfg(not(target_arch = "wasm32"))]
pub mod os_threads;
pub mod sim;

use crate::code;
use crate::machine::heap::Ptr;
use crate::machine::io::Io;
use crate::machine::load::Loaded;
use crate::machine::pe::{err, Pe, Stop, Tuning};
use crate::machine::scheduler::Step;
use crate::parallel::ids::PeId;
use crate::parallel::protocol::control::Control;
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::{internal, packet, MsgKind};
use crate::Config;
use std::sync::atomic::{AtomicIsize, AtomicU64, Ordering};

/// What happens next on an engine.
pub enum Next {
    /// Hand this message to its PE.
    Deliver(Envelope),
    /// Step this (local) PE.
    Step(usize),
    /// Nothing to do here for now: the driver tests for a deadlock, then
    /// calls [`Engine::wait`].
    Wait,
    /// Nothing will ever happen again.
    Nothing,
    /// The run cannot go on: a message from another process was
    /// malformed (why).
    Broken(String),
}

/// An engine: how the PEs it hosts run and how messages travel. PEs are
/// named by their index in the slice the driver holds ("local").
pub trait Engine {
    /// What happens next among `pes`.
    fn next(&mut self, pes: &[Pe]) -> Next;
    /// Waits (a little) for something to happen.
    fn wait(&mut self, pes: &[Pe]);
    /// The local index of PE `id`.
    fn local(&self, id: PeId) -> usize;
    /// Local PE `p`'s clock, in seconds (virtual or wall).
    fn now(&self, p: usize) -> f64;
    /// Seconds a reduction of local PE `p` advances its clock, for a clock
    /// that only moves when the engine charges a slice (the sim's); None
    /// for a wall clock. The PE's `clock` primitive adds the slice's
    /// reductions so far to `now` at the slice's start.
    fn per_reduction(&self, _p: usize) -> Option<f64> {
        None
    }
    /// When the message being handed to local PE `p` arrived there, by
    /// its clock: what a latency measured from the message's timestamp
    /// must use, not the later moment the PE got round to it (a PE busy
    /// with a slice when a FISH arrived measured 1 ms instead of 0.2 ms,
    /// and Grid-GUM2 took the fisher for a PE of another cluster).
    fn arrived(&self, p: usize) -> f64 {
        self.now(p)
    }
    /// `env` is about to be handed to local PE `pe` (`p`): the engine
    /// accounts the time until it arrived and the cost of handling it.
    fn receiving(&mut self, p: usize, env: &Envelope, pe: &Pe);
    /// Local PE `p` did `step`: the engine charges it.
    fn stepped(&mut self, p: usize, step: Step);
    /// Puts a message on its way.
    fn post(&mut self, env: Envelope);
    /// Local PE `p`'s collector copied `words` words (in a step or while
    /// it handled a message): the sim charges them.
    fn collected(&mut self, _p: usize, _words: u64) {}
}

/// Seconds a PE spent, by what it did.
#[derive(Clone, Copy, Debug, Default)]
pub struct PeTimes {
    /// Running threads and handling messages.
    pub busy: f64,
    /// Nothing to do.
    pub idle: f64,
    /// Nothing to do while threads waited for other PEs.
    pub blocked: f64,
}

/// How many PEs are not quiescent plus how many messages that may bring
/// work (all but FISH) are in a send buffer, on their way, queued or being
/// handled: zero is a deadlock. A PE counts itself while it handles any
/// message, and a message is counted before its sender stops counting
/// itself, so the number is never zero while anything can still happen.
/// (A packet is not counted: its messages are.)
///
/// Engines whose PEs share memory share one census, and its one atomic
/// number is exact. Across processes (`mpi`) each PE has a census of its
/// own ([`Census::distributed`]), which never reads quiet: its engine
/// adds up every PE's counts of messages sent and handled, and whether
/// each is quiescent, in waves (`engine/mpi`).
pub struct Census {
    active: AtomicIsize,
    /// Messages that may bring work sent, and handled, by the PEs counted
    /// here.
    sent: AtomicU64,
    handled: AtomicU64,
    distributed: bool,
}

impl Census {
    /// Every PE starts active.
    pub fn new(npes: usize) -> Census {
        Census {
            active: AtomicIsize::new(npes as isize),
            sent: AtomicU64::new(0),
            handled: AtomicU64::new(0),
            distributed: false,
        }
    }

    /// The census of one PE that shares no memory with the others.
    pub fn distributed() -> Census {
        Census {
            distributed: true,
            ..Census::new(1)
        }
    }

    /// A PE stopped being quiescent.
    fn woke(&self) {
        self.active.fetch_add(1, Ordering::SeqCst);
    }

    /// A PE became quiescent.
    fn slept(&self) {
        self.active.fetch_sub(1, Ordering::SeqCst);
    }

    /// A message that may bring work left. (The counts apart are for the
    /// waves of a distributed census: a shared one pays one atomic.)
    fn sent(&self) {
        if self.distributed {
            self.sent.fetch_add(1, Ordering::SeqCst);
        }
        self.woke();
    }

    /// A message that may bring work was handled.
    fn handled(&self) {
        if self.distributed {
            self.handled.fetch_add(1, Ordering::SeqCst);
        }
        self.slept();
    }

    fn quiet(&self) -> bool {
        !self.distributed && self.active.load(Ordering::SeqCst) == 0
    }

    /// What a wave reads of a distributed census: whether its PE is
    /// quiescent, and its messages sent and handled.
    pub fn reading(&self) -> (bool, u64, u64) {
        let sent = self.sent.load(Ordering::SeqCst);
        let handled = self.handled.load(Ordering::SeqCst);
        let active = self.active.load(Ordering::SeqCst);
        (
            active - sent as isize + handled as isize == 0,
            sent,
            handled,
        )
    }
}

/// Stamps the events local PE `p` recorded in a step that began at `t0`
/// (None: it does not record).
fn stamp<E: Engine>(eng: &E, pes: &mut [Pe], p: usize, t0: Option<f64>) {
    if let Some(t0) = t0 {
        pes[p].step_done(t0, eng.now(p));
    }
}

/// Tells the engine what local PE `p`'s collector copied.
fn collected<E: Engine>(eng: &mut E, pes: &mut [Pe], p: usize) {
    let words = pes[p].take_gc_copied();
    if words > 0 {
        eng.collected(p, words);
    }
}

/// The error of a deadlock seen away from the main thread, and of a thunk
/// that demands itself.
pub const LOOP: &str = "<<loop>>";

/// The error of a deadlock (`Pe::deadlock` where the main thread is).
fn deadlock(pes: &[Pe], main: Option<(usize, u32)>) -> Stop {
    match main {
        Some((p, _)) => pes[p].deadlock(),
        None => Stop::Error(LOOP.into()),
    }
}

/// Runs the PEs `pes` on `eng` until the main thread ends (its value),
/// this engine's PEs are told to finish (None), an error, or a deadlock.
/// `main`: the local index of the main PE and its main thread, when this
/// engine hosts it. On an engine without it, an error goes to the main PE
/// in a FAIL, and the driver waits for the FINISH that follows.
pub fn drive<E: Engine>(
    eng: &mut E,
    pes: &mut [Pe],
    census: &Census,
    main: Option<(usize, u32)>,
) -> Result<Option<Ptr>, Stop> {
    let mut d = Driver {
        census,
        quiescent: vec![false; pes.len()],
        main,
    };
    let r = d.run(eng, pes);
    // Nothing stays in a send buffer: what was sent is counted as sent.
    for p in 0..pes.len() {
        pes[p].flush_packets();
        d.post_now(eng, pes, p);
    }
    match r {
        Err(e) if main.is_none() => {
            d.fail(eng, pes, e);
            Ok(None)
        }
        r => r,
    }
}

struct Driver<'c> {
    census: &'c Census,
    /// What the census last heard of each local PE.
    quiescent: Vec<bool>,
    main: Option<(usize, u32)>,
}

impl Driver<'_> {
    fn run<E: Engine>(&mut self, eng: &mut E, pes: &mut [Pe]) -> Result<Option<Ptr>, Stop> {
        // Speeds first, under a policy that exchanges them.
        for p in 0..pes.len() {
            pes[p].start_up();
            self.post(eng, pes, p);
        }
        // Every PE but the main one starts idle: it goes fishing at once.
        for p in (0..pes.len()).rev() {
            if self.main.map(|m| m.0) != Some(p) {
                let t0 = pes[p].recording().then(|| eng.now(p));
                pes[p].set_clock(eng.now(p), eng.per_reduction(p));
                let r = pes[p].step(None);
                self.post(eng, pes, p);
                stamp(eng, pes, p, t0);
                r?;
            }
        }
        for p in 0..pes.len() {
            self.update(pes, p);
        }
        loop {
            // The timeout: the threads engine's clock moves by itself.
            for p in 0..pes.len() {
                if pes[p].packets_due().is_some_and(|t| t <= eng.now(p)) {
                    self.post_now(eng, pes, p);
                }
            }
            match eng.next(pes) {
                Next::Nothing => {
                    if self.rescued(pes)? {
                        continue;
                    }
                    return Err(deadlock(pes, self.main));
                }
                Next::Broken(why) => return Err(Stop::Error(why)),
                Next::Wait => {
                    if let Some(e) = self.deadlock_here(pes)? {
                        return Err(e);
                    }
                    eng.wait(pes);
                }
                Next::Deliver(env) => {
                    let p = eng.local(env.to);
                    let packet = match env.kind {
                        MsgKind::Packet => Some(
                            packet::unbundle(&env)
                                .map_err(|e| internal(format!("{e} from PE {}", env.from.0)))?,
                        ),
                        _ => None,
                    };
                    let brings_work = match &packet {
                        Some(ms) => ms.iter().any(|m| !m.kind.looks_for_work()),
                        None => !env.kind.looks_for_work(),
                    };
                    if !brings_work {
                        if let Some(e) = self.deadlock_here(pes)? {
                            return Err(e);
                        }
                    }
                    self.handling(p);
                    eng.receiving(p, &env, &pes[p]);
                    pes[p].heard(&env, eng.arrived(p))?;
                    let inbox = &mut pes[p].inbox;
                    let env = match packet {
                        // Every message of a run without HEADs.
                        None if inbox.is_empty() => env,
                        None => {
                            inbox.push(env);
                            inbox.pop().expect("a message just queued")
                        }
                        Some(ms) => {
                            ms.into_iter().for_each(|m| inbox.push(m));
                            inbox.pop().expect("a packet just queued")
                        }
                    };
                    if self.handle(eng, pes, p, env)? {
                        return Ok(None);
                    }
                }
                // Messages first, as GUM's scheduler reads its messages
                // before it runs a thread.
                Next::Step(p) if pes[p].has_mail() && !pes[p].owes_a_slice() => {
                    let env = pes[p].inbox.pop().expect("mail");
                    if env.kind.looks_for_work() {
                        if let Some(e) = self.deadlock_here(pes)? {
                            return Err(e);
                        }
                    }
                    self.handling(p);
                    if self.handle(eng, pes, p, env)? {
                        return Ok(None);
                    }
                }
                Next::Step(p) => {
                    let main = self.main.filter(|m| m.0 == p).map(|m| m.1);
                    let t0 = pes[p].recording().then(|| eng.now(p));
                    pes[p].set_clock(eng.now(p), eng.per_reduction(p));
                    let r = pes[p].step(main);
                    if let Ok(s) = r {
                        eng.stepped(p, s);
                    }
                    collected(eng, pes, p);
                    self.post(eng, pes, p);
                    stamp(eng, pes, p, t0);
                    self.update(pes, p);
                    if let Step::Done { value, .. } = r? {
                        return Ok(Some(value));
                    }
                }
            }
        }
    }

    /// Local PE `p` is about to handle a message: it counts itself.
    fn handling(&mut self, p: usize) {
        if self.quiescent[p] {
            self.quiescent[p] = false;
            self.census.woke();
        }
    }

    /// Local PE `p` handles `env` (a message, not a packet; `handling`
    /// came first). Whether every PE has finished now.
    fn handle<E: Engine>(
        &mut self,
        eng: &mut E,
        pes: &mut [Pe],
        p: usize,
        env: Envelope,
    ) -> Result<bool, Stop> {
        let t0 = pes[p].recording().then(|| eng.now(p));
        pes[p].set_clock(eng.now(p), eng.per_reduction(p));
        let pe = &mut pes[p];
        let r = pe.receive(&env).and_then(|()| {
            // An idle PE that got no work goes fishing again (once it has
            // read its mail).
            if !pe.has_work() && !pe.has_mail() {
                pe.step(None).map(|_| ())
            } else {
                Ok(())
            }
        });
        collected(eng, pes, p);
        self.post(eng, pes, p);
        stamp(eng, pes, p, t0);
        if !env.kind.looks_for_work() {
            self.census.handled();
        }
        self.update(pes, p);
        r?;
        Ok(pes.iter().all(|pe| pe.finished()))
    }

    /// Moves what local PE `p` sent into its send buffers (counting each
    /// message that may bring work) and puts the packets that leave on
    /// their way.
    fn post<E: Engine>(&self, eng: &mut E, pes: &mut [Pe], p: usize) {
        let census = self.census;
        let counted = |env: &Envelope| {
            if !env.kind.looks_for_work() {
                census.sent();
            }
        };
        pes[p].take_packets(eng.now(p), counted, |env| eng.post(env));
    }

    /// `post` outside a step of local PE `p`: its events are stamped now.
    fn post_now<E: Engine>(&self, eng: &mut E, pes: &mut [Pe], p: usize) {
        let t0 = pes[p].recording().then(|| eng.now(p));
        self.post(eng, pes, p);
        stamp(eng, pes, p, t0);
    }

    /// With every PE quiescent (the census quiet): the deadlock's error,
    /// or None when the run goes on. Only the driver of the main PE tells
    /// a deadlock (another that told first would name the wrong error, and
    /// could not see a handler take it); the others wait for its FINISH.
    fn deadlock_here(&mut self, pes: &mut [Pe]) -> Result<Option<Stop>, Stop> {
        if self.main.is_none() || !self.census.quiet() || self.rescued(pes)? {
            return Ok(None);
        }
        Ok(Some(deadlock(pes, self.main)))
    }

    /// At a deadlock: whether the main thread, waiting on an MVar under a
    /// handler, was given BlockedIndefinitelyOnMVar (and the run goes on).
    fn rescued(&mut self, pes: &mut [Pe]) -> Result<bool, Stop> {
        let Some((p, _)) = self.main else {
            return Ok(false);
        };
        if pes[p].raise_blocked_indefinitely()? {
            self.update(pes, p);
            return Ok(true);
        }
        Ok(false)
    }

    /// Tells the census whether local PE `p` is quiescent now.
    fn update(&mut self, pes: &[Pe], p: usize) {
        let q = pes[p].quiescent();
        if q != self.quiescent[p] {
            self.quiescent[p] = q;
            if q {
                self.census.slept();
            } else {
                self.census.woke();
            }
        }
    }

    /// An error on a PE without the main thread: the main PE hears of it
    /// in a FAIL, and ends the run. This PE stays active in the census (no
    /// deadlock can be seen after an error) and waits for the FINISH.
    fn fail<E: Engine>(&mut self, eng: &mut E, pes: &mut [Pe], e: Stop) {
        let me = pes[0].id();
        let message = match e {
            Stop::Error(m) => m,
            Stop::Exit(c) => format!("internal error: exit {c} on PE {}", me.0),
        };
        if self.quiescent[0] {
            self.quiescent[0] = false;
            self.census.woke();
        }
        // This PE runs nothing more: it must not owe a slice, or the
        // threads engine would keep offering to step it instead of
        // delivering the FINISH it waits for (a Ctrl-C in the REPL hung).
        pes[0].handled_in_a_row = 0;
        let m = Control::Fail { message };
        let mut env = Envelope::new(me, PeId(0), m.kind(), m.encode());
        env.sent_at = eng.now(0);
        self.census.sent();
        eng.post(env);
        // The FINISH may have come already: handling it is what failed
        // (an interrupt seen while receiving it), or it waits in the inbox
        // behind a packet's messages (the main PE ended, and this PE saw
        // the run fall quiet before it read the FINISH).
        while !pes[0].finished() {
            while let Some(env) = pes[0].inbox.pop() {
                if env.kind == MsgKind::Finish {
                    return;
                }
            }
            match eng.next(pes) {
                Next::Deliver(env) if env.kind == MsgKind::Finish => return,
                Next::Deliver(_) => {}
                Next::Nothing | Next::Broken(_) => return,
                Next::Step(_) | Next::Wait => eng.wait(pes),
            }
        }
    }
}

/// What engines need to make the PEs of a run.
pub struct Setup<'p> {
    pub program: &'p code::Program,
    pub loaded: &'p Loaded<'p>,
    pub config: &'p Config,
    pub tuning: Tuning,
    /// How many PEs.
    pub npes: usize,
    /// A REPL session's values, put into the main PE's heap before its
    /// main thread starts (`session`).
    pub session: Option<&'p crate::session::saved::Saved>,
}

/// The first semispace of a PE other than the main one, in words.
const OTHER_PE_HEAP_WORDS: usize = 1 << 16;

impl<'p> Setup<'p> {
    /// PE number `id`, with the outside world `io`.
    pub fn new_pe<'io>(&self, io: Io<'io>, id: u16) -> Pe<'p, 'io> {
        let mut tuning = self.tuning.clone();
        if id != 0 {
            // The other PEs start with what a spark needs; their heaps grow
            // when work arrives (16 simulated PEs at 4 MB each cost nfib 31
            // 20 a fifth of its run time in page faults).
            tuning.initial_heap_words = tuning.initial_heap_words.min(OTHER_PE_HEAP_WORDS);
        }
        let c = self.config;
        let mut pe = Pe::new(
            self.loaded,
            io,
            c.heap_limit,
            c.gc_stress,
            c.interrupt.clone(),
            tuning,
        );
        let speed = c.grid.as_ref().map_or(1.0, |g| g.speed(PeId(id)));
        pe.join(PeId(id), self.npes, speed, c.seed);
        pe.grid = c.grid.as_ref();
        if let Some(r) = &c.record {
            pe.record(r.for_pe(PeId(id)));
        }
        pe
    }

    /// Makes the main thread on `pe` (after its CAFs); its id.
    pub fn start_main(&self, pe: &mut Pe) -> Result<u32, Stop> {
        let l = self.loaded;
        pe.init_cafs()?;
        if let Some(saved) = self.session {
            crate::session::restore(saved, self.program, pe)?;
        }
        let Some(main) = self.program.main else {
            return err("the program has no main");
        };
        let m = match self.program.globals.get(main.0 as usize) {
            Some(code::Global::Fun(sc)) => Ptr(l.fun_node[sc.0 as usize]),
            Some(code::Global::Caf(_)) => {
                // A thunk of main's own, not the CAF: the CAF table is a
                // root for the whole run, and what main's action refers to
                // (the values of statements already run, an Eden stream
                // whose producer should stop) would live as long. A
                // program that mentions `main` again evaluates the CAF.
                let k = l.caf_of_global[main.0 as usize].unwrap() as usize;
                pe.ensure(&mut crate::machine::thread::Thread::empty(), 2)?;
                pe.caf_thunk(k)
            }
            None => return err("main is not a global"),
        };
        Ok(pe.spawn(l.main_entry, &[m, l.unit_node]))
    }
}
