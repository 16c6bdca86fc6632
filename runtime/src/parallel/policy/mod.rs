//! Load policies (DESIGN.md "Load management"): whom an idle PE asks for
//! work, where a request that found none goes next, which spark goes in
//! answer, when a busy PE asks for more (the low watermark), and how long
//! an empty request waits at home (the fish delay). The protocol
//! (`parallel::gum`) carries the messages and asks its PE's policy.
//!
//! `gum` is GUM's way and today's behaviour; Grid-GUM2's (tables of PE
//! loads piggybacked on messages, fishing the most loaded PE, several
//! sparks at once) is to come as a second implementation.

pub mod gum;

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

    /// Whether spark `i`'s free variables include a black hole (a node
    /// under evaluation here).
    pub fn waits_for_black_hole(&self, i: usize) -> bool {
        let s = self.node(i);
        let n = h_size(self.heap.hdr(s));
        (0..n).any(|k| {
            let f = self.heap.deref(self.heap.field(s, k));
            self.heap.kind(f) == kind::BLACKHOLE
        })
    }
}

/// A load policy: one per PE.
pub trait LoadPolicy: Send {
    /// Whom an idle PE sends its FISH.
    fn fish_target(&mut self) -> PeId;
    /// Where a FISH from `origin` that found no spark to spare here goes
    /// after `age` hops; None: home to its origin.
    fn forward(&mut self, origin: PeId, age: u32) -> Option<PeId>;
    /// How long a FISH that came home empty is held before its PE may
    /// fish again.
    fn fish_delay(&self) -> Duration;
    /// Whether a busy PE with this load fishes for more work.
    fn fish_early(&self, load: Load) -> bool;
    /// Which spark to send in answer to a FISH (an index into `sparks`),
    /// or None to keep them; `idle`: the PE has no thread to run.
    fn spark_to_send(&self, sparks: &Sparks, idle: bool) -> Option<usize>;
}
