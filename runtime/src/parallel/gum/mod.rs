//! A PE among others: GUM's protocol (docs/design.md "Many PEs"; the messages
//! are in `message`). The engines move the bytes and `protocol::dispatch`
//! hands GUM's messages here; this module decides what a PE sends and what
//! it does with what it receives. "GUM" here is the protocol, which every
//! load policy speaks: `--sched gum` (`policy::gum`, GUM's random
//! fishing) and `--sched gum2` (`policy::gum2`, Grid-GUM2's) differ only in
//! the choices `parallel::policy` makes.
//!
//! * Work: an idle PE sends a FISH to the PE its load policy names
//!   (`parallel::policy`; `gum`: a random one). A PE with a spark to spare
//!   (the policy chooses) packs it (with a few of the thunks it needs, see
//!   `Tuning::thunks_per_graph`) and sends it to the fish's origin in a
//!   SCHEDULE; otherwise the fish goes where the policy says, or home,
//!   where the engine holds it for a while (Note [Fish delay]). A received
//!   spark becomes a thread at once (so it cannot bounce on).
//! * Data: a thread that enters a FetchMe blocks on it, and the PE sends a
//!   FETCH to the owner, naming the FetchMe by a global address of its own
//!   for the answer. The owner packs the node (a thunk moves, becoming an
//!   RBH until the ACK) and sends a RESUME; a FETCH that finds a black hole
//!   waits until the black hole is updated; one that finds a thunk while
//!   this PE has threads to run waits a little for them to evaluate it
//!   (Note [A thunk fetched from a busy PE]); one that finds a FetchMe
//!   (the node moved on) is forwarded.
//! * Memory: after each GC the weight of dead FetchMes goes home in FREE
//!   messages (batched per owner), see `ga`.

use crate::machine::heap::{h_info, h_kind, header, kind, Ptr};
use crate::machine::pe::{Pe, Stop};
use crate::machine::thread::Thread;
use crate::parallel::ga::{GlobalAddr, Weight};
use crate::parallel::ids::PeId;
pub mod message;

use crate::obs::event::Event;
use crate::parallel::pack;
use crate::parallel::policy::{Asked, Sparks};
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::internal;
use message::{Fish, Message};
use std::collections::{BTreeMap, VecDeque};

/// A FETCH that waits for its node.
#[derive(Clone, Copy, Debug)]
struct BlockedFetch {
    node: Ptr,
    reply: GlobalAddr,
    weight: Weight,
    /// Rounds it has waited for its thunk to be evaluated here.
    waited: u32,
    /// The thunk went with a spark: the spark's thread needs it, and this
    /// PE will not evaluate it.
    for_spark: bool,
}

/// Rounds (slices of this PE's threads) a FETCH for a thunk waits at a
/// busy PE before the thunk moves (Note [A thunk fetched from a busy PE]).
///
/// Note [A thunk fetched from a busy PE]
/// A thunk that moves to the PE that fetched it is evaluated there, by
/// the thread that needs it: right for a thunk nobody here wants. But a
/// lazy structure that this PE's threads are evaluating has its frontier
/// here, the cell they will evaluate next, still a thunk. Moved away, it
/// comes back a round trip later when they reach it, and the structure
/// goes to pieces among the PEs that read it, each cell then fetched from
/// wherever it went: matmult with `transpose b` left lazy (bench/lazy/),
/// on 16 PEs of the 2-core machine's file, took 380,806 RESUMEs of 36
/// bytes and ran slower than on one PE (on 16 real cores: 2,032,587
/// FETCHes). So a FETCH for a thunk that finds threads to run here waits,
/// as for a black hole, for up to two rounds: by then they have mostly
/// evaluated it, and the answer copies what they made, in one packet.
/// Only then does the thunk move. A thunk that went with a spark (its
/// thread's argument, left here as a FetchMe: `GaTable::with_spark`) moves
/// at once: this PE will not evaluate it, and waiting made linsolv 30 on
/// 16 such PEs 0.013 -> 0.020 s. Measured (sim, dev2.toml, 16 PEs, virtual
/// seconds, without -> with): matmult 200 lazy 0.544 -> 0.098 (0.8x ->
/// 4.6x), linsolv 30 lazy 0.022 -> 0.023, parsort 0.251 -> 0.256, the
/// rest of programs/ unchanged. Moving every thunk that fits, the other
/// way out tried, gave the structure whole to its first fetcher, but on
/// that file's costs PEs then passed it to and fro in packets of 16,384
/// words for minutes.
const FETCH_WAITS: u32 = 2;

/// The protocol state of one PE.
#[derive(Default)]
pub struct Gum {
    blocked: Vec<BlockedFetch>,
    pending: VecDeque<BlockedFetch>,
    /// FETCHes of nodes that are evaluated here without a black hole
    /// (stdin), or for thunks that may be (Note [A thunk fetched from a
    /// busy PE]): retried every round.
    retry: Vec<BlockedFetch>,
    /// A FISH of ours is out.
    pub fish_out: bool,
    /// The number of our latest FISH.
    fish_serial: u32,
}

impl Gum {
    /// The node `bh` was updated: the FETCHes waiting for it are answered
    /// in the next round.
    pub fn wake_fetches(&mut self, bh: Ptr) {
        let mut i = 0;
        while i < self.blocked.len() {
            if self.blocked[i].node == bh {
                let f = self.blocked.swap_remove(i);
                self.pending.push_back(f);
            } else {
                i += 1;
            }
        }
    }

    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty() || !self.retry.is_empty()
    }

    pub fn roots_mut(&mut self, mut f: impl FnMut(&mut Ptr)) {
        for b in self
            .blocked
            .iter_mut()
            .chain(self.pending.iter_mut())
            .chain(self.retry.iter_mut())
        {
            f(&mut b.node);
        }
    }
}

/// Items for other PEs, one list per PE.
fn by_pe<T>(items: impl IntoIterator<Item = (PeId, T)>) -> BTreeMap<PeId, Vec<T>> {
    let mut m: BTreeMap<PeId, Vec<T>> = BTreeMap::new();
    for (pe, x) in items {
        m.entry(pe).or_default().push(x);
    }
    m
}

impl Pe<'_, '_> {
    fn send(&mut self, to: PeId, m: Message) {
        let mut env = Envelope::new(self.id(), to, m.kind(), m.encode());
        if matches!(m, Message::Fish(f) if f.origin == to) {
            // An empty fish going home: its PE waits before fishing again
            // (Note [Fish delay]).
            env.hold = self.policy.fish_delay();
        }
        self.send_envelope(env);
    }

    /// Whether a FISH arriving now would take a spark away (`spare_spark`
    /// without its effects).
    pub(crate) fn could_spare_spark(&self) -> bool {
        let sparks = Sparks::new(&self.sparks, &self.heap);
        self.policy
            .spark_to_send(&sparks, self.asked(None, 0, false))
            .is_some()
    }

    /// Packs the graph at `root` as a SCHEDULE or RESUME would, moving the
    /// thunks `moves` says.
    pub fn pack_graph(&mut self, root: Ptr, moves: pack::Moves) -> pack::PackedGraph {
        let limit = self.tuning.graph_words;
        pack::pack(
            &mut self.heap,
            &mut self.ga,
            &self.raised,
            root,
            moves,
            limit,
        )
    }

    /// A thread entered the FetchMe `p` (no FETCH out yet): ask its owner.
    pub(crate) fn fetch(&mut self, p: Ptr) {
        let i = h_info(self.heap.hdr(p));
        let target = self.ga.remote(i).ga;
        let (reply, weight) = self.ga.export_local(p);
        self.obs.emit(Event::Fetch { to: target.pe });
        self.send(
            target.pe,
            Message::Fetch {
                target,
                reply,
                weight,
            },
        );
    }

    /// Answers the FETCHes whose nodes were updated (or are retried).
    pub(crate) fn answer_fetches(&mut self) -> Result<(), Stop> {
        let retry = std::mem::take(&mut self.gum.retry);
        self.gum.pending.extend(retry);
        while let Some(f) = self.gum.pending.pop_front() {
            self.answer_fetch(f)?;
        }
        Ok(())
    }

    fn answer_fetch(&mut self, f: BlockedFetch) -> Result<(), Stop> {
        let p = self.heap.deref(f.node);
        let h = self.heap.hdr(p);
        if f.reply.pe == self.id() {
            // Our own FETCH came back (the node moved here meanwhile): the
            // FetchMe simply becomes the node.
            self.answered(f.reply.slot, f.weight, p);
            return Ok(());
        }
        match h_kind(h) {
            kind::BLACKHOLE | kind::RBH | kind::INPORT => {
                self.heap.set_waiters(p);
                self.gum.blocked.push(BlockedFetch { node: p, ..f });
            }
            kind::FETCHME => {
                // The node moved on: the FETCH follows it.
                let target = self.ga.remote(h_info(h)).ga;
                self.send(
                    target.pe,
                    Message::Fetch {
                        target,
                        reply: f.reply,
                        weight: f.weight,
                    },
                );
            }
            kind::THUNK if f.waited < FETCH_WAITS && !f.for_spark && !self.run_queue.is_empty() => {
                let waited = f.waited + 1;
                self.gum.retry.push(BlockedFetch {
                    node: p,
                    waited,
                    ..f
                });
            }
            kind::STDIN => {
                // Only this PE can read it: evaluate it here, answer later.
                self.spawn(self.l.spark_entry, &[p]);
                self.gum.retry.push(BlockedFetch { node: p, ..f });
            }
            _ => {
                let graph = self.pack(p, usize::MAX);
                self.send(
                    f.reply.pe,
                    Message::Resume {
                        reply: f.reply.slot,
                        weight: f.weight,
                        graph,
                    },
                );
            }
        }
        Ok(())
    }

    /// Packs the graph at `p`, thunks up to `depth` pointers away moving
    /// with it (`Tuning::thunks_per_graph` at most).
    fn pack(&mut self, p: Ptr, depth: usize) -> pack::PackedGraph {
        let moves = pack::Moves {
            thunks: self.tuning.thunks_per_graph,
            depth,
        };
        self.pack_graph(p, moves)
    }

    /// Packs the spark `s` for a SCHEDULE: the spark and the thunks it
    /// names (its thread would fetch them at once), not what they name:
    /// that may be data every task reads. What stays here is marked as
    /// the spark's (Note [A thunk fetched from a busy PE]).
    fn pack_spark(&mut self, s: Ptr) -> pack::PackedGraph {
        self.ga.packing_spark = true;
        let g = self.pack(s, 1);
        self.ga.packing_spark = false;
        g
    }

    /// The answer `v` to a FETCH of ours arrived: the FetchMe named by our
    /// `reply` slot (which gets its `weight` back) becomes `v`, waking its
    /// threads. False when the slot is not ours any more.
    fn answered(&mut self, reply: u32, weight: Weight, v: Ptr) -> bool {
        let Some(node) = self.ga.owned_node(reply) else {
            return false;
        };
        self.ga.return_weight(reply, weight);
        let f = self.heap.deref(node);
        if self.heap.kind(f) == kind::FETCHME && f != v {
            let i = h_info(self.heap.hdr(f));
            if (v.0 as usize) < self.heap.static_end {
                self.ga.drop_remote(i); // (static nodes never die)
            } else {
                self.ga.resolve_remote(i, v);
            }
            self.update(f, v);
        }
        true
    }

    /// An idle PE looks for work (one FISH out at a time).
    pub(crate) fn go_fishing(&mut self) {
        // A PE at its thread limit takes no more work (Grid-GUM's thread
        // limitation: the limit is on live threads, blocked ones too).
        if self.npes > 1
            && !self.gum.fish_out
            && !self.finished
            && self.live_threads < self.tuning.thread_limit
        {
            let to = self.policy.fish_target();
            self.gum.fish_out = true;
            self.gum.fish_serial = self.gum.fish_serial.wrapping_add(1);
            let serial = self.gum.fish_serial;
            self.obs.emit(Event::FishOut { to });
            let origin = self.id();
            let threads = self.live_threads as u32;
            // Early: this PE has work of its own still, threads to run or
            // sparks to turn into threads (gum2's watermark fires while
            // the threads wait and a spark is left).
            let early = !self.run_queue.is_empty() || !self.sparks.is_empty();
            self.send(
                to,
                Message::Fish(Fish {
                    origin,
                    age: 0,
                    threads,
                    early,
                    serial,
                }),
            );
        }
    }

    /// A FISH from a PE holding `fisher_threads` live threads, as the load
    /// policy sees it here.
    fn asked(&self, fisher: Option<PeId>, fisher_threads: usize, fisher_early: bool) -> Asked {
        Asked {
            fisher,
            idle: self.run_queue.is_empty(),
            threads: self.live_threads,
            fisher_threads,
            fisher_early,
        }
    }

    /// The spark the load policy sends away, if any. Sparks that are no
    /// longer thunks fizzle first.
    fn spare_spark(
        &mut self,
        fisher: PeId,
        fisher_threads: usize,
        fisher_early: bool,
    ) -> Option<Ptr> {
        let dead = Sparks::new(&self.sparks, &self.heap).dead();
        self.sparks.drain(..dead);
        for _ in 0..dead {
            self.obs.emit(Event::SparkFizzle);
        }
        let ask = self.asked(Some(fisher), fisher_threads, fisher_early);
        let pick = self
            .policy
            .spark_to_send(&Sparks::new(&self.sparks, &self.heap), ask)?;
        self.sparks.remove(pick).map(|s| self.heap.deref(s))
    }

    /// The further sparks the load policy sends to the fisher `origin`
    /// with the one `spare_spark` chose (the super-schedule): thunks that
    /// need no black hole of ours, oldest first.
    fn extra_sparks(&mut self, origin: PeId) -> Vec<Ptr> {
        let sparks = Sparks::new(&self.sparks, &self.heap);
        let n = self.policy.extra_sparks(origin, sparks.len());
        let picks: Vec<usize> = (0..sparks.len())
            .filter(|&i| sparks.is_thunk(i) && !sparks.waits_for_black_hole(i))
            .take(n)
            .map(|i| i + sparks.dead())
            .collect();
        // From the back, so that the indices still hold.
        let mut out: Vec<Ptr> = picks
            .iter()
            .rev()
            .filter_map(|&i| self.sparks.remove(i))
            .map(|s| self.heap.deref(s))
            .collect();
        out.reverse();
        out
    }

    /// Rebuilds a packed graph in the heap (collecting first if need be).
    pub fn unpack_graph(&mut self, graph: &[u64]) -> Result<pack::Unpacked, Stop> {
        let words = pack::unpack_words(graph).map_err(internal)?;
        self.ensure(&mut Thread::empty(), words)?;
        pack::unpack(&mut self.heap, &mut self.ga, &mut self.raised, graph).map_err(internal)
    }

    /// Tells the old owners of moved thunks where they are now.
    fn acknowledge(&mut self, moved: Vec<(PeId, u32, GlobalAddr, Weight)>) {
        let moved = moved
            .into_iter()
            .map(|(pe, slot, new, w)| (pe, (slot, new, w)));
        for (pe, moved) in by_pe(moved) {
            self.send(pe, Message::Ack { moved });
        }
    }

    /// Sends the weight of dead remote references home, one FREE per owner.
    pub(crate) fn send_frees(&mut self) {
        let mut away = Vec::new();
        for (ga, w) in std::mem::take(&mut self.ga.to_free) {
            if ga.pe == self.id() {
                self.ga.return_weight(ga.slot, w);
            } else {
                away.push((ga.pe, (ga.slot, w)));
            }
        }
        for (pe, weights) in by_pe(away) {
            self.send(pe, Message::Free { weights });
        }
    }

    /// The ACK for a thunk we sent: its RBH (our `slot`) now stands for
    /// the thunk at `new`, of which we get weight `w`. Threads and FETCHes
    /// waiting on the RBH go on (to fetch it from there).
    fn thunk_moved(&mut self, slot: u32, new: GlobalAddr, w: Weight) -> Result<(), Stop> {
        let Some(node) = self.ga.owned_node(slot) else {
            return Ok(());
        };
        let p = self.heap.deref(node);
        let i = p.0 as usize;
        if h_kind(self.heap.mem[i]) != kind::RBH {
            return Ok(());
        }
        let waiters = self.heap.waiters(p);
        let size = crate::machine::heap::h_size(self.heap.mem[i]) as u32;
        let known = self.ga.arrive(new, w).map_err(internal)?;
        match known {
            // Back here, or a node we hold a FetchMe for already.
            Some(q) => {
                self.heap.mem[i] = header(kind::IND, size, 0);
                self.heap.mem[i + 1] = q.0 as u64;
            }
            None => {
                let r = self.ga.add_remote(new, w, p);
                self.heap.mem[i] = header(kind::FETCHME, size, r);
                self.heap.mem[i + 1] = 0;
            }
        }
        if waiters {
            self.wake(p);
        }
        Ok(())
    }

    /// Handles a GUM message from another PE.
    pub(crate) fn gum_receive(&mut self, from: PeId, m: Message) -> Result<(), Stop> {
        match m {
            Message::Fish(fish) => {
                let origin = fish.origin;
                if origin == self.id() {
                    // (A copy of an older fish says nothing of the one
                    // out now.)
                    if fish.serial == self.gum.fish_serial {
                        self.gum.fish_out = false;
                        self.obs.emit(Event::FishHome);
                    }
                } else if let Some(s) = self.spare_spark(origin, fish.threads as usize, fish.early)
                {
                    let graph = self.pack_spark(s);
                    self.obs.emit(Event::SparkSteal { to: origin });
                    let more = self
                        .extra_sparks(origin)
                        .into_iter()
                        .map(|s| {
                            self.obs.emit(Event::SparkSteal { to: origin });
                            self.pack_spark(s)
                        })
                        .collect();
                    self.send(origin, Message::Schedule { graph, more });
                } else if let Some(to) = self.policy.forward(origin, fish.age) {
                    self.obs.emit(Event::FishForward { origin, to });
                    let age = fish.age + 1;
                    self.send(to, Message::Fish(Fish { age, ..fish }));
                } else {
                    self.send(origin, Message::Fish(fish));
                }
            }
            Message::Schedule { graph, more } => {
                let u = self.unpack_graph(&graph)?;
                self.gum.fish_out = false;
                self.obs.emit(Event::SparkReceive { from });
                self.spawn(self.l.spark_entry, &[u.root]);
                self.acknowledge(u.moved);
                // A super-schedule's further sparks join the pool, for
                // this PE's threads or its neighbours' fish.
                for g in more {
                    let u = self.unpack_graph(&g)?;
                    self.obs.emit(Event::SparkReceive { from });
                    self.sparks.push_back(u.root);
                    self.acknowledge(u.moved);
                }
            }
            Message::Fetch {
                target,
                reply,
                weight,
            } => {
                let node = self
                    .ga
                    .owned_node(target.slot)
                    .ok_or_else(|| internal("a FETCH for a freed address"))?;
                let for_spark = self.ga.with_spark(target.slot);
                self.answer_fetch(BlockedFetch {
                    node,
                    reply,
                    weight,
                    waited: 0,
                    for_spark,
                })?;
            }
            Message::Resume {
                reply,
                weight,
                graph,
            } => {
                // (Unpacking may collect: look the FetchMe up afterwards,
                // Note [GC safety].)
                let u = self.unpack_graph(&graph)?;
                if !self.answered(reply, weight, u.root) {
                    return Err(internal("a RESUME for a freed address"));
                }
                self.acknowledge(u.moved);
            }
            Message::Ack { moved } => {
                for (slot, new, w) in moved {
                    self.thunk_moved(slot, new, w)?;
                }
            }
            Message::Free { weights } => {
                for (slot, w) in weights {
                    self.ga.return_weight(slot, w);
                }
            }
        }
        Ok(())
    }
}
