//! Global addresses and weighted reference counting (GUM's virtual shared
//! heap, docs/design.md "Many PEs").
//!
//! A [`GlobalAddr`] names a node on its owning PE by a slot in the owner's
//! table. Every copy of a global address held elsewhere carries a
//! [`Weight`]; the owner's slot keeps the weight not handed out. Handing a
//! reference to another PE splits the weight (half travels); when the
//! reference dies, its weight goes home in a FREE message. A slot whose
//! weight is whole again has no remote references: it is freed, and the
//! node is no longer a GC root. So each PE collects its own heap alone.
//!
//! Weights are 64-bit, whole at 2^62. A slot whose weight is too small to
//! split is not split: the node gets a fresh slot (GUM's re-globalising),
//! so splitting never fails.

use crate::machine::heap::Ptr;
pub use crate::parallel::ids::{GlobalAddr, PeId};
use rustc_hash::FxHashMap as HashMap;

/// The part of a global address's total weight one holder has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Weight(pub u64);

pub const WHOLE: Weight = Weight(1 << 62);
/// Weights below this are not split (a fresh slot is used instead).
const MIN_SPLIT: u64 = 4;

struct Owned {
    ptr: Ptr,
    /// The weight still at home (WHOLE when nobody else holds the address).
    weight: u64,
    /// Exported with a spark: a thunk its thread needs (`gum`, Note [A
    /// thunk fetched from a busy PE]).
    with_spark: bool,
}

/// A global address owned elsewhere that this PE holds, through a FETCHME
/// node whose header info is the entry's index.
#[derive(Clone, Debug)]
pub struct Remote {
    pub ga: GlobalAddr,
    pub weight: Weight,
    pub node: Ptr,
}

/// A table whose freed entries are reused, so indices stay small and an
/// entry keeps its index for as long as it lives.
struct Slots<T> {
    items: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Slots<T> {
    fn new() -> Self {
        Slots {
            items: Vec::new(),
            free: Vec::new(),
        }
    }

    fn insert(&mut self, x: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = Some(x);
                i
            }
            None => {
                self.items.push(Some(x));
                (self.items.len() - 1) as u32
            }
        }
    }

    fn get(&self, i: u32) -> Option<&T> {
        self.items.get(i as usize)?.as_ref()
    }

    fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.items.get_mut(i as usize)?.as_mut()
    }

    fn remove(&mut self, i: u32) -> Option<T> {
        let x = self.items.get_mut(i as usize)?.take()?;
        self.free.push(i);
        Some(x)
    }

    fn len(&self) -> usize {
        self.items.len() - self.free.len()
    }

    fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.items
            .iter()
            .enumerate()
            .filter_map(|(i, x)| Some((i as u32, x.as_ref()?)))
    }
}

/// The global-address tables of one PE.
pub struct GaTable {
    me: PeId,
    owned: Slots<Owned>,
    /// The preferred slot of each globalised local node (rebuilt after GC).
    by_node: HashMap<Ptr, u32>,
    remote: Slots<Remote>,
    by_ga: HashMap<GlobalAddr, u32>,
    /// Weights to send home (FREE), collected until the PE sends them.
    pub to_free: Vec<(GlobalAddr, Weight)>,
    /// What is exported now goes with a spark (set while one is packed).
    pub packing_spark: bool,
}

impl GaTable {
    pub fn new(me: PeId) -> GaTable {
        GaTable {
            me,
            owned: Slots::new(),
            by_node: HashMap::default(),
            remote: Slots::new(),
            by_ga: HashMap::default(),
            to_free: Vec::new(),
            packing_spark: false,
        }
    }

    pub fn me(&self) -> PeId {
        self.me
    }

    /// A reference to the local `node` for another PE: its global address
    /// (made if need be) with half of the weight left at home.
    pub fn export_local(&mut self, node: Ptr) -> (GlobalAddr, Weight) {
        let slot = match self.by_node.get(&node) {
            Some(&s) if self.owned.get(s).unwrap().weight >= MIN_SPLIT => s,
            _ => {
                let s = self.owned.insert(Owned {
                    ptr: node,
                    weight: WHOLE.0,
                    with_spark: false,
                });
                self.by_node.insert(node, s);
                s
            }
        };
        let o = self.owned.get_mut(slot).unwrap();
        o.with_spark |= self.packing_spark;
        let half = o.weight / 2;
        o.weight -= half;
        (GlobalAddr { pe: self.me, slot }, Weight(half))
    }

    /// Whether our slot was exported with a spark.
    pub fn with_spark(&self, slot: u32) -> bool {
        self.owned.get(slot).is_some_and(|o| o.with_spark)
    }

    /// The node a slot of ours names (None for a freed slot).
    pub fn owned_node(&self, slot: u32) -> Option<Ptr> {
        self.owned.get(slot).map(|o| o.ptr)
    }

    /// Weight coming home to one of our slots; a whole slot is freed.
    pub fn return_weight(&mut self, slot: u32, w: Weight) {
        let Some(o) = self.owned.get_mut(slot) else {
            return;
        };
        o.weight += w.0;
        if o.weight >= WHOLE.0 {
            let ptr = o.ptr;
            self.owned.remove(slot);
            if self.by_node.get(&ptr) == Some(&slot) {
                self.by_node.remove(&ptr);
            }
        }
    }

    /// The weight a slot of ours still holds at home (None for a freed
    /// slot). With the weights held elsewhere and in flight it makes
    /// `WHOLE` (read-only; for tests of weight conservation).
    pub fn owned_weight(&self, slot: u32) -> Option<Weight> {
        self.owned.get(slot).map(|o| Weight(o.weight))
    }

    /// Slots in use (for statistics and tests).
    pub fn owned_count(&self) -> usize {
        self.owned.len()
    }

    /// The FETCHME entry already held for `ga`, if any.
    pub fn remote_of(&self, ga: GlobalAddr) -> Option<u32> {
        self.by_ga.get(&ga).copied()
    }

    /// Records a remote reference held by the FETCHME `node`; returns its index.
    pub fn add_remote(&mut self, ga: GlobalAddr, weight: Weight, node: Ptr) -> u32 {
        let i = self.remote.insert(Remote { ga, weight, node });
        self.by_ga.insert(ga, i);
        i
    }

    /// A reference `ga` with weight `w` arrives here (in a packed graph, an ACK):
    /// the node it stands for when this PE knows one (its own node, whose
    /// slot gets the weight back, or the FETCHME it already holds, which
    /// gets the weight), or None when it is new here (the caller makes a
    /// FETCHME and [`GaTable::add_remote`]s it).
    pub fn arrive(&mut self, ga: GlobalAddr, w: Weight) -> Result<Option<Ptr>, String> {
        if ga.pe == self.me {
            let node = self
                .owned_node(ga.slot)
                .ok_or("a reference to a freed global address")?;
            self.return_weight(ga.slot, w);
            return Ok(Some(node));
        }
        Ok(self.remote_of(ga).map(|i| {
            self.add_remote_weight(i, w);
            self.remote(i).node
        }))
    }

    /// More weight for a remote reference we already hold.
    pub fn add_remote_weight(&mut self, i: u32, w: Weight) {
        if let Some(r) = self.remote.get_mut(i) {
            r.weight.0 += w.0;
        }
    }

    pub fn remote(&self, i: u32) -> &Remote {
        self.remote.get(i).expect("live remote entry")
    }

    /// Half of a held remote reference's weight, to pass it on; None when
    /// too little is left (the caller globalises its FETCHME instead).
    pub fn split_remote(&mut self, i: u32) -> Option<(GlobalAddr, Weight)> {
        let r = self.remote.get_mut(i)?;
        if r.weight.0 < MIN_SPLIT {
            return None;
        }
        let half = r.weight.0 / 2;
        r.weight.0 -= half;
        Some((r.ga, Weight(half)))
    }

    /// The FETCHME of entry `i` was updated with the node it named (a copy
    /// or a moved thunk): the entry stays, naming the node, so that the
    /// address arriving again (another spark of the same data) resolves
    /// here instead of being fetched again. Its weight goes home when the
    /// node dies.
    pub fn resolve_remote(&mut self, i: u32, node: Ptr) {
        if let Some(r) = self.remote.get_mut(i) {
            r.node = node;
        }
    }

    /// The FETCHME `i` no longer stands for its address (it was updated):
    /// its weight goes home.
    pub fn drop_remote(&mut self, i: u32) {
        if let Some(r) = self.remote.remove(i) {
            self.by_ga.remove(&r.ga);
            self.to_free.push((r.ga, r.weight));
        }
    }

    pub fn remote_count(&self) -> usize {
        self.remote.len()
    }

    // ------------------------------------------------------------ GC

    /// Every owned slot is a root (someone elsewhere may refer to it).
    pub fn roots_mut(&mut self, mut f: impl FnMut(&mut Ptr)) {
        for o in self.owned.items.iter_mut().flatten() {
            f(&mut o.ptr);
        }
    }

    /// After a collection: remote entries whose FETCHME died give their
    /// weight back; the others follow their node (`moved` gives a node's
    /// new address if it survived). The node index is rebuilt.
    pub fn after_gc(&mut self, moved: impl Fn(Ptr) -> Option<Ptr>) {
        let entries: Vec<(u32, Ptr)> = self.remote.iter().map(|(i, r)| (i, r.node)).collect();
        for (i, node) in entries {
            match moved(node) {
                Some(p) => self.remote.get_mut(i).unwrap().node = p,
                None => self.drop_remote(i),
            }
        }
        self.by_node = self.owned.iter().map(|(s, o)| (o.ptr, s)).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(t: &GaTable, slot: u32, out: &[Weight]) -> u64 {
        t.owned_weight(slot).map_or(WHOLE.0, |w| w.0) + out.iter().map(|w| w.0).sum::<u64>()
    }

    #[test]
    fn weight_is_conserved_across_splits_and_returns() {
        let mut t = GaTable::new(PeId(0));
        let mut out = Vec::new();
        let (ga, w) = t.export_local(Ptr(100));
        out.push(w);
        for _ in 0..10 {
            let (g2, w) = t.export_local(Ptr(100));
            assert_eq!(g2, ga);
            out.push(w);
            assert_eq!(total(&t, ga.slot, &out), WHOLE.0);
        }
        while let Some(w) = out.pop() {
            t.return_weight(ga.slot, w);
            if !out.is_empty() {
                assert_eq!(total(&t, ga.slot, &out), WHOLE.0);
            }
        }
        assert_eq!(
            t.owned_count(),
            0,
            "a slot with all its weight home is freed"
        );
        assert_eq!(t.owned_node(ga.slot), None);
    }

    #[test]
    fn an_exhausted_slot_is_replaced_by_a_fresh_one() {
        let mut t = GaTable::new(PeId(1));
        let mut slots = std::collections::HashSet::new();
        for _ in 0..200 {
            let (ga, w) = t.export_local(Ptr(7));
            assert!(w.0 >= 1);
            slots.insert(ga.slot);
        }
        assert!(slots.len() > 1);
        for s in &slots {
            assert_eq!(t.owned_node(*s), Some(Ptr(7)));
        }
    }

    #[test]
    fn dead_fetchmes_send_their_weight_home() {
        let mut t = GaTable::new(PeId(2));
        let ga = GlobalAddr {
            pe: PeId(0),
            slot: 5,
        };
        let i = t.add_remote(ga, Weight(64), Ptr(300));
        let (g, w) = t.split_remote(i).unwrap();
        assert_eq!((g, w), (ga, Weight(32)));
        t.after_gc(|_| None);
        assert_eq!(t.to_free, vec![(ga, Weight(32))]);
        assert_eq!(t.remote_count(), 0);
        assert_eq!(t.remote_of(ga), None);
    }

    #[test]
    fn live_fetchmes_follow_their_node() {
        let mut t = GaTable::new(PeId(2));
        let ga = GlobalAddr {
            pe: PeId(1),
            slot: 0,
        };
        let i = t.add_remote(ga, Weight(8), Ptr(300));
        t.after_gc(|p| Some(Ptr(p.0 - 100)));
        assert_eq!(t.remote(i).node, Ptr(200));
        assert!(t.to_free.is_empty());
    }
}
