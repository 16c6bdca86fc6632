//! The `threads` engine (DESIGN.md "Engines"): one OS thread per PE, each
//! with its own heap; messages are bytes over crossbeam channels. Nothing
//! else is shared but the loaded program and three counters for the
//! deadlock test.
//!
//! The main PE (0, on the calling thread) ends the run: when its main
//! thread ends, on an error anywhere (another PE sends FAIL), or when every
//! PE is idle, no message but fish is on its way and nothing changed for a
//! while: then every thread waits for a black hole that only a waiting
//! thread could update, which is reported as `<<loop>>`, as on one PE.

use crate::machine::heap::Ptr;
use crate::machine::pe::{Pe, Step, Stop};
use crate::parallel::message::{is_fish, Message};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long an idle PE waits for a message before looking again.
const IDLE_WAIT: Duration = Duration::from_millis(2);
/// How long everything must stay idle before the run is a deadlock.
const QUIET: Duration = Duration::from_millis(50);

/// What PEs share to find out that they are all stuck.
pub struct Shared {
    idle: Vec<AtomicBool>,
    /// Messages other than FISH sent and not yet handled.
    in_flight: AtomicUsize,
    /// Bumped by every slice that did something.
    epoch: AtomicU64,
}

impl Shared {
    pub fn new(n: usize) -> Shared {
        Shared {
            idle: (0..n).map(|_| AtomicBool::new(false)).collect(),
            in_flight: AtomicUsize::new(0),
            epoch: AtomicU64::new(0),
        }
    }

    fn quiet(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0
            && self.idle.iter().all(|i| i.load(Ordering::SeqCst))
    }
}

/// A PE's inbox: encoded messages.
pub type Inbox = Receiver<Vec<u8>>;
/// The way into a PE's inbox.
pub type Outlet = Sender<Vec<u8>>;

/// The channels of a run: one receiver per PE, everyone's senders.
pub fn channels(n: usize) -> (Vec<Outlet>, Vec<Inbox>) {
    (0..n).map(|_| crossbeam_channel::unbounded()).unzip()
}

/// Time one PE spent.
#[derive(Clone, Copy, Debug, Default)]
pub struct PeTimes {
    pub busy: Duration,
    pub idle: Duration,
    /// Idle while threads waited for other PEs.
    pub blocked: Duration,
}

impl PeTimes {
    /// Busy, idle and blocked, in seconds.
    pub fn seconds(&self) -> [f64; 3] {
        [self.busy, self.idle, self.blocked].map(|d| d.as_secs_f64())
    }
}

struct Node<'a, 'p, 'io> {
    pe: &'a mut Pe<'p, 'io>,
    rx: &'a Inbox,
    tx: &'a [Outlet],
    shared: &'a Shared,
    times: PeTimes,
    /// Our fish, home empty, held back until the fish delay has passed.
    fish_home: Option<(Instant, Vec<u8>)>,
}

impl<'a, 'p, 'io> Node<'a, 'p, 'io> {
    fn new(pe: &'a mut Pe<'p, 'io>, rx: &'a Inbox, tx: &'a [Outlet], shared: &'a Shared) -> Self {
        Node {
            pe,
            rx,
            tx,
            shared,
            times: PeTimes::default(),
            fish_home: None,
        }
    }

    fn me(&self) -> usize {
        self.pe.id().0 as usize
    }

    fn flush(&mut self) {
        for (to, bytes) in std::mem::take(&mut self.pe.gum.outbox) {
            if !is_fish(&bytes) {
                self.shared.in_flight.fetch_add(1, Ordering::SeqCst);
            }
            // A PE that has left no longer listens: nothing to do.
            let _ = self.tx[to.0 as usize].send(bytes);
        }
    }

    fn handle(&mut self, bytes: Vec<u8>) -> Result<(), Stop> {
        let delay = self.pe.tuning.fish_delay;
        if !delay.is_zero() && crate::parallel::message::fish_origin(&bytes) == Some(self.pe.id()) {
            self.fish_home = Some((Instant::now() + delay, bytes));
            return Ok(());
        }
        self.shared.idle[self.me()].store(false, Ordering::SeqCst);
        let r = self.pe.receive(&bytes);
        self.flush();
        if !is_fish(&bytes) {
            self.shared.in_flight.fetch_sub(1, Ordering::SeqCst);
        }
        r
    }

    /// One round: the messages that are there, then a slice (or, idle,
    /// wait for a message). Some(v) when the main thread ended.
    fn round(&mut self, main: Option<u32>) -> Result<Option<Ptr>, Stop> {
        while let Ok(b) = self.rx.try_recv() {
            self.handle(b)?;
        }
        if let Some((due, _)) = &self.fish_home {
            if Instant::now() >= *due {
                let (_, b) = self.fish_home.take().unwrap();
                self.shared.idle[self.me()].store(false, Ordering::SeqCst);
                self.pe.receive(&b)?;
                self.flush();
            }
        }
        let start = Instant::now();
        let s = self.pe.step(main)?;
        self.flush();
        match s {
            Step::Done(v) => return Ok(Some(v)),
            Step::Ran(_) => {
                self.times.busy += start.elapsed();
                self.shared.epoch.fetch_add(1, Ordering::Relaxed);
            }
            Step::Idle => {
                if !self.pe.has_work() {
                    self.shared.idle[self.me()].store(true, Ordering::SeqCst);
                    let wait = Instant::now();
                    let wait_for = match &self.fish_home {
                        Some((due, _)) => due.saturating_duration_since(wait).min(IDLE_WAIT),
                        None => IDLE_WAIT,
                    };
                    let r = self.rx.recv_timeout(wait_for);
                    if self.pe.blocked.is_empty() {
                        self.times.idle += wait.elapsed();
                    } else {
                        self.times.blocked += wait.elapsed();
                    }
                    match r {
                        Ok(b) => self.handle(b)?,
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => {}
                    }
                }
            }
        }
        Ok(None)
    }
}

/// Runs a PE other than the main one until FINISH. An error is sent to the
/// main PE, and the PE waits for the FINISH that follows.
pub fn run_other(pe: &mut Pe, rx: &Inbox, tx: &[Outlet], shared: &Shared) -> PeTimes {
    let mut node = Node::new(pe, rx, tx, shared);
    while !node.pe.gum.finished {
        if let Err(e) = node.round(None) {
            let message = match e {
                Stop::Error(m) => m,
                Stop::Exit(c) => format!("internal error: exit {c} on PE {}", node.me()),
            };
            let _ = tx[0].send(Message::Fail { message }.encode());
            node.shared.idle[node.me()].store(true, Ordering::SeqCst);
            // Wait for the end (and keep the counters honest).
            while let Ok(b) = rx.recv() {
                if Message::decode(&b).is_ok_and(|m| m == Message::Finish) {
                    break;
                }
                if !is_fish(&b) {
                    shared.in_flight.fetch_sub(1, Ordering::SeqCst);
                }
            }
            break;
        }
    }
    node.times
}

/// Runs the main PE until its main thread ends, an error, or a deadlock;
/// then tells every other PE to finish.
pub fn run_main(
    pe: &mut Pe,
    main: u32,
    rx: &Inbox,
    tx: &[Outlet],
    shared: &Shared,
) -> (Result<Ptr, Stop>, PeTimes) {
    let mut node = Node::new(pe, rx, tx, shared);
    let mut quiet_since: Option<(Instant, u64)> = None;
    let result = loop {
        match node.round(Some(main)) {
            Ok(Some(v)) => break Ok(v),
            Ok(None) => {}
            Err(e) => break Err(e),
        }
        if shared.quiet() && !node.pe.has_work() {
            let epoch = shared.epoch.load(Ordering::SeqCst);
            match quiet_since {
                Some((t, e)) if e == epoch => {
                    if t.elapsed() > QUIET {
                        break Err(Stop::Error("<<loop>>".into()));
                    }
                }
                _ => quiet_since = Some((Instant::now(), epoch)),
            }
        } else {
            quiet_since = None;
        }
    };
    for (k, t) in tx.iter().enumerate() {
        if k != 0 {
            let _ = t.send(Message::Finish.encode());
        }
    }
    (result, node.times)
}
