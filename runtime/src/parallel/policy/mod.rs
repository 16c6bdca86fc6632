//! Load policies (docs/design.md "Many PEs", docs/parallel.md "Choosing
//! work"): whom an idle PE asks for work, where a request that found none
//! goes next, which spark goes in answer, when a busy PE asks for more (the
//! low watermark), and how long an empty request waits at home (the fish
//! delay). The protocol
//! (`parallel::gum`) carries the messages and asks its PE's policy.
//!
//! `gum` is GUM's way; `gum2` is Grid-GUM2's (every PE's speed exchanged
//! at start-up, tables of PE loads and latencies piggybacked on every
//! packet, fishing the PE most loaded for its speed, a low watermark
//! scaled by speed, and with `--super-schedule` several sparks at once
//! for a fast PE of another cluster). `--sched` chooses ([`Sched`]).
//!
//! Note [Fish delay]
//! A FISH that found no spark anywhere goes home, and its PE may not fish
//! again until a while after it arrives (GUM's fish delay; `--fish-delay`,
//! default 1 ms, `Tuning::fish_delay`), so that idle PEs do not flood busy
//! ones with requests. The policy says how long (`LoadPolicy::fish_delay`);
//! the protocol writes it on the homebound FISH as the envelope's `hold`;
//! the packet layer sends such a message alone; every engine delivers it
//! that much after it arrives, without holding up the link behind it (the
//! sim in virtual time, the threads engine on the wall clock). A FISH
//! waiting out its hold is not work in flight: deadlock detection does
//! not count it. 1 ms took a third of the FISH messages off an 8-PE
//! parsort and changed no simulated run time measured.

pub mod gum;
pub mod gum2;

use crate::machine::heap::{h_size, kind, Heap, Ptr};
use crate::parallel::ids::PeId;
use std::collections::VecDeque;
use std::time::Duration;

/// What a policy sees of its PE's load.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    /// Threads ready to run.
    pub runnable: usize,
    /// Sparks in the pool.
    pub sparks: usize,
}

/// A FISH as the PE it asks sees it: what `spark_to_send` weighs.
#[derive(Clone, Copy, Debug)]
pub struct Asked {
    /// The PE that fished (None: any PE, as the deadlock test asks).
    pub fisher: Option<PeId>,
    /// This PE has no thread ready to run.
    pub idle: bool,
    /// Live threads here: running, ready or blocked.
    pub threads: usize,
    /// Live threads the fisher held when it sent the fish.
    pub fisher_threads: usize,
    /// The fisher had a thread to run: it fished early, below its low
    /// watermark.
    pub fisher_early: bool,
}

/// The spark pool as a policy sees it: from the first spark that is still
/// a thunk, oldest first.
pub struct Sparks<'a> {
    pool: &'a VecDeque<Ptr>,
    heap: &'a Heap,
    first: usize,
}

impl<'a> Sparks<'a> {
    /// The pool from its first spark that is still a thunk.
    pub fn new(pool: &'a VecDeque<Ptr>, heap: &'a Heap) -> Sparks<'a> {
        let first = pool
            .iter()
            .take_while(|&&s| heap.kind(heap.deref(s)) != kind::THUNK)
            .count();
        Sparks { pool, heap, first }
    }

    /// How many sparks before the first thunk (they have fizzled).
    pub fn dead(&self) -> usize {
        self.first
    }

    pub fn len(&self) -> usize {
        self.pool.len() - self.first
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn node(&self, i: usize) -> Ptr {
        self.heap.deref(self.pool[self.first + i])
    }

    /// Whether spark `i` is still a thunk.
    pub fn is_thunk(&self, i: usize) -> bool {
        self.heap.kind(self.node(i)) == kind::THUNK
    }

    /// Whether spark `i` would block at once on a black hole (a node
    /// under evaluation here): one among its free variables, or among
    /// those of the thunks it names, up to `BLACK_HOLE_SCAN` thunks deep.
    /// Only thunks are followed: a constructor's lazy tail under
    /// evaluation does not stop a consumer of its head. (parsort's chunks
    /// are `splitAt size` thunks whose `size` forces the whole input: with
    /// only the spark's own fields looked at, the thief took every chunk
    /// while the main PE was still making the input, and ran all of them
    /// itself, 0.69x on 2 PEs.)
    pub fn waits_for_black_hole(&self, i: usize) -> bool {
        let mut todo = vec![self.node(i)];
        let mut seen = 0;
        while let Some(s) = todo.pop() {
            seen += 1;
            for k in 0..h_size(self.heap.hdr(s)) {
                let f = self.heap.deref(self.heap.field(s, k));
                match self.heap.kind(f) {
                    kind::BLACKHOLE => return true,
                    kind::THUNK if seen + todo.len() < BLACK_HOLE_SCAN => todo.push(f),
                    _ => {}
                }
            }
        }
        false
    }
}

/// Thunks looked into when asking whether a spark waits for a black hole.
const BLACK_HOLE_SCAN: usize = 32;

/// Which load policy the PEs follow (`--sched`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sched {
    /// GUM: random fishing, one spark per FISH.
    Gum,
    /// Grid-GUM2: load-aware fishing from piggybacked tables.
    #[default]
    Gum2,
}

impl std::fmt::Display for Sched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Sched {
    /// Every policy, in the order `--sched` lists them.
    pub const ALL: [Sched; 2] = [Sched::Gum, Sched::Gum2];

    pub fn name(self) -> &'static str {
        match self {
            Sched::Gum => "gum",
            Sched::Gum2 => "gum2",
        }
    }

    /// PE `me`'s policy, of `npes` PEs, running at `speed` (relative to
    /// the fastest PE, 1.0); `seed` seeds its random choices.
    pub fn policy(
        self,
        me: PeId,
        npes: usize,
        speed: f64,
        seed: u64,
        tuning: &crate::machine::pe::Tuning,
    ) -> Box<dyn LoadPolicy> {
        match self {
            Sched::Gum => Box::new(gum::GumPolicy::new(me, npes, seed, tuning)),
            Sched::Gum2 => Box::new(gum2::Gum2Policy::new(me, npes, speed, seed, tuning)),
        }
    }
}

/// A load policy: one per PE. The methods with a default body are
/// Grid-GUM2's additions; GUM does nothing in them.
pub trait LoadPolicy: Send {
    /// Whom an idle PE sends its FISH.
    fn fish_target(&mut self) -> PeId;
    /// Where a FISH from `origin` that found no spark to spare here goes
    /// after `age` hops; None: home to its origin.
    fn forward(&mut self, origin: PeId, age: u32) -> Option<PeId>;
    /// How long a FISH that came home empty is held before its PE may
    /// fish again (Note [Fish delay]).
    fn fish_delay(&self) -> Duration;
    /// Whether a busy PE with this load fishes for more work.
    fn fish_early(&self, load: Load) -> bool;
    /// Which spark to send in answer to the FISH `asked` (an index into
    /// `sparks`), or None to keep them.
    fn spark_to_send(&self, sparks: &Sparks, asked: Asked) -> Option<usize>;

    /// The speed this PE tells every other at start-up (PEStatic); None:
    /// the policy exchanges nothing.
    fn announce(&self) -> Option<f64> {
        None
    }
    /// PE `from` said it runs at `speed` (PEStatic).
    fn static_info(&mut self, _from: PeId, _speed: f64) {}
    /// What goes with a packet for `to` that leaves at `now` (this PE's
    /// clock, seconds) while this PE has `load`: the envelope's piggyback.
    fn piggyback(&mut self, _to: PeId, _now: f64, _load: Load) -> Vec<u8> {
        Vec::new()
    }
    /// A packet from `from`, sent at `sent_at` (its clock), arrived at
    /// `now` (ours) with `piggyback`. An error: the piggyback is garbage.
    fn heard(
        &mut self,
        _from: PeId,
        _sent_at: f64,
        _now: f64,
        _piggyback: &[u8],
    ) -> Result<(), String> {
        Ok(())
    }
    /// How many sparks besides the first go to the fisher `origin`, of
    /// `available` more that could (the super-schedule).
    fn extra_sparks(&self, _origin: PeId, _available: usize) -> usize {
        0
    }
    /// What this PE knows of `pe`'s speed (PEStatic); None: nothing.
    fn speed_of(&self, _pe: PeId) -> Option<f64> {
        None
    }
    /// What this PE knows of the one-way latency to `pe` (ComMap,
    /// seconds); None: nothing measured yet.
    fn latency_of(&self, _pe: PeId) -> Option<f64> {
        None
    }
}
