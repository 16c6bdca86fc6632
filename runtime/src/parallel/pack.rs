//! Packing a graph into a [`PackedGraph`] and unpacking it in another PE's heap
//! (GUM's PackNearbyGraph, DESIGN.md "Many PEs").
//!
//! Packing walks the graph depth-first from the root (GUM went breadth
//! first; depth first keeps few nodes waiting, see `pack`). Every node
//! gets an entry number when written (so sharing and cycles survive: a
//! pointer field is the number of its target's entry) and is packed as
//! * `STATIC`: a node of the static area (the same on every PE);
//! * `NODE`: a copy, for data in normal form (constructors, numbers,
//!   partial applications, unread string literals);
//! * `THUNK`: the root, when it moves (a spark, or a fetched thunk), with
//!   its old global address; it becomes a revertible black hole (RBH) here
//!   until the receiver's ACK names its new address;
//! * `FETCHME`: a reference that stays behind: other thunks, black holes,
//!   FetchMes, and whatever no longer fits in the packed graph (a node is copied
//!   only if the packed graph still has room for it and for a FetchMe for every
//!   node still queued, so a packed graph always closes within its limit);
//! * `MUTREF`: a mutable cell (an IORef, MUTVAR) or a reference to one
//!   (MUTREF): never copied, whose identity matters, it stays on its PE and
//!   travels as its global address; the receiver makes a MUTREF node, a
//!   value that is never fetched (only the main PE, which made the cell,
//!   reads or writes it), and home again the address is the cell itself.
//!
//! Arrays (ARRAY) are copied as constructors are: the library fills an
//! array inside the one evaluation that makes it, so no other PE sees it
//! before it is final.
//!
//! Layout: the entry count, then the entries, each a tag word and its
//! fields (all 64-bit words).

use crate::machine::heap::{h_kind, h_size, header, is_value_kind, kind, Heap, Ptr};
use crate::parallel::ga::{GaTable, GlobalAddr, Weight};
use crate::parallel::ids::PeId;
use std::collections::HashMap;

/// A packed graph: 64-bit words (what a SCHEDULE or RESUME carries).
pub type PackedGraph = Vec<u64>;

const STATIC: u64 = 1;
const NODE: u64 = 2;
const THUNK: u64 = 3;
const FETCHME: u64 = 4;
const RAISE: u64 = 5;
const MUTREF: u64 = 6;
/// Words of a FETCHME entry.
const FETCHME_WORDS: usize = 4;

/// Which thunks move with a packed graph (each becomes an RBH here); the others
/// stay behind as FetchMes.
#[derive(Clone, Copy, Debug)]
pub struct Moves {
    /// At most this many, the root first.
    pub thunks: usize,
    /// None further than this many pointers from the root.
    pub depth: usize,
}

impl Moves {
    pub const NONE: Moves = Moves {
        thunks: 0,
        depth: 0,
    };
}

/// Packs the graph at `root`. `raised` is the PE's table of error
/// messages (RAISE nodes carry theirs along). `limit` is the packed graph size in
/// words (at least a few entries).
pub fn pack(
    heap: &mut Heap,
    ga: &mut GaTable,
    raised: &[String],
    root: Ptr,
    moves: Moves,
    limit: usize,
) -> PackedGraph {
    let mut out: PackedGraph = vec![0];
    // Entries are numbered as they are written; a field naming a node not
    // written yet is patched when it is (`waiting`: where to patch).
    let mut number: HashMap<Ptr, u64> = HashMap::new();
    let mut waiting: HashMap<Ptr, Vec<usize>> = HashMap::new();
    let root = heap.deref(root);
    // An array travels whole, as any root does, and each of its elements
    // needs an entry, at least a FetchMe: the packed graph gets room for
    // that on top of its limit, so that evaluated elements (numbers,
    // small constructors) come along instead of a FetchMe each.
    let limit = if h_kind(heap.hdr(root)) == kind::ARRAY {
        limit.saturating_add(h_size(heap.hdr(root)) * (FETCHME_WORDS + 1))
    } else {
        limit
    };
    // (Nodes waiting, with their distance from the root.)
    let mut stack: Vec<(Ptr, usize)> = vec![(root, 0)];
    waiting.insert(root, Vec::new());
    let mut moved: Vec<Ptr> = Vec::new();
    let mut count = 0u64;
    let mut fresh: Vec<Ptr> = Vec::new();
    while let Some((p, depth)) = stack.pop() {
        let e = count;
        count += 1;
        number.insert(p, e);
        for at in waiting.remove(&p).unwrap_or_default() {
            out[at] = e;
        }
        let h = heap.hdr(p);
        let k = h_kind(h);
        let n = h_size(h);
        if (p.0 as usize) < heap.static_end {
            out.push(STATIC | (p.0 as u64) << 32);
            continue;
        }
        if k == kind::RAISE {
            let msg = raised[crate::machine::heap::h_info(h) as usize].as_bytes();
            raise_entry(&mut out, msg);
            continue;
        }
        if k == kind::MUTVAR || k == kind::MUTREF {
            let (g, w) = remote_or_export(heap, ga, p);
            out.extend([MUTREF, g.pe.0 as u64, g.slot as u64, w.0]);
            continue;
        }
        // Normal forms and unread string literals are copied.
        let copy = is_value_kind(k) || k == kind::STR;
        let moves = k == kind::THUNK && moved.len() < moves.thunks && depth <= moves.depth;
        // Room for the node, its fields as FetchMes and a FetchMe for each
        // node waiting. (The root always travels whole: a FetchMe would
        // answer a FETCH with itself.)
        let room = out.len() + 5 + n * (1 + FETCHME_WORDS) + stack.len() * FETCHME_WORDS <= limit;
        if (copy || moves) && (p == root || room) {
            if moves {
                let (g, w) = ga.export_local(p);
                out.extend([THUNK, g.pe.0 as u64, g.slot as u64, w.0]);
                moved.push(p);
            } else {
                out.push(NODE);
            }
            out.push(h);
            let pointers = has_pointers(k);
            for i in 0..n {
                let w = heap.word(p, i);
                if !pointers {
                    out.push(w);
                    continue;
                }
                // (An evaluated selection travels as what it selects.)
                let q = heap.select(Ptr(w as u32));
                if let Some(&e) = number.get(&q) {
                    out.push(e);
                    continue;
                }
                let at = out.len();
                out.push(u64::MAX);
                match waiting.get_mut(&q) {
                    Some(v) => v.push(at),
                    None => {
                        waiting.insert(q, vec![at]);
                        fresh.push(q);
                    }
                }
            }
            // Depth first, the first field first: a list of lists goes
            // list by list, and few nodes wait (each reserves room for a
            // FetchMe), so a packed graph fills with whole structures.
            stack.extend(fresh.drain(..).rev().map(|q| (q, depth + 1)));
            continue;
        }
        // Stays here: a FetchMe to it.
        let (g, w) = remote_or_export(heap, ga, p);
        out.extend([FETCHME, g.pe.0 as u64, g.slot as u64, w.0]);
    }
    out[0] = count;
    for p in moved {
        // The thunk has left: it is an RBH until the ACK.
        let i = p.0 as usize;
        let size = h_size(heap.mem[i]);
        heap.mem[i] = header(kind::RBH, size as u32, 0);
        for w in &mut heap.mem[i + 1..i + 1 + size] {
            *w = 0;
        }
    }
    out
}

/// A reference to `p` for another PE: half the weight of the remote
/// reference a FETCHME or MUTREF holds, else (a node of ours, or a
/// FETCHME too light to split) an address of this PE for it. A MUTREF too
/// light to split passes its address on with no weight: an address of
/// this PE would make a chain, and the cell's own PE would not know the
/// reference as its cell when it comes back (so the cell stays a root
/// there for good: a reference of weight 0 never makes its slot whole).
fn remote_or_export(heap: &Heap, ga: &mut GaTable, p: Ptr) -> (GlobalAddr, Weight) {
    let h = heap.hdr(p);
    if matches!(h_kind(h), kind::FETCHME | kind::MUTREF) {
        let i = crate::machine::heap::h_info(h);
        if let Some(x) = ga.split_remote(i) {
            return x;
        }
        if h_kind(h) == kind::MUTREF {
            return (ga.remote(i).ga, Weight(0));
        }
    }
    ga.export_local(p)
}

/// One decoded entry.
enum Entry<'a> {
    Static(Ptr),
    Node {
        h: u64,
        fields: &'a [u64],
    },
    Thunk {
        old: GlobalAddr,
        weight: Weight,
        h: u64,
        fields: &'a [u64],
    },
    FetchMe {
        ga: GlobalAddr,
        weight: Weight,
    },
    MutRef {
        ga: GlobalAddr,
        weight: Weight,
    },
    Raise(String),
}

fn entries(p: &[u64]) -> Result<Vec<Entry<'_>>, String> {
    let bad = || "a malformed graph".to_string();
    let n = *p.first().ok_or_else(bad)? as usize;
    let mut out = Vec::with_capacity(n);
    let mut i = 1;
    let ga_at = |i: usize| -> Result<GlobalAddr, String> {
        Ok(GlobalAddr {
            pe: PeId(*p.get(i).ok_or_else(bad)? as u16),
            slot: *p.get(i + 1).ok_or_else(bad)? as u32,
        })
    };
    while out.len() < n {
        let tag = *p.get(i).ok_or_else(bad)?;
        match tag & 0xff {
            STATIC => {
                out.push(Entry::Static(Ptr((tag >> 32) as u32)));
                i += 1;
            }
            NODE | THUNK => {
                let (old, weight, hi) = if tag == THUNK {
                    (
                        Some(ga_at(i + 1)?),
                        Weight(*p.get(i + 3).ok_or_else(bad)?),
                        i + 4,
                    )
                } else {
                    (None, Weight(0), i + 1)
                };
                let h = *p.get(hi).ok_or_else(bad)?;
                let size = h_size(h);
                let fields = p.get(hi + 1..hi + 1 + size).ok_or_else(bad)?;
                out.push(match old {
                    Some(old) => Entry::Thunk {
                        old,
                        weight,
                        h,
                        fields,
                    },
                    None => Entry::Node { h, fields },
                });
                i = hi + 1 + size;
            }
            RAISE => {
                let n = *p.get(i + 1).ok_or_else(bad)? as usize;
                let words = p.get(i + 2..i + 2 + n.div_ceil(8)).ok_or_else(bad)?;
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                out.push(Entry::Raise(
                    String::from_utf8_lossy(&bytes[..n]).into_owned(),
                ));
                i += 2 + n.div_ceil(8);
            }
            FETCHME | MUTREF => {
                let (ga, weight) = (ga_at(i + 1)?, Weight(*p.get(i + 3).ok_or_else(bad)?));
                out.push(if tag == FETCHME {
                    Entry::FetchMe { ga, weight }
                } else {
                    Entry::MutRef { ga, weight }
                });
                i += FETCHME_WORDS;
            }
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

/// A RAISE entry for the error message `msg`: its length, then its bytes
/// eight to a word.
fn raise_entry(out: &mut PackedGraph, msg: &[u8]) {
    out.extend([RAISE, msg.len() as u64]);
    out.extend(msg.chunks(8).map(|c| {
        let mut x = [0u8; 8];
        x[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(x)
    }));
}

/// Whether a node of kind `k` has pointer fields (else raw words).
fn has_pointers(k: u8) -> bool {
    matches!(k, kind::CON | kind::PAP | kind::THUNK | kind::ARRAY)
}

// The dense form of a packed graph on the wire (`write_graph`): the entry
// count, then each entry as a first byte and what follows it, numbers in
// LEB128 (`codec`):
// * a node or a moved thunk: `NODE_BYTE | kind` or `THUNK_BYTE | kind`,
//   plus `SHORT` when its header is the usual one of a number or a
//   character (one word, no info); a moved thunk's old address and weight;
//   unless SHORT, its size and info; then its fields: a pointer as the
//   distance from this entry to its target's (zigzag, so a child written
//   just after is 1 byte), an Int as its zigzag value, a Double as its 8
//   bytes, any other raw word as itself;
// * `STATIC_BYTE` and the node's address; `FETCHME_BYTE` or `MUTREF_BYTE`
//   and the global address and weight; `RAISE_BYTE`, the message's length
//   and its bytes.
// An Int in a list takes 7 to 9 bytes (a cons cell of 5, the number of
// 2 to 4), against 56 as 64-bit words.
const NODE_BYTE: u8 = 0x00;
const THUNK_BYTE: u8 = 0x40;
const SHORT: u8 = 0x20;
const STATIC_BYTE: u8 = 0x80;
const FETCHME_BYTE: u8 = 0x81;
const MUTREF_BYTE: u8 = 0x82;
const RAISE_BYTE: u8 = 0x83;

fn zigzag(x: i64) -> u64 {
    ((x << 1) ^ (x >> 63)) as u64
}

fn unzigzag(x: u64) -> i64 {
    (x >> 1) as i64 ^ -((x & 1) as i64)
}

/// Appends `g` (a graph [`pack`] made) to `out` in the dense form.
pub fn write_graph(g: &[u64], out: &mut Vec<u8>) {
    use crate::machine::heap::h_info;
    use crate::parallel::protocol::codec::put_word;
    // A graph of our own making is well formed.
    let es = entries(g).expect("pack makes well-formed graphs");
    put_word(out, es.len() as u64);
    let address = |out: &mut Vec<u8>, ga: &GlobalAddr, w: &Weight| {
        put_word(out, ga.pe.0 as u64);
        put_word(out, ga.slot as u64);
        put_word(out, w.0);
    };
    for (i, e) in es.iter().enumerate() {
        let (h, fields) = match e {
            Entry::Static(p) => {
                out.push(STATIC_BYTE);
                put_word(out, p.0 as u64);
                continue;
            }
            Entry::FetchMe { ga, weight } | Entry::MutRef { ga, weight } => {
                out.push(if matches!(e, Entry::FetchMe { .. }) {
                    FETCHME_BYTE
                } else {
                    MUTREF_BYTE
                });
                address(out, ga, weight);
                continue;
            }
            Entry::Raise(msg) => {
                out.push(RAISE_BYTE);
                put_word(out, msg.len() as u64);
                out.extend_from_slice(msg.as_bytes());
                continue;
            }
            Entry::Node { h, fields } | Entry::Thunk { h, fields, .. } => (*h, *fields),
        };
        let k = h_kind(h);
        let short = h == header(k, 1, 0) && !has_pointers(k);
        let first = if matches!(e, Entry::Thunk { .. }) {
            THUNK_BYTE
        } else {
            NODE_BYTE
        };
        out.push(first | k | if short { SHORT } else { 0 });
        if let Entry::Thunk { old, weight, .. } = e {
            address(out, old, weight);
        }
        if !short {
            put_word(out, h_size(h) as u64);
            put_word(out, h_info(h) as u64);
        }
        for &w in fields {
            match k {
                _ if has_pointers(k) => put_word(out, zigzag((w as i64).wrapping_sub(i as i64))),
                kind::INT | kind::SMALLINT => put_word(out, zigzag(w as i64)),
                kind::DOUBLE => out.extend_from_slice(&w.to_le_bytes()),
                _ => put_word(out, w),
            }
        }
    }
}

/// Reads a graph in the dense form from the front of `bytes` (advancing
/// it) back into [`pack`]'s words; an error, never a panic, for garbage.
pub fn read_graph(bytes: &mut &[u8]) -> Result<PackedGraph, String> {
    use crate::parallel::protocol::codec::take_word;
    let bad = || "a malformed graph".to_string();
    let word = |b: &mut &[u8]| take_word(b).ok_or_else(bad);
    let n = word(bytes)?;
    // Every entry takes a byte at least.
    if n > bytes.len() as u64 {
        return Err(bad());
    }
    let mut g: PackedGraph = Vec::with_capacity(1 + 4 * n as usize);
    g.push(n);
    for i in 0..n {
        let (&first, rest) = bytes.split_first().ok_or_else(bad)?;
        *bytes = rest;
        match first {
            STATIC_BYTE => {
                let p = u32::try_from(word(bytes)?).map_err(|_| bad())?;
                g.push(STATIC | (p as u64) << 32);
            }
            FETCHME_BYTE | MUTREF_BYTE => {
                g.push(if first == FETCHME_BYTE {
                    FETCHME
                } else {
                    MUTREF
                });
                for _ in 0..3 {
                    g.push(word(bytes)?);
                }
            }
            RAISE_BYTE => {
                let len = word(bytes)?;
                let len = usize::try_from(len)
                    .ok()
                    .filter(|&l| l <= bytes.len())
                    .ok_or_else(bad)?;
                let (msg, rest) = bytes.split_at(len);
                *bytes = rest;
                raise_entry(&mut g, msg);
            }
            _ if first < 0x80 => {
                let k = first & 0x1f;
                if k == 0 || k > kind::MUTREF {
                    return Err(bad());
                }
                if first & THUNK_BYTE != 0 {
                    g.push(THUNK);
                    for _ in 0..3 {
                        g.push(word(bytes)?);
                    }
                } else {
                    g.push(NODE);
                }
                let h = if first & SHORT != 0 {
                    header(k, 1, 0)
                } else {
                    let size = word(bytes)?;
                    let info = word(bytes)?;
                    if size > 0xff_ffff || info > u32::MAX as u64 || size > bytes.len() as u64 {
                        return Err(bad());
                    }
                    header(k, size as u32, info as u32)
                };
                g.push(h);
                for _ in 0..h_size(h) {
                    g.push(match k {
                        _ if has_pointers(k) => {
                            (i as i64).wrapping_add(unzigzag(word(bytes)?)) as u64
                        }
                        kind::INT | kind::SMALLINT => unzigzag(word(bytes)?) as u64,
                        kind::DOUBLE => {
                            let (b, rest) = bytes.split_first_chunk::<8>().ok_or_else(bad)?;
                            *bytes = rest;
                            u64::from_le_bytes(*b)
                        }
                        _ => word(bytes)?,
                    });
                }
            }
            _ => return Err(bad()),
        }
    }
    Ok(g)
}

/// A small well-formed graph (a cons of an Int and a static node), for
/// the messages' tests.
#[cfg(test)]
pub fn sample_graph() -> PackedGraph {
    vec![
        3,
        NODE,
        header(kind::CON, 2, 1),
        1,
        2,
        NODE,
        header(kind::INT, 1, 0),
        (-5i64) as u64,
        STATIC,
    ]
}

/// Heap words unpacking `p` may need (ensure them before [`unpack`]).
pub fn unpack_words(p: &[u64]) -> Result<usize, String> {
    Ok(entries(p)?
        .iter()
        .map(|e| match e {
            Entry::Static(_) => 0,
            Entry::Node { h, .. } | Entry::Thunk { h, .. } => Heap::node_words(*h),
            Entry::FetchMe { .. } | Entry::MutRef { .. } | Entry::Raise(_) => 2,
        })
        .sum())
}

const NO_ROOM: &str = "no room to unpack (unpack_words was not ensured)";

/// What unpacking produced.
pub struct Unpacked {
    pub root: Ptr,
    /// The moved thunks: (old slot on the sender, new address, its weight
    /// for the sender), for the ACK.
    pub moved: Vec<(PeId, u32, GlobalAddr, Weight)>,
}

/// Rebuilds the packed graph in `heap` (space for [`unpack_words`] must be
/// there). FetchMes to our own nodes resolve to them; FetchMes we already
/// hold are shared.
pub fn unpack(
    heap: &mut Heap,
    ga: &mut GaTable,
    raised: &mut Vec<String>,
    p: &[u64],
) -> Result<Unpacked, String> {
    let es = entries(p)?;
    let mut ptrs = Vec::with_capacity(es.len());
    let mut moved = Vec::new();
    for e in &es {
        let q = match e {
            Entry::Static(q) => {
                if q.0 as usize >= heap.static_end {
                    return Err("a packed graph names a static node out of range".into());
                }
                *q
            }
            Entry::Node { h, .. } | Entry::Thunk { h, .. } => {
                heap.alloc_node(*h, &[]).ok_or(NO_ROOM)?
            }
            Entry::Raise(msg) => {
                let h = header(kind::RAISE, 1, raised.len() as u32);
                raised.push(msg.clone());
                heap.alloc_node(h, &[]).ok_or(NO_ROOM)?
            }
            Entry::FetchMe { ga: g, weight } | Entry::MutRef { ga: g, weight } => {
                if let Some(node) = ga.arrive(*g, *weight)? {
                    node
                } else {
                    let k = match e {
                        Entry::FetchMe { .. } => kind::FETCHME,
                        _ => kind::MUTREF,
                    };
                    let q = heap.alloc_node(header(k, 1, 0), &[]).ok_or(NO_ROOM)?;
                    let i = ga.add_remote(*g, *weight, q);
                    heap.mem[q.0 as usize] = header(k, 1, i);
                    q
                }
            }
        };
        ptrs.push(q);
    }
    for (e, &q) in es.iter().zip(&ptrs) {
        let (h, fields) = match e {
            Entry::Node { h, fields } | Entry::Thunk { h, fields, .. } => (*h, *fields),
            _ => continue,
        };
        let pointers = has_pointers(h_kind(h));
        for (i, &w) in fields.iter().enumerate() {
            let v = if pointers {
                ptrs.get(w as usize)
                    .ok_or("a packed graph field out of range")?
                    .0 as u64
            } else {
                w
            };
            heap.mem[q.0 as usize + 1 + i] = v;
        }
        if let Entry::Thunk { old, weight, .. } = e {
            // We own the thunk now: a new address for the old owner's
            // RBH, whose old address's weight goes home.
            let (g, w) = ga.export_local(q);
            moved.push((old.pe, old.slot, g, w));
            ga.to_free.push((*old, *weight));
        }
    }
    Ok(Unpacked {
        root: *ptrs.first().ok_or("an empty packed graph")?,
        moved,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::heap::h_info;
    use crate::parallel::ga::WHOLE;
    use std::collections::HashMap;

    /// A tiny deterministic generator (tests only).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// `g` as the receiver gets it: written in the dense form and read
    /// back (the wire between every pack and unpack below).
    fn arrived(g: &PackedGraph) -> PackedGraph {
        let mut wire = Vec::new();
        write_graph(g, &mut wire);
        let mut rest = &wire[..];
        let back = read_graph(&mut rest).unwrap();
        assert!(rest.is_empty());
        back
    }

    fn heap() -> Heap {
        // A static area of 8 words (one static constructor at 0).
        let mut statics = vec![0u64; 8];
        statics[0] = header(kind::CON, 0, 0);
        Heap::new(statics, 1 << 16, 1 << 20)
    }

    fn alloc(h: &mut Heap, hdr: u64, words: &[u64]) -> Ptr {
        h.alloc_node(hdr, words).unwrap()
    }

    /// A random graph of constructors, Ints, thunks and static nodes, with
    /// sharing and cycles; returns its root.
    fn random_graph(h: &mut Heap, rng: &mut Rng, n: usize) -> Ptr {
        let mut nodes: Vec<Ptr> = Vec::new();
        for i in 0..n {
            let p = match rng.next(6) {
                0 => alloc(h, header(kind::INT, 1, 0), &[i as u64 * 7]),
                1 => Ptr(0),
                2 if !nodes.is_empty() => {
                    let f = nodes[rng.next(nodes.len() as u64) as usize];
                    alloc(h, header(kind::THUNK, 1, 42), &[f.0 as u64])
                }
                _ => {
                    let arity = 1 + rng.next(3) as usize;
                    // Fields point at earlier nodes (sharing) or, patched
                    // below, at later ones (cycles).
                    let fields: Vec<u64> = (0..arity)
                        .map(|_| match nodes.len() {
                            0 => 0,
                            m => nodes[rng.next(m as u64) as usize].0 as u64,
                        })
                        .collect();
                    alloc(h, header(kind::CON, arity as u32, 1 + i as u32), &fields)
                }
            };
            nodes.push(p);
        }
        // Some back edges from early constructors to late nodes.
        for _ in 0..n / 4 {
            let a = nodes[rng.next(n as u64) as usize];
            let b = nodes[rng.next(n as u64) as usize];
            if h.kind(a) == kind::CON && h_size(h.hdr(a)) > 0 {
                h.mem[a.0 as usize + 1] = b.0 as u64;
            }
        }
        *nodes.last().unwrap()
    }

    /// Checks that the graphs at `a` (in `ha`) and `b` (in `hb`) have the
    /// same shape: constructors and numbers equal, sharing preserved, and
    /// every FetchMe in `b` names the node of `a` in the same place.
    fn same_graph(ha: &Heap, ga: &GaTable, a: Ptr, hb: &Heap, gb: &GaTable, b: Ptr) {
        let mut seen: HashMap<Ptr, Ptr> = HashMap::new();
        let mut todo = vec![(a, b)];
        while let Some((a, b)) = todo.pop() {
            let (a, b) = (ha.deref(a), hb.deref(b));
            if let Some(&prev) = seen.get(&a) {
                assert_eq!(prev, b, "sharing lost");
                continue;
            }
            seen.insert(a, b);
            let (x, y) = (ha.hdr(a), hb.hdr(b));
            if h_kind(y) == kind::FETCHME {
                let r = gb.remote(h_info(y));
                assert_eq!(
                    ga.owned_node(r.ga.slot),
                    Some(a),
                    "FetchMe to the wrong node"
                );
                continue;
            }
            assert_eq!(x, y, "headers differ");
            match h_kind(x) {
                kind::CON => {
                    for i in 0..h_size(x) {
                        todo.push((ha.field(a, i), hb.field(b, i)));
                    }
                }
                kind::INT => assert_eq!(ha.word(a, 0), hb.word(b, 0)),
                _ => {}
            }
        }
    }

    #[test]
    fn random_graphs_survive_packing_with_sharing_and_cycles() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        for round in 0..200 {
            let mut ha = heap();
            let mut ga = GaTable::new(PeId(0));
            let n = 1 + rng.next(60) as usize;
            let root = random_graph(&mut ha, &mut rng, n);
            let limit = if round % 2 == 0 {
                1 << 20
            } else {
                8 + rng.next(100) as usize
            };
            let graph = pack(&mut ha, &mut ga, &[], root, Moves::NONE, limit);
            // The dense form on the wire is the same graph.
            let mut wire = Vec::new();
            write_graph(&graph, &mut wire);
            let mut rest = &wire[..];
            assert_eq!(read_graph(&mut rest).unwrap(), graph);
            assert!(rest.is_empty());
            for cut in 0..wire.len() {
                assert!(read_graph(&mut &wire[..cut]).is_err());
            }
            let root_words = 5 + h_size(ha.hdr(ha.deref(root)));
            assert!(graph.len() <= limit.max(root_words + FETCHME_WORDS * 3 + 1) + root_words);
            let mut hb = heap();
            let mut gb = GaTable::new(PeId(1));
            let u = unpack(&mut hb, &mut gb, &mut vec![], &arrived(&graph)).unwrap();
            assert!(u.moved.is_empty());
            same_graph(&ha, &ga, root, &hb, &gb, u.root);
        }
    }

    #[test]
    fn an_evaluated_selection_travels_as_the_field() {
        let mut ha = heap();
        ha.selectors = vec![crate::machine::load::NOT_SELECTOR, 1];
        let mut ga = GaTable::new(PeId(0));
        let x = alloc(&mut ha, header(kind::INT, 1, 0), &[1]);
        let y = alloc(&mut ha, header(kind::INT, 1, 0), &[2]);
        let pair = alloc(&mut ha, header(kind::CON, 2, 1), &[x.0 as u64, y.0 as u64]);
        // `snd pair`, and a selection from a thunk (which must stay).
        let snd = alloc(&mut ha, header(kind::THUNK, 1, 1), &[pair.0 as u64]);
        let lazy = alloc(&mut ha, header(kind::THUNK, 1, 0), &[0]);
        let snd_lazy = alloc(&mut ha, header(kind::THUNK, 1, 1), &[lazy.0 as u64]);
        let root = alloc(
            &mut ha,
            header(kind::CON, 2, 2),
            &[snd.0 as u64, snd_lazy.0 as u64],
        );
        let graph = pack(&mut ha, &mut ga, &[], root, Moves::NONE, 1024);
        let mut hb = heap();
        let mut gb = GaTable::new(PeId(1));
        let u = unpack(&mut hb, &mut gb, &mut vec![], &arrived(&graph)).unwrap();
        let got = hb.deref(hb.field(u.root, 0));
        assert_eq!((hb.kind(got), hb.word(got, 0)), (kind::INT, 2));
        assert_eq!(hb.kind(hb.field(u.root, 1)), kind::FETCHME);
        assert_eq!(ha.deref(snd), y, "the selection became an indirection");
    }

    #[test]
    fn a_moved_thunk_becomes_an_rbh_and_is_acknowledged() {
        let mut ha = heap();
        let mut ga = GaTable::new(PeId(0));
        let v = alloc(&mut ha, header(kind::INT, 1, 0), &[5]);
        let t = alloc(&mut ha, header(kind::THUNK, 2, 9), &[v.0 as u64, 0]);
        let graph = pack(
            &mut ha,
            &mut ga,
            &[],
            t,
            Moves {
                thunks: 1,
                depth: 0,
            },
            1024,
        );
        assert_eq!(ha.kind(t), kind::RBH);
        let mut hb = heap();
        let mut gb = GaTable::new(PeId(3));
        let u = unpack(&mut hb, &mut gb, &mut vec![], &arrived(&graph)).unwrap();
        assert_eq!(hb.kind(u.root), kind::THUNK);
        assert_eq!(h_info(hb.hdr(u.root)), 9);
        assert_eq!(hb.kind(hb.field(u.root, 0)), kind::INT);
        assert_eq!(u.moved.len(), 1);
        let (pe, slot, new, w) = u.moved[0];
        assert_eq!((pe, ga.owned_node(slot)), (PeId(0), Some(t)));
        assert_eq!(new.pe, PeId(3));
        assert_eq!(gb.owned_node(new.slot), Some(u.root));
        assert!(w.0 > 0 && w.0 < WHOLE.0);
        // The old address's weight goes home in a FREE.
        assert_eq!(gb.to_free.len(), 1);
    }

    #[test]
    fn fetchmes_home_again_resolve_to_the_local_node() {
        let mut ha = heap();
        let mut ga = GaTable::new(PeId(0));
        let t = alloc(&mut ha, header(kind::THUNK, 1, 9), &[0]);
        let c = alloc(&mut ha, header(kind::CON, 2, 1), &[t.0 as u64, t.0 as u64]);
        let p1 = pack(&mut ha, &mut ga, &[], c, Moves::NONE, 1024);
        let mut hb = heap();
        let mut gb = GaTable::new(PeId(1));
        let u = unpack(&mut hb, &mut gb, &mut vec![], &arrived(&p1)).unwrap();
        assert_eq!(gb.remote_count(), 1, "one FetchMe, shared by both fields");
        // Sent back, the FetchMe is the original thunk again, and the
        // weight it carried is home.
        let p2 = pack(&mut hb, &mut gb, &[], u.root, Moves::NONE, 1024);
        let u2 = unpack(&mut ha, &mut ga, &mut vec![], &arrived(&p2)).unwrap();
        assert_eq!(ha.field(u2.root, 0), t);
        assert_eq!(ha.field(u2.root, 1), t);
    }

    #[test]
    fn an_array_travels_with_its_evaluated_elements() {
        let mut ha = heap();
        let mut ga = GaTable::new(PeId(0));
        let n = 3000;
        let elems: Vec<u64> = (0..n)
            .map(|i| alloc(&mut ha, header(kind::INT, 1, 0), &[5000 + i as u64]).0 as u64)
            .collect();
        let lazy = alloc(&mut ha, header(kind::THUNK, 1, 9), &[0]);
        let arr = alloc(&mut ha, header(kind::ARRAY, n as u32 + 1, 0), &elems);
        ha.mem[arr.0 as usize + 1 + n] = lazy.0 as u64;
        // Far more than the limit, yet every number comes along.
        let graph = pack(&mut ha, &mut ga, &[], arr, Moves::NONE, 64);
        let mut hb = heap();
        let mut gb = GaTable::new(PeId(1));
        let u = unpack(&mut hb, &mut gb, &mut vec![], &arrived(&graph)).unwrap();
        assert_eq!(hb.kind(u.root), kind::ARRAY);
        assert_eq!(h_size(hb.hdr(u.root)), n + 1);
        for i in 0..n {
            let e = hb.field(u.root, i);
            assert_eq!((hb.kind(e), hb.word(e, 0)), (kind::INT, 5000 + i as u64));
        }
        assert_eq!(hb.kind(hb.field(u.root, n)), kind::FETCHME);
    }

    #[test]
    fn a_mutable_cell_is_never_copied_and_is_itself_at_home() {
        let mut ha = heap();
        let mut ga = GaTable::new(PeId(0));
        let v = alloc(&mut ha, header(kind::INT, 1, 0), &[42]);
        let cell = alloc(&mut ha, header(kind::MUTVAR, 1, 0), &[v.0 as u64]);
        let pair = alloc(
            &mut ha,
            header(kind::CON, 2, 1),
            &[cell.0 as u64, cell.0 as u64],
        );
        let graph = pack(&mut ha, &mut ga, &[], pair, Moves::NONE, 1024);
        let mut hb = heap();
        let mut gb = GaTable::new(PeId(1));
        let u = unpack(&mut hb, &mut gb, &mut vec![], &arrived(&graph)).unwrap();
        let r = hb.field(u.root, 0);
        assert_eq!(hb.kind(r), kind::MUTREF);
        assert!(is_value_kind(hb.kind(r)), "a reference is never fetched");
        assert_eq!(hb.field(u.root, 1), r, "one reference for one cell");
        // A reference as the root (a FETCH of a thunk that became the
        // cell) is a reference too.
        let graph = pack(&mut ha, &mut ga, &[], cell, Moves::NONE, 1024);
        let u2 = unpack(&mut hb, &mut gb, &mut vec![], &arrived(&graph)).unwrap();
        assert_eq!(u2.root, r);
        // Sent home, the reference is the cell itself.
        let back = pack(&mut hb, &mut gb, &[], u.root, Moves::NONE, 1024);
        let home = unpack(&mut ha, &mut ga, &mut vec![], &arrived(&back)).unwrap();
        assert_eq!(ha.field(home.root, 0), cell);
        assert_eq!(ha.field(home.root, 1), cell);
        // Passed on again and again, the reference runs out of weight: it
        // still names the cell, not the PE that passed it on.
        let mut hc = heap();
        let mut gc = GaTable::new(PeId(2));
        let mut last = None;
        for _ in 0..80 {
            let g = pack(&mut hb, &mut gb, &[], r, Moves::NONE, 1024);
            last = Some(
                unpack(&mut hc, &mut gc, &mut vec![], &arrived(&g))
                    .unwrap()
                    .root,
            );
        }
        let onward = pack(&mut hc, &mut gc, &[], last.unwrap(), Moves::NONE, 1024);
        let home = unpack(&mut ha, &mut ga, &mut vec![], &arrived(&onward)).unwrap();
        assert_eq!(home.root, cell);
    }

    #[test]
    fn garbage_graphs_are_errors() {
        let mut h = heap();
        let mut g = GaTable::new(PeId(0));
        for p in [
            vec![],
            vec![3],
            vec![1, 99],
            vec![1, NODE, header(kind::CON, 5, 0)],
        ] {
            assert!(unpack(&mut h, &mut g, &mut vec![], &p).is_err());
        }
    }
}
