//! How PEs run and how messages travel between them (DESIGN.md
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
//! * stamps each message with its send time and posts it,
//! * and tells a deadlock: every PE quiescent (`Pe::quiescent`) and no
//!   message on its way but those that only look for work (FISH), seen
//!   when such a message is about to be delivered or when the engine has
//!   nothing else to do. Then every thread waits for a black hole that only
//!   a waiting thread could update: `<<loop>>`, as on one PE. The count
//!   behind it ([`Census`]) is one atomic number, exact on every engine.
//!
//! The fish delay is the protocol's (an empty FISH goes home with a
//! `hold`, see `parallel::gum`); an engine delivers a held message that
//! much later.

pub mod grid;
pub mod os_threads;
pub mod sim;

use crate::code;
use crate::machine::heap::{header, kind, Ptr};
use crate::machine::io::Io;
use crate::machine::load::Loaded;
use crate::machine::pe::{err, Pe, Stop, Tuning};
use crate::machine::scheduler::Step;
use crate::parallel::ids::PeId;
use crate::parallel::protocol::control::Control;
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::Kind;
use crate::Config;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Messages a PE with runnable threads handles in a row at most before
/// it runs a slice: a producer faster than its consumer (an Eden stream
/// without end) would otherwise keep the consumer handling messages for
/// ever, as Eden's fair receive loop prevents (docs/eden.md). GUM's
/// traffic never comes in such bursts, so its runs are unchanged.
pub const MESSAGE_BURST: u32 = 256;

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
    /// `env` is about to be handed to local PE `pe` (`p`): the engine
    /// accounts the time until it arrived and the cost of handling it.
    fn receiving(&mut self, p: usize, env: &Envelope, pe: &Pe);
    /// Local PE `p` did `step`: the engine charges it.
    fn stepped(&mut self, p: usize, step: Step);
    /// Puts a message on its way.
    fn post(&mut self, env: Envelope);
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
/// work (all but FISH) are on their way or being handled: zero is a
/// deadlock. A PE counts itself while it handles any message, and a
/// message is counted before its sender stops counting itself, so the
/// number is never zero while anything can still happen.
pub struct Census {
    active: AtomicUsize,
}

impl Census {
    /// Every PE starts active.
    pub fn new(npes: usize) -> Census {
        Census {
            active: AtomicUsize::new(npes),
        }
    }

    fn up(&self) {
        self.active.fetch_add(1, Ordering::SeqCst);
    }

    fn down(&self) {
        self.active.fetch_sub(1, Ordering::SeqCst);
    }

    fn quiet(&self) -> bool {
        self.active.load(Ordering::SeqCst) == 0
    }
}

/// Stamps the events local PE `p` recorded in a step that began at `t0`
/// (None: it does not record).
fn stamp<E: Engine>(eng: &E, pes: &mut [Pe], p: usize, t0: Option<f64>) {
    if let Some(t0) = t0 {
        pes[p].step_done(t0, eng.now(p));
    }
}

fn deadlock() -> Stop {
    Stop::Error("<<loop>>".into())
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
    match d.run(eng, pes) {
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
        // Every PE but the main one starts idle: it goes fishing at once.
        for p in (0..pes.len()).rev() {
            if self.main.map(|m| m.0) != Some(p) {
                let t0 = pes[p].recording().then(|| eng.now(p));
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
            match eng.next(pes) {
                Next::Nothing => return Err(deadlock()),
                Next::Wait => {
                    if self.census.quiet() {
                        return Err(deadlock());
                    }
                    eng.wait(pes);
                }
                Next::Deliver(env) => {
                    let p = eng.local(env.to);
                    let brings_work = !env.kind.looks_for_work();
                    if !brings_work && self.census.quiet() {
                        return Err(deadlock());
                    }
                    if self.quiescent[p] {
                        self.quiescent[p] = false;
                        self.census.up();
                    }
                    eng.receiving(p, &env, &pes[p]);
                    let t0 = pes[p].recording().then(|| eng.now(p));
                    let pe = &mut pes[p];
                    let r = pe.receive(&env).and_then(|()| {
                        // An idle PE that got no work goes fishing again.
                        if !pe.has_work() {
                            pe.step(None).map(|_| ())
                        } else {
                            Ok(())
                        }
                    });
                    self.post(eng, pes, p);
                    stamp(eng, pes, p, t0);
                    if brings_work {
                        self.census.down();
                    }
                    self.update(pes, p);
                    r?;
                    if pes.iter().all(|pe| pe.finished()) {
                        return Ok(None);
                    }
                }
                Next::Step(p) => {
                    let main = self.main.filter(|m| m.0 == p).map(|m| m.1);
                    let t0 = pes[p].recording().then(|| eng.now(p));
                    let r = pes[p].step(main);
                    if let Ok(s) = r {
                        eng.stepped(p, s);
                    }
                    self.post(eng, pes, p);
                    stamp(eng, pes, p, t0);
                    self.update(pes, p);
                    if let Step::Done(v) = r? {
                        return Ok(Some(v));
                    }
                }
            }
        }
    }

    /// Stamps what local PE `p` sent and puts it on its way.
    fn post<E: Engine>(&self, eng: &mut E, pes: &mut [Pe], p: usize) {
        let now = eng.now(p);
        for mut env in pes[p].take_outbox() {
            env.sent_at = now;
            if !env.kind.looks_for_work() {
                self.census.up();
            }
            eng.post(env);
        }
    }

    /// Tells the census whether local PE `p` is quiescent now.
    fn update(&mut self, pes: &[Pe], p: usize) {
        let q = pes[p].quiescent();
        if q != self.quiescent[p] {
            self.quiescent[p] = q;
            if q {
                self.census.down();
            } else {
                self.census.up();
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
            self.census.up();
        }
        let m = Control::Fail { message };
        let mut env = Envelope::new(me, PeId(0), m.kind(), m.encode());
        env.sent_at = eng.now(0);
        self.census.up();
        eng.post(env);
        loop {
            match eng.next(pes) {
                Next::Deliver(env) if env.kind == Kind::Finish => return,
                Next::Deliver(_) => {}
                Next::Nothing => return,
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
        pe.join(PeId(id), self.npes, c.seed);
        if let Some(r) = &c.record {
            pe.record(r.for_pe(PeId(id)));
        }
        pe
    }

    /// Makes the main thread on `pe` (after its CAFs); its id.
    pub fn start_main(&self, pe: &mut Pe) -> Result<u32, Stop> {
        let l = self.loaded;
        pe.init_cafs()?;
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
                let p = pe.bump(2);
                pe.heap.mem[p.0 as usize] = header(kind::THUNK, 1, l.caf_sc[k]);
                pe.heap.mem[p.0 as usize + 1] = l.dummy.0 as u64;
                p
            }
            None => return err("main is not a global"),
        };
        Ok(pe.spawn(l.main_entry, &[m, l.unit_node]))
    }
}
