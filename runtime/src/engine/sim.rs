//! The `sim` engine (GranSim-like, docs/design.md "Engines"): every PE in one
//! OS thread, in virtual time, deterministically.
//!
//! Each PE has a clock. Running a slice advances it by the reductions done
//! over the PE's speed (a PE of speed 1.0 does the grid's
//! `reductions_per_second`, 20 M unless a machine file says otherwise), and
//! over the machine's contention while that many PEs are busy; handling a
//! message (a packet of several, `parallel::protocol::packet`, counts as
//! one) costs a fixed time plus the packed graph's words, a collection its
//! words copied, an idle PE's waking up a fixed time, and sending a
//! message what the grid says (nothing by default): the grid's
//! [`Costs`](crate::engine::grid::Costs). A PE's network
//! interface puts one message on the wire at a time, for size / bandwidth;
//! a message sent at time t goes on the wire when the interface is free (t
//! or later), arrives the latency after it is off the wire, and never
//! before an earlier message on the same link. The engine always
//! does the earliest thing next: deliver the earliest message, or run the
//! PE whose clock is earliest among those with work, ties broken by PE
//! number and send order, so the same program, grid and seed give the same
//! run. An idle PE's clock jumps to its next message.
//!
//! With `--faults SEED` the network and the PEs misbehave on top of that
//! (`faults`): messages delayed at random (a pair's own still in order),
//! congested links, stalled PEs, duplicate FISH.

use crate::engine::faults::{FaultCounts, Faults};
use crate::engine::grid::Grid;
use crate::engine::{drive, Census, Engine, Next, PeTimes};
use crate::machine::heap::Ptr;
use crate::machine::pe::{Pe, Stop};
use crate::machine::scheduler::Step;
use crate::parallel::ids::PeId;
use crate::parallel::protocol::envelope::Envelope;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

/// A message on its way.
struct InFlight {
    time: f64,
    seq: u64,
    env: Envelope,
}

impl PartialEq for InFlight {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for InFlight {
    /// Earliest first (BinaryHeap is a max-heap).
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.total_cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// What a simulated run measured.
pub struct SimTimes {
    /// The virtual time at which the main thread ended.
    pub virtual_time: f64,
    pub per_pe: Vec<PeTimes>,
    /// The faults injected, on a run with `--faults`.
    pub faults: Option<FaultCounts>,
}

/// The simulated machine: every PE's clock and the messages on their way.
struct Sim<'g> {
    grid: &'g Grid,
    clock: Vec<f64>,
    busy: Vec<f64>,
    blocked: Vec<f64>,
    mail: BinaryHeap<InFlight>,
    seq: u64,
    /// When the last message on each link arrives (links are FIFO).
    last_on_link: HashMap<(u16, u16), f64>,
    /// When each PE's network interface has put its last message on the
    /// wire.
    wire_free: Vec<f64>,
    /// When the message being delivered arrived.
    arrival: f64,
    /// PEs with work when the slice being run began (for the contention).
    busy_pes: usize,
    faults: Option<Faults>,
    /// Reductions so far, all PEs, and when to tell the host next
    /// (`host::progress`: the browser's page shows them during a run).
    reductions: u64,
    next_report: u64,
}

/// Reductions between two reports of progress: about a tenth of a second
/// in the browser.
const REPORT_EVERY: u64 = 1 << 20;

impl Engine for Sim<'_> {
    /// The earliest thing: deliver a message, or step the PE with work (or
    /// mail) and the earliest clock.
    fn next(&mut self, pes: &[Pe]) -> Next {
        let clock = &self.clock;
        let worker = (0..pes.len())
            .filter(|&p| pes[p].has_work() || pes[p].has_mail())
            .min_by(|&a, &b| clock[a].total_cmp(&clock[b]).then(a.cmp(&b)));
        let deliver = match (self.mail.peek(), worker) {
            (None, None) => return Next::Nothing,
            (Some(m), Some(w)) => m.time <= clock[w],
            (m, _) => m.is_some(),
        };
        if deliver {
            let to = self.mail.peek().unwrap().env.to.0 as usize;
            if pes[to].owes_a_slice() {
                return Next::Step(to);
            }
            let m = self.mail.pop().unwrap();
            self.arrival = m.time;
            Next::Deliver(m.env)
        } else {
            if !self.grid.costs.contention.is_empty() {
                self.busy_pes = pes.iter().filter(|p| p.has_work()).count();
            }
            Next::Step(worker.unwrap())
        }
    }

    fn wait(&mut self, _: &[Pe]) {}

    fn local(&self, id: PeId) -> usize {
        id.0 as usize
    }

    fn arrived(&self, _: usize) -> f64 {
        self.arrival
    }

    fn now(&self, p: usize) -> f64 {
        self.clock[p]
    }

    /// What `stepped` will charge a reduction of PE `p` now.
    fn per_reduction(&self, p: usize) -> Option<f64> {
        let costs = &self.grid.costs;
        let speed = self.grid.speed_at(PeId(p as u16), self.clock[p]);
        Some(1.0 / costs.reductions_per_second / costs.contention(self.busy_pes) / speed)
    }

    /// An idle PE's clock jumps to the message, and it wakes up; handling
    /// it costs time.
    fn receiving(&mut self, p: usize, env: &Envelope, pe: &Pe) {
        let t = self.arrival;
        let costs = &self.grid.costs;
        if t > self.clock[p] {
            if pe.has_blocked_threads() {
                self.blocked[p] += t - self.clock[p] + costs.wake;
            }
            self.clock[p] = t + costs.wake;
        }
        let cost = costs.message + costs.message_word * (env.size() / 8) as f64;
        let speed = self.grid.speed_at(env.to, self.clock[p]);
        self.clock[p] += cost / speed;
        self.busy[p] += cost / speed;
    }

    fn stepped(&mut self, p: usize, step: Step) {
        let costs = &self.grid.costs;
        let dt = match step {
            // (A slice that blocked at once costs what a new thread does.)
            Step::Ran(0) | Step::Sparked => costs.thread,
            // (The main thread's last slice counts too: a run of one
            // slice took no time before.)
            Step::Ran(work) | Step::Done { work, .. } => {
                self.reductions += work;
                if self.reductions >= self.next_report {
                    self.next_report = self.reductions + REPORT_EVERY;
                    crate::host::progress(self.clock[p], self.reductions);
                }
                work as f64 / costs.reductions_per_second / costs.contention(self.busy_pes)
            }
            Step::Idle => return,
        } / self.grid.speed_at(PeId(p as u16), self.clock[p]);
        self.clock[p] += dt;
        self.busy[p] += dt;
        if let Some(stall) = self.faults.as_mut().and_then(Faults::stall) {
            self.clock[p] += stall;
        }
    }

    fn collected(&mut self, p: usize, words: u64) {
        let costs = &self.grid.costs;
        let dt = words as f64 * costs.gc_word
            / costs.contention(self.busy_pes)
            / self.grid.speed_at(PeId(p as u16), self.clock[p]);
        self.clock[p] += dt;
        self.busy[p] += dt;
    }

    /// Costs the sender the grid's sending cost, and leaves when that is
    /// paid and the sender's interface is free; takes the size over the
    /// bandwidth on the wire, during which the interface sends nothing
    /// else, then the link's latency; never arrives before an earlier
    /// message on the same link; a held message that much later (without
    /// holding up the link).
    ///
    /// Before the interface was modelled, messages overlapped on the wire
    /// without limit: echo of 1,000-Int elements on beowulf8 carried 560 MB
    /// each way in 20.3 s, 220 Mbit/s through a 100 Mbit/s network, and
    /// chunking never stopped paying (docs/eden.md, "The echo break-even").
    fn post(&mut self, env: Envelope) {
        let (from, to) = (env.from, env.to);
        let p = from.0 as usize;
        let cost =
            self.grid.send_cost(from, to, env.size()) / self.grid.speed_at(from, self.clock[p]);
        self.clock[p] += cost;
        self.busy[p] += cost;
        let left = env.sent_at.max(self.clock[p]).max(self.wire_free[p]);
        self.wire_free[p] = left + self.grid.wire_time(from, to, env.size());
        let transit = self.grid.transit(from, to, env.size());
        let copy = self.faults.as_mut().and_then(|f| f.duplicate(&env));
        self.launch(env, left + transit);
        if let Some(copy) = copy {
            self.launch(copy, left + transit);
        }
    }
}

impl Sim<'_> {
    /// Puts `env` in the mail to arrive at `t` (with the faults' delay),
    /// but not before an earlier message on its link, and held as it asks.
    fn launch(&mut self, env: Envelope, mut t: f64) {
        let (from, to) = (env.from, env.to);
        if let Some(f) = &mut self.faults {
            t += f.delay(self.grid, from, to, t);
        }
        let link = self.last_on_link.entry((from.0, to.0)).or_insert(0.0);
        t = t.max(*link);
        *link = t;
        t += env.hold.as_secs_f64();
        self.seq += 1;
        self.mail.push(InFlight {
            time: t,
            seq: self.seq,
            env,
        });
    }
}

/// Runs the PEs (PE 0 holds the main thread `main`) until the main thread
/// ends, an error, or a deadlock; with the faults of seed `faults`, if any.
pub fn run(
    pes: &mut [Pe],
    grid: &Grid,
    main: u32,
    faults: Option<u64>,
) -> (Result<Ptr, Stop>, SimTimes) {
    let n = pes.len();
    let mut sim = Sim {
        grid,
        clock: vec![0.0; n],
        busy: vec![0.0; n],
        blocked: vec![0.0; n],
        mail: BinaryHeap::new(),
        seq: 0,
        last_on_link: HashMap::new(),
        wire_free: vec![0.0; n],
        arrival: 0.0,
        busy_pes: 1,
        faults: faults.map(Faults::new),
        reductions: 0,
        next_report: REPORT_EVERY,
    };
    let census = Census::new(n);
    let result = drive(&mut sim, pes, &census, Some((0, main)))
        .and_then(|v| v.ok_or_else(|| Stop::Error("internal error: the main PE finished".into())));
    let end = sim.clock[0];
    let per_pe = (0..n)
        .map(|p| PeTimes {
            busy: sim.busy[p],
            idle: (end - sim.busy[p] - sim.blocked[p]).max(0.0),
            blocked: sim.blocked[p],
        })
        .collect();
    (
        result,
        SimTimes {
            virtual_time: end,
            per_pe,
            faults: sim.faults.map(|f| f.counts),
        },
    )
}
