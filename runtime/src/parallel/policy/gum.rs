//! GUM's load policy (`--sched gum`; the protocol itself is
//! `parallel::gum`, which both policies speak): fish a random PE; forward a
//! fish that found nothing to another random PE, and send it home after
//! `FISH_LIFE` hops; answer
//! with one spark, the oldest one that does not need a black hole of
//! this PE, but keep the last one when there is nothing else to do, and
//! keep them all from a fisher that holds as many threads as this PE
//! would keep work; fish while busy only below the low watermark.

use crate::machine::pe::Tuning;
use crate::parallel::ids::PeId;
use crate::parallel::policy::{Asked, Load, LoadPolicy, Sparks};
use std::time::Duration;

/// Hops a FISH makes before it goes home.
pub const FISH_LIFE: u32 = 10;
/// Sparks looked at when choosing one to send away.
const SPARK_SCAN: usize = 8;

pub struct GumPolicy {
    me: PeId,
    npes: usize,
    /// xorshift64* state: never zero.
    rng: u64,
    low_watermark: usize,
    fish_delay: Duration,
}

impl GumPolicy {
    /// The policy of PE `me` of `npes`; `seed` seeds its random choices.
    pub fn new(me: PeId, npes: usize, seed: u64, tuning: &Tuning) -> GumPolicy {
        GumPolicy {
            me,
            npes,
            rng: (seed ^ 0x9E37_79B9_7F4A_7C15).wrapping_mul(me.0 as u64 * 2 + 1) | 1,
            low_watermark: tuning.low_watermark.unwrap_or(0),
            fish_delay: tuning.fish_delay,
        }
    }

    /// A random PE other than this one and `not` (when there is one).
    fn random_pe(&mut self, not: Option<PeId>) -> PeId {
        let others: Vec<u16> = (0..self.npes as u16)
            .filter(|&p| p != self.me.0 && Some(PeId(p)) != not)
            .collect();
        self.random_of(&others).unwrap_or(not.unwrap_or(self.me))
    }

    /// One of `pes` at random; None when there are none.
    pub fn random_of(&mut self, pes: &[u16]) -> Option<PeId> {
        if pes.is_empty() {
            return None;
        }
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let r = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
        Some(PeId(pes[(r % pes.len() as u64) as usize]))
    }
}

impl LoadPolicy for GumPolicy {
    fn fish_target(&mut self) -> PeId {
        self.random_pe(None)
    }

    /// (With two PEs there is nobody else to ask.)
    fn forward(&mut self, origin: PeId, age: u32) -> Option<PeId> {
        if age < FISH_LIFE && self.npes > 2 {
            Some(self.random_pe(Some(origin)))
        } else {
            None
        }
    }

    fn fish_delay(&self) -> Duration {
        self.fish_delay
    }

    /// Below the watermark with no thread but the one running: the
    /// scheduler asks after a slice, and a thread that yielded is back
    /// among the runnable ones by then.
    fn fish_early(&self, load: Load) -> bool {
        load.sparks < self.low_watermark && load.runnable <= 1
    }

    /// A spark that needs a node under evaluation here (`rnf y` while the
    /// main thread evaluates `y`) is passed over: its thief would only
    /// wait for the black hole, and with a flat `parList` it would shadow
    /// the main thread for ever. When every spark looked at would wait,
    /// none goes: the thief, its thread blocked, would fish again and
    /// again and end up holding every spark while this PE, its black hole
    /// done, waits for their results (parsort on 2 PEs).
    ///
    /// A fisher that already holds at least as many threads as this PE
    /// would keep, threads and sparks, gets none: its threads wait (for
    /// the data of the sparks it took, say), and taking more would leave
    /// this PE without work when they are done. (parsort 200000 8 on 2
    /// PEs: the thief took all 7 sparks while their chunks travelled,
    /// and the main PE waited for them: 0.69x.)
    fn spark_to_send(&self, sparks: &Sparks, asked: Asked) -> Option<usize> {
        if sparks.is_empty() || (asked.idle && sparks.len() < 2) {
            return None;
        }
        if asked.fisher_threads > 0 && asked.fisher_threads + 1 > asked.threads + sparks.len() - 1 {
            return None;
        }
        // A busy fisher asks ahead; it gets a spark only where there is
        // one for every PE, else it would take what an idle PE needs.
        if asked.fisher_early && sparks.len() < self.npes {
            return None;
        }
        (0..sparks.len().min(SPARK_SCAN))
            .find(|&i| sparks.is_thunk(i) && !sparks.waits_for_black_hole(i))
    }
}
