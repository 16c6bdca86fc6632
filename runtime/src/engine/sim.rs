//! The `sim` engine (GranSim-like, DESIGN.md "Engines"): every PE in one
//! OS thread, in virtual time, deterministically.
//!
//! Each PE has a clock. Running a slice advances it by the reductions done
//! over the PE's speed (a PE of speed 1.0 does [`REDUCTIONS_PER_SECOND`]);
//! handling a message costs [`MESSAGE_COST`] plus the packed graph's words. A
//! message sent at time t arrives at t + latency + size / bandwidth (and
//! never before an earlier message on the same link). The engine always
//! does the earliest thing next: deliver the earliest message, or run the
//! PE whose clock is earliest among those with work, ties broken by PE
//! number and send order, so the same program, grid and seed give the same
//! run. An idle PE's clock jumps to its next message.

use crate::engine::grid::Grid;
use crate::machine::heap::Ptr;
use crate::machine::pe::{Pe, Step, Stop};
use crate::parallel::ids::PeId;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

/// Virtual reductions per second of a PE of speed 1.0 (about what the
/// machine does on a current laptop core).
pub const REDUCTIONS_PER_SECOND: f64 = 20e6;
/// Virtual seconds to handle a message, and per word of packed graph.
const MESSAGE_COST: f64 = 2e-6;
const WORD_COST: f64 = 5e-9;
/// Virtual seconds to make a thread of a spark.
const THREAD_COST: f64 = 5e-6;

struct Event {
    time: f64,
    seq: u64,
    to: PeId,
    fish: bool,
    bytes: Vec<u8>,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    /// Earliest first (BinaryHeap is a max-heap).
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.total_cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// What a simulated run measured.
pub struct SimTimes {
    /// The virtual time at which the main thread ended.
    pub virtual_time: f64,
    /// Per PE: virtual seconds running (threads and messages), idle, and
    /// idle while threads waited for other PEs.
    pub busy: Vec<f64>,
    pub idle: Vec<f64>,
    pub blocked: Vec<f64>,
}

/// The messages on their way.
#[derive(Default)]
struct Mail {
    events: BinaryHeap<Event>,
    seq: u64,
    /// When the last message on each link arrives (links are FIFO).
    last_on_link: HashMap<(u16, u16), f64>,
    /// Messages on their way other than FISH (a deadlock is every PE idle
    /// with only fish swimming).
    live: usize,
}

impl Mail {
    /// Puts what PE `p` sent (at `now`) on its way.
    fn post(&mut self, pe: &mut Pe, p: usize, now: f64, grid: &Grid) {
        for (to, bytes) in std::mem::take(&mut pe.gum.outbox) {
            let from = PeId(p as u16);
            let mut t = now + grid.transit(from, to, bytes.len());
            let link = self.last_on_link.entry((from.0, to.0)).or_insert(0.0);
            t = t.max(*link);
            *link = t;
            if crate::parallel::message::fish_origin(&bytes) == Some(to) {
                // An empty fish going home: the fish delay (the link is
                // not held up).
                t += pe.tuning.fish_delay.as_secs_f64();
            }
            let fish = crate::parallel::message::is_fish(&bytes);
            if !fish {
                self.live += 1;
            }
            self.seq += 1;
            self.events.push(Event {
                time: t,
                seq: self.seq,
                to,
                fish,
                bytes,
            });
        }
    }
}

/// Runs the PEs (PE 0 holds the main thread `main`) until the main thread
/// ends, an error, or a deadlock.
pub fn run(pes: &mut [Pe], grid: &Grid, main: u32) -> (Result<Ptr, Stop>, SimTimes) {
    let n = pes.len();
    let mut clock = vec![0.0f64; n];
    let mut busy = vec![0.0f64; n];
    let mut blocked = vec![0.0f64; n];
    let mut mail = Mail::default();
    // Every PE but the main one starts idle: it goes fishing at once.
    let started = (1..n).rev().try_for_each(|p| {
        let r = pes[p].step(None);
        mail.post(&mut pes[p], p, clock[p], grid);
        r.map(|_| ())
    });
    let result = started.and_then(|()| loop {
        // The PE with work and the earliest clock.
        let worker = (0..n)
            .filter(|&p| pes[p].has_work())
            .min_by(|&a, &b| clock[a].total_cmp(&clock[b]).then(a.cmp(&b)));
        let deliver = match (mail.events.peek(), worker) {
            (None, None) => break Err(Stop::Error("<<loop>>".into())),
            (Some(e), Some(w)) => e.time <= clock[w],
            (e, _) => e.is_some(),
        };
        let (p, r) = if deliver {
            let e = mail.events.pop().unwrap();
            if !e.fish {
                mail.live -= 1;
            } else if mail.live == 0 && (0..n).all(|q| !pes[q].has_work()) {
                // Only fish are moving and nobody has work: nothing will
                // ever update the black holes the threads wait for.
                break Err(Stop::Error("<<loop>>".into()));
            }
            let p = e.to.0 as usize;
            if e.time > clock[p] && !pes[p].blocked.is_empty() {
                blocked[p] += e.time - clock[p];
            }
            clock[p] = clock[p].max(e.time);
            let cost = MESSAGE_COST + WORD_COST * (e.bytes.len() / 8) as f64;
            clock[p] += cost / grid.speed(e.to);
            busy[p] += cost / grid.speed(e.to);
            let r = pes[p].receive(&e.bytes);
            // An idle PE that got no work goes fishing again.
            let r = r.and_then(|()| {
                if !pes[p].has_work() {
                    pes[p].step(None).map(|_| ())
                } else {
                    Ok(())
                }
            });
            (p, r.map(|()| None))
        } else {
            let p = worker.unwrap();
            let r = pes[p].step((p == 0).then_some(main));
            let r = r.map(|s| match s {
                Step::Ran(red) => {
                    let dt = if red == 0 {
                        THREAD_COST
                    } else {
                        red as f64 / REDUCTIONS_PER_SECOND
                    } / grid.speed(PeId(p as u16));
                    clock[p] += dt;
                    busy[p] += dt;
                    None
                }
                Step::Idle => None,
                Step::Done(v) => Some(v),
            });
            (p, r)
        };
        mail.post(&mut pes[p], p, clock[p], grid);
        match r {
            Ok(None) => {}
            Ok(Some(v)) => break Ok(v),
            Err(e) => break Err(e),
        }
    });
    let end = clock[0];
    let idle = (0..n)
        .map(|p| (end - busy[p] - blocked[p]).max(0.0))
        .collect();
    (
        result,
        SimTimes {
            virtual_time: end,
            busy,
            idle,
            blocked,
        },
    )
}
