//! The `threads` engine (docs/design.md "Engines"): one OS thread per PE, each
//! with its own heap, each running the driver (engine/mod.rs) for its PE;
//! messages are envelopes over crossbeam channels. Nothing else is shared
//! but the loaded program and the driver's census.
//!
//! The main PE (0, on the calling thread) ends the run: when its main
//! thread ends, on an error anywhere (another PE sends FAIL), or on a
//! deadlock (seen by any PE). Then it tells every other PE to FINISH.
//!
//! With a grid (`--grid` on threads) the engine emulates its heterogeneity
//! on the real machine, so that a load policy can be tried for real: a PE
//! of speed s < 1 sleeps after each slice for (1/s - 1) times the slice's
//! length, and a message between two clusters is held on arrival for the
//! link's latency. Bandwidth and sending costs are not emulated.

use crate::engine::grid::Grid;
use crate::engine::{drive, Census, Engine, Next, PeTimes, Setup};
use crate::machine::heap::Ptr;
use crate::machine::io::Io;
use crate::machine::pe::{Pe, Stop};
use crate::machine::scheduler::Step;
use crate::parallel::ids::PeId;
use crate::parallel::protocol::control::Control;
use crate::parallel::protocol::envelope::Envelope;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// How long an idle PE waits for a message before stepping again (to
/// notice an interrupt).
const IDLE_WAIT: Duration = Duration::from_millis(2);

/// A PE's inbox.
type Inbox = Receiver<Envelope>;
/// The way into a PE's inbox.
type Outlet = Sender<Envelope>;

/// How a PE on a thread of its own meets the others: the transport under
/// the engine. Crossbeam channels between the threads of one process
/// ([`Channels`]), or MPI between processes (`engine/mpi`).
pub(crate) trait Link {
    /// A message that has arrived, if any.
    fn try_recv(&mut self, pe: &Pe) -> Option<Envelope>;
    /// Waits at most `d` for a message.
    fn recv_timeout(&mut self, pe: &Pe, d: Duration) -> Option<Envelope>;
    /// Puts a message on its way.
    fn send(&mut self, env: Envelope);
    /// Whether every PE is quiescent and no message that could bring
    /// work is anywhere, as far as a link that adds up the PEs' census
    /// knows (the PEs of one process share a census, and it tells).
    fn deadlocked(&mut self, _pe: &Pe) -> bool {
        false
    }
    /// Why the run cannot go on (a malformed message from another
    /// process), once.
    fn broken(&mut self) -> Option<String> {
        None
    }
}

/// The threads engine's link: a channel into each PE.
struct Channels<'a> {
    rx: &'a Inbox,
    tx: &'a [Outlet],
}

impl Link for Channels<'_> {
    fn try_recv(&mut self, _: &Pe) -> Option<Envelope> {
        self.rx.try_recv().ok()
    }

    fn recv_timeout(&mut self, _: &Pe, d: Duration) -> Option<Envelope> {
        match self.rx.recv_timeout(d) {
            Ok(env) => Some(env),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    fn send(&mut self, env: Envelope) {
        // A PE that has left no longer listens: nothing to do.
        let _ = self.tx[env.to.0 as usize].send(env);
    }
}

/// One PE's share of the engine: its link to the others, its clock.
pub(crate) struct OsThread<'a, L: Link> {
    me: PeId,
    pub(crate) link: L,
    start: Instant,
    /// Added to the clock: this process's start against the main one's
    /// (`mpi`; zero in one process).
    pub(crate) offset: f64,
    pub(crate) times: PeTimes,
    /// When the current step began.
    step_start: Instant,
    /// A message that came while waiting.
    pending: Option<Envelope>,
    /// Held messages (our fish, home empty; a message from another
    /// cluster) and when each is due.
    held: Vec<(Instant, Envelope)>,
    /// The grid to emulate, if any.
    grid: Option<&'a Grid>,
    /// The last wait ran out: step once (an idle step notices interrupts).
    timed_out: bool,
}

impl<'a, L: Link> OsThread<'a, L> {
    pub(crate) fn new(me: PeId, link: L, start: Instant, grid: Option<&'a Grid>) -> Self {
        OsThread {
            me,
            link,
            start,
            offset: 0.0,
            times: PeTimes::default(),
            step_start: start,
            pending: None,
            held: Vec::new(),
            grid,
            timed_out: false,
        }
    }

    /// A message that arrived: to deliver now, or to hold.
    fn arrived(&mut self, env: Envelope) -> Option<Next> {
        if env.hold.is_zero() {
            return Some(Next::Deliver(env));
        }
        self.held.push((Instant::now() + env.hold, env));
        None
    }

    /// The held message due first: its index and when.
    fn first_held(&self) -> Option<(usize, Instant)> {
        self.held
            .iter()
            .enumerate()
            .map(|(i, (due, _))| (i, *due))
            .min_by_key(|&(_, due)| due)
    }
}

impl<L: Link> Engine for OsThread<'_, L> {
    fn next(&mut self, pes: &[Pe]) -> Next {
        if let Some(why) = self.link.broken() {
            return Next::Broken(why);
        }
        if pes[0].owes_a_slice() {
            self.step_start = Instant::now();
            return Next::Step(0);
        }
        if let Some((i, due)) = self.first_held() {
            if Instant::now() >= due {
                return Next::Deliver(self.held.remove(i).1);
            }
        }
        if let Some(env) = self.pending.take() {
            if let Some(n) = self.arrived(env) {
                return n;
            }
        }
        while let Some(env) = self.link.try_recv(&pes[0]) {
            if let Some(n) = self.arrived(env) {
                return n;
            }
        }
        if pes[0].has_work() || pes[0].has_mail() || std::mem::take(&mut self.timed_out) {
            self.step_start = Instant::now();
            return Next::Step(0);
        }
        if self.held.is_empty() && self.link.deadlocked(&pes[0]) {
            return Next::Nothing;
        }
        Next::Wait
    }

    /// Waits for a message, at most until a held one or a send buffer is
    /// due (and IDLE_WAIT).
    fn wait(&mut self, pes: &[Pe]) {
        // A message already taken in is not to be overwritten by the next.
        if self.pending.is_some() {
            return;
        }
        let now = Instant::now();
        let mut wait_for = IDLE_WAIT;
        if let Some((_, due)) = self.first_held() {
            wait_for = wait_for.min(due.saturating_duration_since(now));
        }
        if let Some(due) = pes[0].packets_due() {
            let left = due - self.now(0);
            wait_for = wait_for.min(Duration::from_secs_f64(left.clamp(0.0, 1.0)));
        }
        let r = self.link.recv_timeout(&pes[0], wait_for);
        let waited = now.elapsed().as_secs_f64();
        if pes[0].has_blocked_threads() {
            self.times.blocked += waited;
        } else {
            self.times.idle += waited;
        }
        match r {
            Some(env) => self.pending = Some(env),
            None => self.timed_out = true,
        }
    }

    fn local(&self, _: PeId) -> usize {
        0
    }

    fn now(&self, _: usize) -> f64 {
        self.start.elapsed().as_secs_f64() + self.offset
    }

    fn receiving(&mut self, _: usize, _: &Envelope, _: &Pe) {}

    fn stepped(&mut self, _: usize, step: Step) {
        if matches!(step, Step::Ran(_) | Step::Sparked | Step::Done { .. }) {
            let now = self.now(0);
            let speed = self.grid.map_or(1.0, |g| g.speed_at(self.me, now));
            if speed < 1.0 {
                // A slower CPU: the slice takes 1/speed times as long.
                let took = self.step_start.elapsed().as_secs_f64();
                std::thread::sleep(Duration::from_secs_f64(took * (1.0 / speed - 1.0)));
            }
            self.times.busy += self.step_start.elapsed().as_secs_f64();
        }
    }

    fn post(&mut self, mut env: Envelope) {
        if let Some(g) = self.grid.filter(|g| !g.same_cluster(env.from, env.to)) {
            env.hold += Duration::from_secs_f64(g.latency(env.from, env.to));
        }
        self.link.send(env);
    }
}

/// Runs the program on `setup.npes` PEs, one OS thread each: PE 0, the
/// main one, is `pe0` on this thread. The main thread's value (or why the
/// run stopped), and `report` of every PE at its end (its times, its
/// clock).
pub fn run<T: Send>(
    setup: &Setup,
    pe0: &mut Pe,
    report: impl Fn(&mut Pe, PeTimes, f64) -> T + Sync,
) -> (Result<Ptr, Stop>, Vec<T>) {
    let n = setup.npes;
    let (tx, rx): (Vec<Outlet>, Vec<Inbox>) =
        (0..n).map(|_| crossbeam_channel::unbounded()).unzip();
    let census = Census::new(n);
    let start = Instant::now();
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..n)
            .map(|k| {
                let (rx, tx, census, report) = (&rx[k], &tx, &census, &report);
                std::thread::Builder::new()
                    .stack_size(64 << 20)
                    .spawn_scoped(s, move || {
                        let mut pe = setup.new_pe(Io::elsewhere(), k as u16);
                        let mailbox = rx.clone();
                        pe.poll_mail(Box::new(move || !mailbox.is_empty()));
                        let grid = setup.config.grid.as_ref();
                        let link = Channels { rx, tx };
                        let mut eng = OsThread::new(PeId(k as u16), link, start, grid);
                        if pe.init_cafs().is_ok() {
                            let pes = std::slice::from_mut(&mut pe);
                            let _ = drive(&mut eng, pes, census, None);
                        }
                        report(&mut pe, eng.times, eng.now(0))
                    })
                    .expect("a thread for a PE")
            })
            .collect();
        let link = Channels {
            rx: &rx[0],
            tx: &tx,
        };
        let mut eng = OsThread::new(PeId(0), link, start, setup.config.grid.as_ref());
        let mailbox = rx[0].clone();
        pe0.poll_mail(Box::new(move || !mailbox.is_empty()));
        let r = setup.start_main(pe0).and_then(|id| {
            let pes = std::slice::from_mut(pe0);
            drive(&mut eng, pes, &census, Some((0, id)))?
                .ok_or_else(|| Stop::Error("internal error: the main PE finished".into()))
        });
        for (k, t) in tx.iter().enumerate().skip(1) {
            let m = Control::Finish;
            let _ = t.send(Envelope::new(eng.me, PeId(k as u16), m.kind(), m.encode()));
        }
        let mut all = vec![report(pe0, eng.times, eng.now(0))];
        all.extend(handles.into_iter().map(|h| h.join().expect("a PE thread")));
        (r, all)
    })
}
