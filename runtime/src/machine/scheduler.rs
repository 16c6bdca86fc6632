//! The scheduler: a PE's round (`Pe::step`), threads made, blocked and
//! woken, and the test the engines ask (`has_work`, `quiescent`).

use crate::machine::heap::{h_kind, has_waiters_flag, header, kind, Ptr};
use crate::machine::pe::{err, Pe, Stop};
use crate::machine::thread::{Frame, State, Thread};
use crate::obs::event::{Event, StopWhy};
use crate::parallel::policy::Load;
use std::sync::atomic::Ordering;

/// How a time slice ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceEnd {
    /// Its budget ran out, or mail came.
    Yield,
    Blocked,
    Finished,
    /// It called `yield` (machine::concurrency).
    Yielded,
    /// It sleeps (`threadDelay`) until `Pe::suspend`'s deadline.
    Sleeping,
}

/// What one scheduler round did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Ran a thread for a time slice of this much work: its reductions,
    /// plus what costly primitives charged (`Pe::charge`).
    Ran(u64),
    /// Made a thread of a spark.
    Sparked,
    /// Nothing to run.
    Idle,
    /// The main thread ended with `value`, in a slice of this much `work`
    /// (as `Ran`'s).
    Done { value: Ptr, work: u64 },
}

impl Pe<'_, '_> {
    /// Charges the running slice `reductions` more of work than it
    /// counts: a primitive whose cost grows with its operands (the sim's
    /// clock advances by work, the statistics count reductions).
    pub(crate) fn charge(&mut self, reductions: u64) {
        self.slice_work += reductions;
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
        self.obs.emit(Event::ThreadCreate { thread: id });
        self.live_threads += 1;
        id
    }

    /// The black hole `bh` was updated: its blocked threads run again, and
    /// the FETCHes waiting for it are answered.
    pub fn wake(&mut self, bh: Ptr) {
        self.gum.wake_fetches(bh);
        let mut i = 0;
        while i < self.blocked.len() {
            let id = self.blocked[i];
            let th = &mut self.threads[id as usize];
            if th.blocked_on == bh {
                th.state = State::Runnable;
                th.blocked_on = self.l.dummy;
                self.blocked.swap_remove(i);
                self.run_queue.push_back(id);
                self.obs.emit(Event::ThreadWakeup { thread: id });
            } else {
                i += 1;
            }
        }
    }

    /// Overwrites the black hole `th` with its value `v` (small raw values
    /// are copied, others become an indirection) and wakes its waiters
    /// (Note [Waiters flag]).
    #[inline]
    pub fn update(&mut self, th: Ptr, v: Ptr) {
        let i = th.0 as usize;
        let mem = &mut self.heap.mem;
        let waiters = has_waiters_flag(h_kind(mem[i])) && mem[i + 1] != 0;
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
            let p = self.caf_thunk(k);
            self.cafs.push(p);
        }
        Ok(())
    }

    /// A new, unshared thunk of CAF `k` (2 words ensured).
    pub fn caf_thunk(&mut self, k: usize) -> Ptr {
        let h = header(kind::THUNK, 1, self.l.caf_sc[k]);
        self.node(h, &[self.l.dummy.0 as u64])
    }

    /// One round of the scheduler: answer waiting FETCHes, then run a
    /// thread for a time slice, else turn a spark into a thread, else go
    /// fishing (and report the PE idle). `main` is the main thread's id on
    /// the main PE.
    pub fn step(&mut self, main: Option<u32>) -> Result<Step, Stop> {
        self.handled_in_a_row = 0;
        if let Some(i) = &self.interrupt {
            if i.load(Ordering::Relaxed) {
                return err("interrupted");
            }
        }
        self.main_thread = main.or(self.main_thread);
        self.answer_fetches()?;
        self.wake_sleepers();
        let id = match self.run_queue.pop_front() {
            Some(id) => id,
            None => {
                if self.convert_spark() {
                    return Ok(Step::Sparked);
                }
                self.go_fishing();
                return Ok(Step::Idle);
            }
        };
        let mut t = std::mem::replace(&mut self.threads[id as usize], Thread::empty());
        let budget = match self.cut_short.take() {
            Some((cut, left)) if cut == id => left,
            _ => self.tuning.slice,
        };
        self.obs.emit(Event::ThreadRun { thread: id });
        self.slice_reductions = 0;
        self.slice_work = 0;
        let r = self.run_slice(&mut t, budget);
        let sleep = self.suspend.take();
        let reductions = self.slice_reductions;
        let work = reductions + self.slice_work;
        let stack = (t.ptrs.len() + t.vals.len() * 2 + t.frames.len() * 4) as u64;
        let why = match r {
            Ok(SliceEnd::Yield | SliceEnd::Yielded) => StopWhy::Yielded,
            Ok(SliceEnd::Sleeping) => StopWhy::BlockedOnDelay,
            Ok(SliceEnd::Blocked) if self.heap.kind(t.blocked_on) == kind::BLACKHOLE => {
                StopWhy::BlockedOnBlackHole
            }
            Ok(SliceEnd::Blocked) if self.heap.kind(t.blocked_on) == kind::MUTVAR => {
                StopWhy::BlockedOnMVar
            }
            Ok(SliceEnd::Blocked) => StopWhy::BlockedOnFetch,
            Ok(SliceEnd::Finished) => StopWhy::Finished,
            Err(_) => StopWhy::Failed,
        };
        self.obs.emit(Event::ThreadStop {
            thread: id,
            reductions,
            stack_words: stack,
            why,
        });
        let end = match r {
            Ok(e) => e,
            // An exception with a handler: the thread goes on there.
            Err(Stop::Error(msg)) if self.catch(&mut t, &msg)? => {
                self.run_queue.push_front(id);
                self.threads[id as usize] = t;
                return Ok(Step::Ran(work));
            }
            Err(Stop::Error(msg)) if Some(id) != main => {
                // A spark's evaluation failed: nobody asked for it yet. The
                // thunks it was evaluating raise the error when entered
                // (as in GHC), and the thread ends quietly. An Eden
                // sending thread sends the error on.
                self.eden_thread_failed(&t, &msg)?;
                self.eden_thread_ended(id);
                self.speculation_failed(&t, msg);
                self.live_threads -= 1;
                self.free_ids.push(id);
                return Ok(Step::Ran(work));
            }
            Err(e) => {
                self.threads[id as usize] = t;
                return Err(e);
            }
        };
        if stack as usize * 4 > self.heap_limit_bytes.max(1 << 30) {
            return err("stack overflow");
        }
        let ran = Step::Ran(work);
        match end {
            // A slice cut short by mail goes on first, after the mail,
            // with what was left of it: with a fresh slice each time, a
            // thread whose slices mail kept cutting (an idle PE fishing
            // again and again) kept the PE from every other thread
            // (par_eden_nested on 2 threads PEs: 0.07 s on 1 PE, 3 s).
            SliceEnd::Yield if reductions < budget => {
                self.cut_short = Some((id, budget - reductions));
                self.run_queue.push_front(id);
                self.threads[id as usize] = t;
            }
            SliceEnd::Yield | SliceEnd::Yielded => {
                self.run_queue.push_back(id);
                self.threads[id as usize] = t;
            }
            SliceEnd::Sleeping => {
                if let Some(crate::machine::concurrency::Suspend::Sleep(until)) = sleep {
                    self.sleep(id, until);
                }
                self.threads[id as usize] = t;
            }
            SliceEnd::Blocked => {
                self.blocked.push(id);
                self.threads[id as usize] = t;
            }
            SliceEnd::Finished => {
                self.live_threads -= 1;
                self.eden_thread_ended(id);
                if Some(id) == main {
                    let r = t.result;
                    self.threads[id as usize] = t;
                    return Ok(Step::Done { value: r, work });
                }
                self.free_ids.push(id);
            }
        }
        while self.live_threads < self.tuning.eager_threads && self.convert_spark() {}
        let load = Load {
            runnable: self.run_queue.len(),
            sparks: self.sparks.len(),
        };
        // A PE left without work (its threads wait, say for FETCHes) is
        // idle: it fishes now, not at its next idle step, which comes only
        // with a message. Else a PE whose one thread waits for data asks
        // for its next spark only when the data has come, and drops the
        // data between sparks: matmult 250 on 2 threads PEs re-fetched the
        // columns for each row (1,700-4,900 FETCHes, 1.2-1.7 s; 300-600 and
        // 0.9 s now).
        if self.policy.fish_early(load) || !self.has_work() {
            self.go_fishing();
        }
        Ok(ran)
    }

    /// Turns the thunks under evaluation by `t` into RAISE nodes for `msg`.
    fn speculation_failed(&mut self, t: &Thread, msg: String) {
        self.raise_thunks(&t.frames, &t.ptrs, msg);
    }

    /// Turns the thunks of these update frames (black holes, their thunks
    /// on `ptrs`) into RAISE nodes for `msg`, waking their waiters.
    pub(crate) fn raise_thunks(&mut self, frames: &[Frame], ptrs: &[Ptr], msg: String) {
        let k = self.raised.len() as u32;
        self.raised.push(msg);
        for f in frames {
            if f.kind != crate::machine::thread::fk::UPDATE {
                continue;
            }
            let p = ptrs[f.pbase as usize];
            let i = p.0 as usize;
            let h = self.heap.mem[i];
            if h_kind(h) != kind::BLACKHOLE {
                continue;
            }
            let waiters = self.heap.waiters(p);
            self.heap.mem[i] = header(kind::RAISE, crate::machine::heap::h_size(h) as u32, k);
            if waiters {
                self.wake(p);
            }
        }
    }

    /// Whether the PE has work of its own: a thread to run, a spark it may
    /// turn into one, a FETCH to answer (the engines step such PEs).
    pub fn has_work(&self) -> bool {
        !self.run_queue.is_empty()
            || !self.sleeping.is_empty()
            || self.gum.has_pending()
            || (!self.sparks.is_empty() && self.live_threads < self.tuning.thread_limit)
    }

    /// Whether nothing can happen on this PE until a message other than a
    /// FISH arrives: no work, and no spark it would give to a FISH (the
    /// driver's deadlock test, engine/mod.rs).
    pub fn quiescent(&self) -> bool {
        !self.has_work() && !self.could_spare_spark()
    }
}
