//! The session's values between evaluations: the graph reachable from the
//! main PE's evaluated CAFs and from the values bound to names, copied out
//! of the PE's heap after a run ([`Saved::save`]) and into the next run's
//! heap before its main thread starts ([`Saved::restore`]).
//!
//! The copy is a compact arena of nodes in the heap's own format
//! (`machine::heap`), so restoring it is one block copy and a pass that
//! relocates its pointer fields. A pointer to the static area (a nullary
//! constructor, a function, a small Int or Char) is kept as what it points
//! to, with [`STATIC`] set, because the next run's program is larger (the
//! session's program only grows, `link`) and its static area moves.
//!
//! Some nodes cannot outlive the run that made them: a black hole (a thunk
//! under evaluation when the run stopped, by an error or Ctrl-C), a
//! reference to another PE's node (FETCHME, RBH, MUTREF, an Eden inport),
//! the unread rest of stdin. A CAF whose graph reaches one is not saved: it
//! starts again unevaluated, as the code that computes it is still there.
//! A bound value (`x <- action`) cannot be computed again, so those nodes
//! become errors that say the value was lost.

use crate::code::GlobalId;
use crate::machine::heap::{h_info, h_kind, h_size, header, kind, pointer_words, Heap, Ptr};
use crate::machine::load::Loaded;
use std::collections::{HashMap, HashSet};

/// A pointer field to a static node: what it is (kind, and the
/// constructor or supercombinator number, or the boxed value) instead of
/// where.
const STATIC: u64 = 1 << 63;

/// The saved graph and its roots.
#[derive(Default, Clone, Debug)]
pub struct Saved {
    words: Vec<u64>,
    /// The messages of RAISE nodes (their info indexes this).
    raised: Vec<String>,
    /// Evaluated CAFs: the global and its value (a pointer word).
    pub(crate) cafs: Vec<(GlobalId, u64)>,
    /// Values bound to names (global names such as `Interactive.x`).
    pub(crate) bound: Vec<(String, u64)>,
}

/// Whether a node of this kind can be kept past its run.
fn keepable(k: u8) -> bool {
    !matches!(
        k,
        kind::BLACKHOLE
            | kind::FETCHME
            | kind::RBH
            | kind::MUTREF
            | kind::INPORT
            | kind::STDIN
            | kind::FORWARD
    )
}

impl Saved {
    /// Words of saved graph.
    pub fn words(&self) -> usize {
        self.words.len()
    }

    /// Saves what `heap` holds of the session: `cafs` (CAFs whose graph
    /// can be kept) and `bound` (whatever they hold). `raised` is the PE's
    /// table of RAISE messages.
    pub(crate) fn save(
        heap: &Heap,
        raised: &[String],
        cafs: &[(GlobalId, Ptr)],
        bound: &[(String, Ptr)],
    ) -> Saved {
        let mut c = Copier {
            heap,
            raised,
            out: Saved::default(),
            map: HashMap::new(),
            raised_map: HashMap::new(),
            good: HashSet::new(),
            scan: 0,
        };
        for (g, p) in cafs {
            if c.keepable(*p) {
                let w = c.copy(*p);
                c.out.cafs.push((*g, w));
            }
        }
        for (n, p) in bound {
            let w = c.copy(*p);
            c.out.bound.push((n.clone(), w));
        }
        c.out
    }

    /// Copies the saved graph into a heap whose static area is laid out by
    /// `l` (its next free words, `words()` of them, reserved by the
    /// caller); RAISE messages are appended to `raised`. Returns the root
    /// pointers' decoder.
    pub(crate) fn restore(
        &self,
        heap: &mut Heap,
        l: &Loaded,
        raised: &mut Vec<String>,
    ) -> Restored {
        let n = self.words.len();
        let base = if n == 0 {
            0
        } else {
            heap.try_alloc(n)
                .expect("space reserved for the saved graph")
                .0
        } as u64;
        let first_raise = raised.len() as u32;
        raised.extend(self.raised.iter().cloned());
        let decode = Decoder {
            base,
            l_con: &l.con_node,
            l_fun: &l.fun_node,
        };
        let mut i = 0;
        while i < n {
            let h = self.words[i];
            let k = h_kind(h);
            let size = h_size(h);
            let at = base as usize + i;
            heap.mem[at] = if k == kind::RAISE {
                header(kind::RAISE, size as u32, h_info(h) + first_raise)
            } else {
                h
            };
            let pointers = pointer_words(h);
            for f in 1..=size {
                let w = self.words[i + f];
                heap.mem[at + f] = if f <= pointers {
                    decode.ptr(w, l).0 as u64
                } else {
                    w
                };
            }
            i += size + 1;
        }
        Restored {
            cafs: self
                .cafs
                .iter()
                .map(|(g, w)| (*g, decode.ptr(*w, l)))
                .collect(),
            bound: self
                .bound
                .iter()
                .map(|(name, w)| (name.clone(), decode.ptr(*w, l)))
                .collect(),
        }
    }

    /// The node a pointer word stands for, for reading the saved graph
    /// (`:sprint`): a static node, or a node of the arena.
    pub fn node(&self, w: u64) -> SavedNode<'_> {
        if w & STATIC != 0 {
            let k = (w & 0xff) as u8;
            let v = (w >> 8) as u32;
            return SavedNode::Static(k, v);
        }
        let i = w as usize;
        let h = self.words[i];
        SavedNode::Heap {
            kind: h_kind(h),
            info: h_info(h),
            fields: &self.words[i + 1..i + 1 + h_size(h)],
        }
    }

    /// The root of a bound name, or of a CAF.
    pub fn bound_root(&self, name: &str) -> Option<u64> {
        self.bound.iter().find(|(n, _)| n == name).map(|(_, w)| *w)
    }
    pub fn caf_root(&self, g: GlobalId) -> Option<u64> {
        self.cafs.iter().find(|(x, _)| *x == g).map(|(_, w)| *w)
    }

    /// The message of a saved RAISE node.
    pub fn raised(&self, i: u32) -> &str {
        self.raised.get(i as usize).map_or("", String::as_str)
    }
}

/// A node of the saved graph as `:sprint` reads it.
pub enum SavedNode<'a> {
    /// A static node: kind and constructor / supercombinator number, or
    /// the Int (as u32 bits of an i32) or Char.
    Static(u8, u32),
    Heap {
        kind: u8,
        info: u32,
        fields: &'a [u64],
    },
}

/// The roots after a restore, as pointers of the new heap.
pub(crate) struct Restored {
    pub cafs: Vec<(GlobalId, Ptr)>,
    pub bound: Vec<(String, Ptr)>,
}

struct Decoder<'a> {
    base: u64,
    l_con: &'a [u32],
    l_fun: &'a [u32],
}

impl Decoder<'_> {
    fn ptr(&self, w: u64, l: &Loaded) -> Ptr {
        if w & STATIC == 0 {
            return Ptr((self.base + w) as u32);
        }
        let v = (w >> 8) as u32;
        match (w & 0xff) as u8 {
            kind::CON => Ptr(self.l_con[v as usize]),
            kind::FUN => Ptr(self.l_fun[v as usize]),
            kind::INT => l.int_box(v as i32 as i64).unwrap_or(l.dummy),
            kind::CHAR => l.char_box(v).unwrap_or(l.dummy),
            _ => l.dummy,
        }
    }
}

struct Copier<'h> {
    heap: &'h Heap,
    raised: &'h [String],
    out: Saved,
    /// Heap node -> its word in the arena.
    map: HashMap<u32, u64>,
    raised_map: HashMap<u32, u32>,
    /// Nodes known to reach only keepable nodes.
    good: HashSet<u32>,
    /// Where the arena's unscanned nodes start.
    scan: usize,
}

impl Copier<'_> {
    /// Whether everything reachable from `p` can be kept.
    fn keepable(&mut self, p: Ptr) -> bool {
        let mut seen = Vec::new();
        let mut todo = vec![p];
        let mut visited = HashSet::new();
        while let Some(q) = todo.pop() {
            let q = q.0 as usize;
            if q < self.heap.static_end || self.good.contains(&(q as u32)) || !visited.insert(q) {
                continue;
            }
            let h = self.heap.mem[q];
            let k = h_kind(h);
            if !keepable(k) {
                return false;
            }
            seen.push(q as u32);
            for f in 1..=pointer_words(h) {
                todo.push(Ptr(self.heap.mem[q + f] as u32));
            }
        }
        self.good.extend(seen);
        true
    }

    /// The arena word for `p`, copying what it reaches.
    fn copy(&mut self, p: Ptr) -> u64 {
        let root = self.word(p);
        // Each copied node's pointer fields still hold heap pointers:
        // turn them into arena words, copying as needed (Cheney's scan).
        let mut i = self.scan;
        while i < self.out.words.len() {
            let h = self.out.words[i];
            let n = h_size(h);
            for f in i + 1..=i + pointer_words(h) {
                let w = self.out.words[f];
                if w & PENDING != 0 {
                    self.out.words[f] = self.word(Ptr((w & !PENDING) as u32));
                }
            }
            i += n + 1;
        }
        self.scan = i;
        root
    }

    /// The arena word for `p`: a static description, a node copied before,
    /// or a new copy (whose fields are left pending).
    fn word(&mut self, p: Ptr) -> u64 {
        let p = self.heap.deref(p);
        let q = p.0 as usize;
        if q < self.heap.static_end {
            let h = self.heap.mem[q];
            let k = h_kind(h);
            let v = match k {
                kind::INT | kind::CHAR => self.heap.mem[q + 1] as u32,
                _ => h_info(h),
            };
            return STATIC | k as u64 | (v as u64) << 8;
        }
        if let Some(&w) = self.map.get(&p.0) {
            return w;
        }
        let at = self.out.words.len() as u64;
        self.map.insert(p.0, at);
        let h = self.heap.mem[q];
        let k = h_kind(h);
        let n = h_size(h);
        if !keepable(k) {
            // Only a bound value gets here (a CAF is checked first).
            let msg = "the value was lost: it was under evaluation, or on another PE, \
                       when its evaluation stopped";
            let i = self.out.raised.len() as u32;
            self.out.raised.push(msg.to_string());
            self.out.words.push(header(kind::RAISE, n.max(1) as u32, i));
            self.out.words.extend(std::iter::repeat_n(0, n.max(1)));
            return at;
        }
        let h = if k == kind::RAISE {
            let old = h_info(h);
            let next = self.out.raised.len() as u32;
            let i = *self.raised_map.entry(old).or_insert(next);
            if i == next {
                let msg = self.raised.get(old as usize).cloned().unwrap_or_default();
                self.out.raised.push(msg);
            }
            header(kind::RAISE, n as u32, i)
        } else {
            h
        };
        self.out.words.push(h);
        let pointers = pointer_words(h);
        for f in 1..=n {
            let w = self.heap.mem[q + f];
            self.out
                .words
                .push(if f <= pointers { w | PENDING } else { w });
        }
        at
    }
}

/// A field of a copied node not yet turned into an arena word.
const PENDING: u64 = 1 << 62;
