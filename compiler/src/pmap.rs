//! A persistent map from `u32` keys (variable numbers): cloning is O(1),
//! inserting copies one path of a 16-way trie on the key's bits.
//!
//! The passes that walk Core with an environment copy it at each scope (a
//! `let`, a `case` alternative, a branch). With a `HashMap` a copy costs the
//! size of the environment, so a nest of 10,000 scopes cost 10,000² / 2
//! entry copies; with this map it costs nothing, and an insert ~8 nodes.

use std::rc::Rc;

/// Bits of the key per level, and the number of levels (4 × 8 = 32).
const BITS: u32 = 4;
const LEVELS: u32 = 8;
const WIDTH: usize = 1 << BITS;

enum Node<V> {
    Branch([Option<Rc<Node<V>>>; WIDTH]),
    Leaf(V),
}

pub struct PMap<V> {
    root: Option<Rc<Node<V>>>,
}

impl<V> Clone for PMap<V> {
    fn clone(&self) -> Self {
        PMap {
            root: self.root.clone(),
        }
    }
}

impl<V> Default for PMap<V> {
    fn default() -> Self {
        PMap { root: None }
    }
}

fn slot(k: u32, level: u32) -> usize {
    ((k >> (BITS * level)) as usize) & (WIDTH - 1)
}

impl<V> PMap<V> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, k: &u32) -> Option<&V> {
        let mut n = self.root.as_deref()?;
        for level in (0..LEVELS).rev() {
            match n {
                Node::Branch(cs) => n = cs[slot(*k, level)].as_deref()?,
                Node::Leaf(_) => return None,
            }
        }
        match n {
            Node::Leaf(v) => Some(v),
            Node::Branch(_) => None,
        }
    }

    pub fn contains_key(&self, k: &u32) -> bool {
        self.get(k).is_some()
    }

    /// Binds `k` to `v`, replacing an older binding; other copies of the
    /// map are unchanged.
    pub fn insert(&mut self, k: u32, v: V) {
        fn ins<V>(n: Option<&Node<V>>, k: u32, level: u32, v: V) -> Node<V> {
            let mut cs: [Option<Rc<Node<V>>>; WIDTH] = match n {
                Some(Node::Branch(cs)) => cs.clone(),
                _ => [const { None }; WIDTH],
            };
            let i = slot(k, level);
            cs[i] = Some(Rc::new(if level == 0 {
                Node::Leaf(v)
            } else {
                ins(cs[i].as_deref(), k, level - 1, v)
            }));
            Node::Branch(cs)
        }
        self.root = Some(Rc::new(ins(self.root.as_deref(), k, LEVELS - 1, v)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn behaves_like_a_map_and_copies_are_independent() {
        let mut m = PMap::new();
        let mut h = HashMap::new();
        let mut x = 12345u32;
        for i in 0..2000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let k = if i % 3 == 0 { x } else { x % 100 };
            m.insert(k, i);
            h.insert(k, i);
        }
        let copy = m.clone();
        m.insert(7, 99_999);
        for (k, v) in &h {
            assert_eq!(copy.get(k), Some(v));
        }
        assert_eq!(m.get(&7), Some(&99_999));
        assert_eq!(copy.get(&7), h.get(&7));
        assert!(!copy.contains_key(&u32::MAX) || h.contains_key(&u32::MAX));
    }
}
