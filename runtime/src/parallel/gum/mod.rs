//! A PE among others: GUM's protocol (DESIGN.md "Many PEs"; the messages
//! are in `message`). The engines move the bytes and `protocol::dispatch`
//! hands GUM's messages here; this module decides what a PE sends and what
//! it does with what it receives.
//!
//! * Work: an idle PE sends a FISH to a random PE. A PE with a spark to
//!   spare (it keeps its last one when it has nothing else to do) packs it
//!   (with a few of the thunks it needs, see `Tuning::thunks_per_graph`)
//!   and sends it to the fish's origin in a SCHEDULE; otherwise the fish
//!   goes on to another random PE, and home after `FISH_LIFE` hops, where
//!   the engine holds it for the fish delay. A received spark becomes a
//!   thread at once (so it cannot bounce on).
//! * Data: a thread that enters a FetchMe blocks on it, and the PE sends a
//!   FETCH to the owner, naming the FetchMe by a global address of its own
//!   for the answer. The owner packs the node (a thunk moves, becoming an
//!   RBH until the ACK) and sends a RESUME; a FETCH that finds a black hole
//!   waits until the black hole is updated; one that finds a FetchMe (the
//!   node moved on) is forwarded.
//! * Memory: after each GC the weight of dead FetchMes goes home in FREE
//!   messages (batched per owner), see `ga`.

use crate::machine::heap::{h_info, h_kind, header, kind, Ptr};
use crate::machine::pe::{Pe, Stop};
use crate::machine::thread::Thread;
use crate::parallel::ga::{GlobalAddr, Weight};
use crate::parallel::ids::PeId;
pub mod message;

use crate::parallel::pack;
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::{internal, Kind};
use message::Message;
use std::collections::{BTreeMap, VecDeque};

/// Hops a FISH makes before it goes home.
const FISH_LIFE: u32 = 10;
/// Sparks looked at when choosing one to send away.
const SPARK_SCAN: usize = 8;

/// A FETCH that waits for its node.
#[derive(Clone, Copy, Debug)]
struct BlockedFetch {
    node: Ptr,
    reply: GlobalAddr,
    weight: Weight,
}

/// Messages and bytes, per kind.
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    pub by_kind: BTreeMap<Kind, (u64, u64)>,
}

impl Traffic {
    pub(crate) fn count(&mut self, k: Kind, bytes: usize) {
        let e = self.by_kind.entry(k).or_default();
        e.0 += 1;
        e.1 += bytes as u64;
    }
}

/// The protocol state of one PE.
pub struct Gum {
    pub me: PeId,
    pub npes: usize,
    rng: u64,
    blocked: Vec<BlockedFetch>,
    pending: VecDeque<BlockedFetch>,
    /// FETCHes of nodes that are evaluated here without a black hole
    /// (stdin): retried every round.
    retry: Vec<BlockedFetch>,
    /// A FISH of ours is out.
    pub fish_out: bool,
    pub sent: Traffic,
    pub received: Traffic,
}

impl Gum {
    pub fn new(me: PeId, npes: usize, seed: u64) -> Gum {
        Gum {
            me,
            npes,
            // xorshift64*: never zero.
            rng: (seed ^ 0x9E37_79B9_7F4A_7C15).wrapping_mul(me.0 as u64 * 2 + 1) | 1,
            blocked: Vec::new(),
            pending: VecDeque::new(),
            retry: Vec::new(),
            fish_out: false,
            sent: Traffic::default(),
            received: Traffic::default(),
        }
    }

    /// A random PE other than this one and `not` (when there is one).
    fn random_pe(&mut self, not: Option<PeId>) -> PeId {
        let others: Vec<u16> = (0..self.npes as u16)
            .filter(|&p| p != self.me.0 && Some(PeId(p)) != not)
            .collect();
        if others.is_empty() {
            return not.unwrap_or(self.me);
        }
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let r = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
        PeId(others[(r % others.len() as u64) as usize])
    }

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
        let bytes = m.encode();
        self.gum.sent.count(m.kind(), bytes.len());
        let mut env = Envelope::new(self.id(), to, m.kind(), bytes);
        if matches!(m, Message::Fish { origin, .. } if origin == to) {
            // An empty fish going home: its PE waits before fishing again.
            env.hold = self.tuning.fish_delay;
        }
        self.outbox.push(env);
    }

    /// Whether a FISH arriving now would take a spark away (`spare_spark`
    /// without its effects).
    pub(crate) fn could_spare_spark(&self) -> bool {
        let dead = self
            .sparks
            .iter()
            .take_while(|&&s| self.heap.kind(self.heap.deref(s)) != kind::THUNK)
            .count();
        let left = self.sparks.len() - dead;
        left > 0 && !(self.run_queue.is_empty() && left < 2)
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
        self.counters.fetches += 1;
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
        if f.reply.pe == self.gum.me {
            // Our own FETCH came back (the node moved here meanwhile): the
            // FetchMe simply becomes the node.
            self.answered(f.reply.slot, f.weight, p);
            return Ok(());
        }
        match h_kind(h) {
            kind::BLACKHOLE | kind::RBH => {
                self.heap.mem[p.0 as usize + 1] = 1;
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
        if self.npes > 1 && !self.gum.fish_out && !self.finished {
            let to = self.gum.random_pe(None);
            self.gum.fish_out = true;
            self.counters.fish_sent += 1;
            let origin = self.gum.me;
            self.send(to, Message::Fish { origin, age: 0 });
        }
    }

    /// The oldest spark worth sending away, unless it is the only work this
    /// PE has. Sparks that are no longer thunks fizzle. A spark that needs
    /// a node under evaluation here (`rnf y` while the main thread
    /// evaluates `y`) is passed over: its thief would only wait for the
    /// black hole, and with a flat `parList` it would shadow the main
    /// thread for ever.
    fn spare_spark(&mut self) -> Option<Ptr> {
        while let Some(&s) = self.sparks.front() {
            let s = self.heap.deref(s);
            if self.heap.kind(s) == kind::THUNK {
                break;
            }
            self.sparks.pop_front();
            self.counters.sparks_fizzled += 1;
        }
        let idle = self.run_queue.is_empty();
        if self.sparks.is_empty() || (idle && self.sparks.len() < 2) {
            return None;
        }
        let pick = (0..self.sparks.len().min(SPARK_SCAN))
            .find(|&i| {
                let s = self.heap.deref(self.sparks[i]);
                self.heap.kind(s) == kind::THUNK && !self.waits_for_black_hole(s)
            })
            .unwrap_or(0);
        self.sparks.remove(pick).map(|s| self.heap.deref(s))
    }

    /// Whether a thunk's free variables include a black hole.
    fn waits_for_black_hole(&self, s: Ptr) -> bool {
        let n = crate::machine::heap::h_size(self.heap.hdr(s));
        (0..n).any(|i| {
            let f = self.heap.deref(self.heap.field(s, i));
            self.heap.kind(f) == kind::BLACKHOLE
        })
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
            if ga.pe == self.gum.me {
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
        let waiters = self.heap.mem[i + 1] != 0;
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
    pub(crate) fn gum_receive(&mut self, m: Message) -> Result<(), Stop> {
        match m {
            Message::Fish { origin, age } => {
                if origin == self.gum.me {
                    self.gum.fish_out = false;
                    self.counters.fish_failed += 1;
                } else if let Some(s) = self.spare_spark() {
                    // The spark and the thunks it names (its thread would
                    // fetch them at once), not what they name: that may be
                    // data every task reads.
                    let graph = self.pack(s, 1);
                    self.counters.sparks_exported += 1;
                    self.send(origin, Message::Schedule { graph });
                } else if age < FISH_LIFE && self.gum.npes > 2 {
                    let to = self.gum.random_pe(Some(origin));
                    self.counters.fish_forwarded += 1;
                    self.send(
                        to,
                        Message::Fish {
                            origin,
                            age: age + 1,
                        },
                    );
                } else {
                    self.send(origin, Message::Fish { origin, age });
                }
            }
            Message::Schedule { graph } => {
                let u = self.unpack_graph(&graph)?;
                self.gum.fish_out = false;
                self.counters.sparks_imported += 1;
                self.counters.sparks_converted += 1;
                self.spawn(self.l.spark_entry, &[u.root]);
                self.acknowledge(u.moved);
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
                self.answer_fetch(BlockedFetch {
                    node,
                    reply,
                    weight,
                })?;
            }
            Message::Resume {
                reply,
                weight,
                graph,
            } => {
                // (Unpacking may collect: look the FetchMe up afterwards.)
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
