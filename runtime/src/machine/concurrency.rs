//! Concurrent Haskell on a PE (Control.Concurrent): forked threads, MVars,
//! `yield`, `threadDelay` and `killThread`.
//!
//! A forked thread is an ordinary thread of the PE that forks it (the main
//! PE, where IO happens), scheduled among the threads made from sparks and
//! never moved; `forkIO` returns its id. The program ends when the main
//! thread does, as in GHC.
//!
//! An MVar is a MUTVAR whose info word says that it is one and whether it
//! holds a value (`MVAR_FULL`, `MVAR_EMPTY`; an IORef's is 0), its payload
//! the value (the unit node while empty). So the collector, packing and
//! the REPL's saved values treat it as the cell it is. A thread that must
//! wait (a take from an empty MVar, a put into a full one) blocks on the
//! MVar's node as it would on a black hole, and its primitive runs again
//! when it is woken: a change of the MVar's state wakes all its waiters,
//! and those that still cannot go on block again. GHC keeps a FIFO queue
//! per MVar and wakes one thread; the difference is fairness only, and
//! programs rarely have more than a few threads on one MVar.
//!
//! A primitive that stops its thread says so in `Pe::suspend`, which the
//! reducer reads after every primitive and turns into the slice's end
//! (the scheduler takes it then).
//! A sleeping thread (`threadDelay`) waits in `Pe::sleeping` for its wall
//! clock deadline; while one sleeps the PE has work (the engines do not
//! take it for deadlocked), and a PE with nothing else to do naps until
//! the first deadline.

use crate::host::Instant;
use crate::machine::heap::{h_info, header, kind, Ptr};
use crate::machine::pe::{err, Pe, Stop};
use crate::machine::scheduler::SliceEnd;
use crate::machine::thread::{State, Thread};
use std::time::Duration;

/// The info word of a MUTVAR that is an MVar holding a value.
pub const MVAR_FULL: u32 = 1;
/// The info word of a MUTVAR that is an empty MVar.
pub const MVAR_EMPTY: u32 = 2;

/// The longest nap of an idle PE whose threads sleep: short, so that a
/// message that comes meanwhile waits little.
const NAP: Duration = Duration::from_millis(1);

/// When a sleeping thread wakes: on the host's clock (`crate::host`: the
/// browser build has no `std::time::Instant`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Deadline {
    from: Instant,
    wait: Duration,
}

impl Deadline {
    /// How long until it is due (zero once it is).
    fn left(&self) -> Duration {
        self.wait.saturating_sub(self.from.elapsed())
    }
}

/// How a primitive stops its thread (`Pe::suspend`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Suspend {
    /// It waits on the node in `Thread::blocked_on`; the primitive runs
    /// again when the thread is woken.
    Block,
    /// `yield`: the slice ends, the thread goes to the back of the queue.
    Yield,
    /// `threadDelay`: the thread sleeps until the deadline.
    Sleep(Deadline),
}

impl Suspend {
    pub fn slice_end(self) -> SliceEnd {
        match self {
            Suspend::Block => SliceEnd::Blocked,
            Suspend::Yield => SliceEnd::Yielded,
            Suspend::Sleep(_) => SliceEnd::Sleeping,
        }
    }
}

/// What an MVar operation did.
pub enum MVarOp {
    /// It went through; for a take or a read, with the value.
    Done(Option<Ptr>),
    /// It could not: the MVar was empty (take, read) or full (put).
    Refused,
}

/// Lets the host's thread sleep (the browser's cannot: it goes on).
fn nap(d: Duration) {
    #[cfg(not(target_arch = "wasm32"))]
    if !d.is_zero() {
        std::thread::sleep(d);
    }
    #[cfg(target_arch = "wasm32")]
    let _ = d;
}

/// GHC's BlockedIndefinitelyOnMVar, as `show` writes it.
pub const BLOCKED_ON_MVAR: &str = "thread blocked indefinitely in an MVar operation";

impl Pe<'_, '_> {
    /// The MVar in `ptrs[slot]` (evaluated) and whether it is full.
    fn mvar(&self, t: &Thread, slot: usize) -> Result<(Ptr, bool), Stop> {
        let m = self.heap.deref(t.ptrs[slot]);
        let h = self.heap.hdr(m);
        match (crate::machine::heap::h_kind(h), h_info(h)) {
            (kind::MUTVAR, MVAR_FULL) => Ok((m, true)),
            (kind::MUTVAR, MVAR_EMPTY) => Ok((m, false)),
            (kind::MUTREF, _) => err("an MVar used on a PE other than its own"),
            _ => err("internal error: an MVar operation on something else"),
        }
    }

    /// A new MVar holding `x`, or empty (2 words ensured).
    pub(crate) fn new_mvar(&mut self, x: Option<Ptr>) -> Ptr {
        let (info, v) = match x {
            Some(x) => (MVAR_FULL, x),
            None => (MVAR_EMPTY, self.l.unit_node),
        };
        self.node(header(kind::MUTVAR, 1, info), &[v.0 as u64])
    }

    fn set_mvar(&mut self, m: Ptr, v: Option<Ptr>) {
        let (info, v) = match v {
            Some(v) => (MVAR_FULL, v),
            None => (MVAR_EMPTY, self.l.unit_node),
        };
        self.heap.mem[m.0 as usize] = header(kind::MUTVAR, 1, info);
        self.heap.set_word(m, 0, v.0 as u64);
        // Its waiters try again.
        self.wake(m);
    }

    /// Takes (`take`) or reads the value of the MVar in `ptrs[slot]`.
    pub(crate) fn mvar_take(
        &mut self,
        t: &Thread,
        slot: usize,
        take: bool,
    ) -> Result<MVarOp, Stop> {
        let (m, full) = self.mvar(t, slot)?;
        if !full {
            return Ok(MVarOp::Refused);
        }
        let v = self.heap.field(m, 0);
        if take {
            self.set_mvar(m, None);
        }
        Ok(MVarOp::Done(Some(v)))
    }

    /// Puts the value in `ptrs[x]` into the MVar in `ptrs[slot]`.
    pub(crate) fn mvar_put(&mut self, t: &Thread, slot: usize, x: usize) -> Result<MVarOp, Stop> {
        let (m, full) = self.mvar(t, slot)?;
        if full {
            return Ok(MVarOp::Refused);
        }
        let v = t.ptrs[x];
        self.set_mvar(m, Some(v));
        Ok(MVarOp::Done(None))
    }

    /// The thread `t` waits on the MVar in `ptrs[slot]`.
    pub(crate) fn block_on_mvar(&mut self, t: &mut Thread, slot: usize) {
        t.blocked_on = self.heap.deref(t.ptrs[slot]);
        t.state = State::Blocked;
        self.suspend = Some(Suspend::Block);
    }

    /// A deadlock in which the main thread waits on an MVar inside a
    /// handler: as in GHC, the thread gets BlockedIndefinitelyOnMVar
    /// (its handler runs, and the program goes on) and true. False, with
    /// nothing changed, for any other deadlock.
    pub fn raise_blocked_indefinitely(&mut self) -> Result<bool, Stop> {
        let Some(id) = self.main_thread else {
            return Ok(false);
        };
        let Some(th) = self.threads.get(id as usize) else {
            return Ok(false);
        };
        if th.state != State::Blocked
            || self.heap.kind(th.blocked_on) != kind::MUTVAR
            || !th
                .frames
                .iter()
                .any(|f| f.kind == crate::machine::thread::fk::CATCH)
        {
            return Ok(false);
        }
        let mut t = std::mem::replace(&mut self.threads[id as usize], Thread::empty());
        let caught = self.catch(&mut t, BLOCKED_ON_MVAR);
        let woken = matches!(caught, Ok(true));
        if woken {
            t.state = State::Runnable;
            t.blocked_on = self.l.dummy;
        }
        self.threads[id as usize] = t;
        caught?;
        if woken {
            self.blocked.retain(|&k| k != id);
            self.run_queue.push_back(id);
            self.obs
                .emit(crate::obs::event::Event::ThreadWakeup { thread: id });
        }
        Ok(woken)
    }

    /// The error of a deadlock on the main PE: GHC's when the main thread
    /// waits on an MVar that no thread will fill (or empty), else
    /// `<<loop>>` (a thunk that demands itself, here or through others).
    pub fn deadlock(&self) -> Stop {
        let on_mvar = self
            .main_thread
            .and_then(|id| self.threads.get(id as usize))
            .is_some_and(|th| {
                th.state == State::Blocked && self.heap.kind(th.blocked_on) == kind::MUTVAR
            });
        Stop::Error(if on_mvar {
            BLOCKED_ON_MVAR.into()
        } else {
            crate::engine::LOOP.into()
        })
    }

    /// `forkIO`: a thread of this PE (and of `t`'s Eden process, if any)
    /// running the IO action in `ptrs[act]`; its id.
    pub(crate) fn fork(&mut self, t: &Thread, act: usize) -> u32 {
        let (a, unit) = (t.ptrs[act], self.l.unit_node);
        let id = self.spawn(self.l.main_entry, &[a, unit]);
        if let Some(p) = self.process_of(t) {
            self.join_process(id, p);
        }
        id
    }

    /// `threadDelay`: `t` sleeps for `micros` microseconds.
    pub(crate) fn delay(&mut self, micros: i64) {
        self.suspend = Some(Suspend::Sleep(Deadline {
            from: Instant::now(),
            wait: Duration::from_micros(micros.max(0) as u64),
        }));
    }

    /// The thread `id` of the last slice sleeps until `until`.
    pub(crate) fn sleep(&mut self, id: u32, until: Deadline) {
        self.sleeping.push((until, id));
    }

    /// Sleeping threads whose time has come run again. When the PE has
    /// nothing else to do, it first naps toward the earliest deadline.
    pub(crate) fn wake_sleepers(&mut self) {
        if self.sleeping.is_empty() {
            return;
        }
        if self.run_queue.is_empty() && self.sparks.is_empty() && self.inbox.is_empty() {
            let first = self.sleeping.iter().map(|s| s.0.left()).min();
            nap(first.unwrap_or_default().min(NAP));
        }
        let mut i = 0;
        while i < self.sleeping.len() {
            if self.sleeping[i].0.left().is_zero() {
                let (_, id) = self.sleeping.swap_remove(i);
                self.threads[id as usize].state = State::Runnable;
                self.run_queue.push_back(id);
                self.obs
                    .emit(crate::obs::event::Event::ThreadWakeup { thread: id });
            } else {
                i += 1;
            }
        }
    }

    /// `killThread id` from the thread `t`: the thread ends wherever it
    /// is. The thunks it was evaluating raise "thread killed" when
    /// demanded (GHC would leave them to be evaluated again). A thread
    /// that has ended already, or is not of this PE, is left alone, and so
    /// is the main thread (GHC would end the program). Thread ids are
    /// reused once their thread has ended: a stale id can name another.
    pub(crate) fn kill_thread(&mut self, t: &Thread, id: i64) -> Result<(), Stop> {
        if id == t.id as i64 {
            return err("thread killed");
        }
        let Ok(id) = u32::try_from(id) else {
            return Ok(());
        };
        let Some(th) = self.threads.get(id as usize) else {
            return Ok(());
        };
        if th.id != id || th.state == State::Finished || self.main_thread == Some(id) {
            return Ok(());
        }
        self.run_queue.retain(|&k| k != id);
        self.blocked.retain(|&k| k != id);
        self.sleeping.retain(|s| s.1 != id);
        let th = std::mem::replace(&mut self.threads[id as usize], Thread::empty());
        self.raise_thunks(&th.frames, &th.ptrs, "thread killed".into());
        self.eden_thread_ended(id);
        self.live_threads -= 1;
        self.free_ids.push(id);
        Ok(())
    }
}
