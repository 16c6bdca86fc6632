//! Packing a graph into a [`PackedGraph`] and unpacking it in another PE's heap
//! (GUM's PackNearbyGraph, docs/design.md "Many PEs").
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

use crate::machine::heap::{
    h_kind, h_size, has_pointer_fields, header, is_value_kind, kind, Heap, Ptr,
};
use crate::parallel::ga::{GaTable, GlobalAddr, Weight};
use crate::parallel::ids::PeId;
use rustc_hash::FxHashMap;

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

/// The end of a chain of slots waiting for a node's number.
const NO_SLOT: usize = usize::MAX;

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
    SCRATCH.with_borrow_mut(|scratch| {
        // (Empty already, unless a panic left a packing half done.)
        scratch.empty();
        let Scratch {
            number,
            waiting,
            stack,
            moved,
            fresh,
        } = &mut *scratch;
        let mut out: PackedGraph = Vec::with_capacity(32);
        out.push(0);
        // Entries are numbered as they are written; a field naming a node not
        // written yet is patched when it is (`waiting`: where to patch).
        // `waiting[q]` is the last slot naming q; each such slot holds the
        // one before it (NO_SLOT ends the chain), so a node waited for costs
        // no list of its own. (Fx hashing: the keys are heap indices, and an
        // Eden stream packs one small graph per element: with SipHash and a
        // Vec per waiting node, packing was a third of edenEcho's run on 2
        // PEs.)
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
        stack.push((root, 0));
        waiting.insert(root, NO_SLOT);
        let mut count = 0u64;
        while let Some((p, depth)) = stack.pop() {
            let e = count;
            count += 1;
            number.insert(p, e);
            let mut at = waiting.remove(&p).unwrap_or(NO_SLOT);
            while at != NO_SLOT {
                let before = out[at] as usize;
                out[at] = e;
                at = before;
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
            let room =
                out.len() + 5 + n * (1 + FETCHME_WORDS) + stack.len() * FETCHME_WORDS <= limit;
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
                    match waiting.get_mut(&q) {
                        Some(last) => {
                            out.push(*last as u64);
                            *last = at;
                        }
                        None => {
                            out.push(NO_SLOT as u64);
                            waiting.insert(q, at);
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
        for &p in moved.iter() {
            // The thunk has left: it is an RBH until the ACK.
            let i = p.0 as usize;
            let size = h_size(heap.mem[i]);
            heap.mem[i] = header(kind::RBH, size as u32, 0);
            for w in &mut heap.mem[i + 1..i + 1 + size] {
                *w = 0;
            }
        }
        scratch.empty();
        out
    })
}

/// `pack`'s working tables, kept from one call to the next on each PE's
/// thread: an Eden stream packs a small graph per element, and making
/// them anew each time cost more than the packing.
#[derive(Default)]
struct Scratch {
    number: FxHashMap<Ptr, u64>,
    waiting: FxHashMap<Ptr, usize>,
    stack: Vec<(Ptr, usize)>,
    moved: Vec<Ptr>,
    fresh: Vec<Ptr>,
}

impl Scratch {
    /// Empties the tables for the next call; a big graph's are dropped
    /// (clearing costs their capacity).
    fn empty(&mut self) {
        const KEEP: usize = 4096;
        if self.number.capacity() > KEEP || self.stack.capacity() > KEEP {
            *self = Scratch::default();
            return;
        }
        self.number.clear();
        self.waiting.clear();
        self.stack.clear();
        self.moved.clear();
        self.fresh.clear();
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
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

/// Whether a node of kind `k` has pointer fields (else raw words). Of the
/// kinds with pointers, MUTVAR and IND never travel as nodes (a MUTREF
/// goes instead, an IND is passed over).
fn has_pointers(k: u8) -> bool {
    has_pointer_fields(k)
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
// * `RUN_BYTE`: a run of cons cells whose heads are numbers or characters
//   (short, above) and whose tails are the next cell, as depth-first
//   packing writes a list: the cells' header (size and info), the
//   elements' kind, the run's length, then each element's value. The last
//   cell's tail is the entry after the run (`[]`, a FetchMe, ...).
// An Int in a list took 7 to 9 bytes on its own (a cons cell of 5, the
// number of 2 to 4), against 56 as 64-bit words; in a run it takes its
// value's 1 to 3. matmult 700 on 16 simulated PEs sends every PE the
// second matrix's 490,000 small Ints: 5.78 s virtual with the 7-9 bytes,
// the main PE's network interface busy throughout.
const NODE_BYTE: u8 = 0x00;
const THUNK_BYTE: u8 = 0x40;
const SHORT: u8 = 0x20;
const STATIC_BYTE: u8 = 0x80;
const FETCHME_BYTE: u8 = 0x81;
const MUTREF_BYTE: u8 = 0x82;
const RAISE_BYTE: u8 = 0x83;
const RUN_BYTE: u8 = 0x84;

/// Whether a node of header `h` travels as a short node: one raw word,
/// the usual header of its kind.
fn is_short(h: u64) -> bool {
    let k = h_kind(h);
    h == header(k, 1, 0) && !has_pointers(k)
}

/// The run of list cells starting at entry `i` (see `RUN_BYTE`), if
/// there is one of two cells at least: cells with the same header whose
/// head is the next entry, short and of one kind, and whose tail is the
/// entry after that. Its length, the cells' header and the heads' kind.
fn run_at(es: &[Entry], i: usize) -> Option<(usize, u64, u8)> {
    let cell = |j: usize| match es.get(j) {
        Some(Entry::Node { h, fields })
            if h_kind(*h) == kind::CON
                && fields.len() == 2
                && fields[0] == j as u64 + 1
                && fields[1] == j as u64 + 2 =>
        {
            match es.get(j + 1) {
                Some(Entry::Node { h: eh, .. }) if is_short(*eh) => Some((*h, *eh)),
                _ => None,
            }
        }
        _ => None,
    };
    let first = cell(i)?;
    let mut n = 1;
    while cell(i + 2 * n) == Some(first) {
        n += 1;
    }
    (n >= 2).then_some((n, first.0, h_kind(first.1)))
}

/// Writes a raw word of a node of kind `k` in the dense form.
fn put_raw(out: &mut Vec<u8>, k: u8, w: u64) {
    use crate::parallel::protocol::codec::put_word;
    match k {
        kind::INT | kind::SMALLINT => put_word(out, zigzag(w as i64)),
        kind::DOUBLE => out.extend_from_slice(&w.to_le_bytes()),
        _ => put_word(out, w),
    }
}

/// Reads a raw word of a node of kind `k` in the dense form.
fn take_raw(bytes: &mut &[u8], k: u8) -> Option<u64> {
    use crate::parallel::protocol::codec::take_word;
    match k {
        kind::INT | kind::SMALLINT => Some(unzigzag(take_word(bytes)?) as u64),
        kind::DOUBLE => {
            let (b, rest) = bytes.split_first_chunk::<8>()?;
            *bytes = rest;
            Some(u64::from_le_bytes(*b))
        }
        _ => take_word(bytes),
    }
}

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
    // (Most words of a graph take a byte or two on the wire.)
    out.reserve(2 * g.len());
    put_word(out, es.len() as u64);
    let address = |out: &mut Vec<u8>, ga: &GlobalAddr, w: &Weight| {
        put_word(out, ga.pe.0 as u64);
        put_word(out, ga.slot as u64);
        put_word(out, w.0);
    };
    // The next entry's number.
    let mut next = 0;
    while next < es.len() {
        let i = next;
        let e = &es[i];
        next += 1;
        if let Some((run, cell, head)) = run_at(&es, i) {
            out.push(RUN_BYTE);
            put_word(out, h_size(cell) as u64);
            put_word(out, h_info(cell) as u64);
            out.push(head);
            put_word(out, run as u64);
            for j in 0..run {
                let Entry::Node { fields, .. } = es[i + 2 * j + 1] else {
                    unreachable!("checked by run_at")
                };
                put_raw(out, head, fields[0]);
            }
            next = i + 2 * run;
            continue;
        }
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
        let short = is_short(h);
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
            if has_pointers(k) {
                put_word(out, zigzag((w as i64).wrapping_sub(i as i64)));
            } else {
                put_raw(out, k, w);
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
    // Every entry takes a byte at least, but the two of a run's cell and
    // its head may share one.
    if n > 2 * bytes.len() as u64 {
        return Err(bad());
    }
    let mut g: PackedGraph = Vec::with_capacity(1 + 4 * n as usize);
    g.push(n);
    // The next entry's number.
    let mut next = 0;
    while next < n {
        let (&first, rest) = bytes.split_first().ok_or_else(bad)?;
        *bytes = rest;
        let i = next;
        next += 1;
        match first {
            RUN_BYTE => {
                let size = word(bytes)?;
                let info = u32::try_from(word(bytes)?).map_err(|_| bad())?;
                let (&k, rest) = bytes.split_first().ok_or_else(bad)?;
                *bytes = rest;
                let run = word(bytes)?;
                // A run has two cells at least, of two fields, with short
                // heads; it writes 2 x run entries of the n.
                let heads = header(k, 1, 0);
                if size != 2
                    || k == 0
                    || k > kind::MUTREF
                    || !is_short(heads)
                    || run < 2
                    || run > (n - i - 1) / 2
                {
                    return Err(bad());
                }
                let cell = header(kind::CON, 2, info);
                for j in 0..run {
                    let e = i + 2 * j;
                    g.extend([NODE, cell, e + 1, e + 2, NODE, heads]);
                    g.push(take_raw(bytes, k).ok_or_else(bad)?);
                }
                next = i + 2 * run;
            }
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
                    g.push(if has_pointers(k) {
                        (i as i64).wrapping_add(unzigzag(word(bytes)?)) as u64
                    } else {
                        take_raw(bytes, k).ok_or_else(bad)?
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
pub(crate) mod tests {
    use super::*;
    use crate::machine::heap::{h_info, HeapBudget};
    use crate::parallel::ga::WHOLE;
    use std::collections::HashMap;

    /// A tiny deterministic generator (tests only; the wire's fuzz test
    /// too).
    pub(crate) struct Rng(pub u64);
    impl Rng {
        /// A number below `n` (which must not be 0).
        pub fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }

        pub fn below(&mut self, n: usize) -> usize {
            self.next(n.max(1) as u64) as usize
        }

        pub fn byte(&mut self) -> u8 {
            self.next(256) as u8
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
        Heap::new(statics, 1 << 16, HeapBudget::of_words(2 << 20))
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

    /// A list of `n` atoms of the given kinds (cycling through them),
    /// ending in the static `[]` at 0, or in a thunk when `lazy_tail`.
    fn atom_list(h: &mut Heap, kinds: &[u8], n: usize, lazy_tail: bool) -> Ptr {
        let mut tail = if lazy_tail {
            alloc(h, header(kind::THUNK, 1, 7), &[0])
        } else {
            Ptr(0)
        };
        for i in (0..n).rev() {
            let k = kinds[i % kinds.len()];
            let w = match k {
                kind::DOUBLE => (i as f64 * -1.5).to_bits(),
                kind::INT => (i as i64 * 977 - 5000) as u64,
                _ => 'a' as u64 + i as u64 % 26,
            };
            let x = alloc(h, header(k, 1, 0), &[w]);
            tail = alloc(h, header(kind::CON, 2, 1), &[x.0 as u64, tail.0 as u64]);
        }
        tail
    }

    #[test]
    fn lists_of_numbers_and_characters_travel_as_runs() {
        let kinds: [&[u8]; 5] = [
            &[kind::INT],
            &[kind::CHAR],
            &[kind::DOUBLE],
            &[kind::INT, kind::CHAR],
            &[kind::INT, kind::INT, kind::DOUBLE],
        ];
        for (round, ks) in kinds.iter().enumerate() {
            for n in [0, 1, 2, 3, 10, 500] {
                let mut ha = heap();
                let mut ga = GaTable::new(PeId(0));
                let root = atom_list(&mut ha, ks, n, round % 2 == 1);
                let limit = if n == 500 { 300 } else { 1 << 20 };
                let graph = pack(&mut ha, &mut ga, &[], root, Moves::NONE, limit);
                let mut wire = Vec::new();
                write_graph(&graph, &mut wire);
                let mut rest = &wire[..];
                assert_eq!(
                    read_graph(&mut rest).unwrap_or_else(|e| panic!("{ks:?} x {n}: {e}")),
                    graph,
                    "{ks:?} x {n}"
                );
                assert!(rest.is_empty());
                for cut in 0..wire.len() {
                    assert!(read_graph(&mut &wire[..cut]).is_err());
                }
                let mut hb = heap();
                let mut gb = GaTable::new(PeId(1));
                let u = unpack(&mut hb, &mut gb, &mut vec![], &arrived(&graph)).unwrap();
                same_graph(&ha, &ga, root, &hb, &gb, u.root);
            }
        }
        // A string of 1,000 characters takes a byte each, and a few more.
        let mut ha = heap();
        let mut ga = GaTable::new(PeId(0));
        let root = atom_list(&mut ha, &[kind::CHAR], 1000, false);
        let graph = pack(&mut ha, &mut ga, &[], root, Moves::NONE, 1 << 20);
        let mut wire = Vec::new();
        write_graph(&graph, &mut wire);
        assert!(wire.len() < 1020, "{} bytes", wire.len());
    }

    #[test]
    fn malformed_runs_are_errors() {
        // Entry count 5; a run of 2 cells of kind INT: 4 entries, then
        // the tail's entry.
        let good = [5, RUN_BYTE, 2, 1, kind::INT, 2, 2, 4, STATIC_BYTE, 0];
        assert!(read_graph(&mut &good[..]).is_ok());
        for (at, b) in [
            (2, 3),         // cells of 3 fields
            (4, kind::CON), // heads with pointers
            (4, 0),         // no kind
            (4, 0x1f),      // no such kind
            (5, 1),         // a run of one
            (5, 3),         // more cells than entries
            (0, 4),         // the last tail names no entry
        ] {
            let mut bad = good;
            bad[at] = b;
            assert!(read_graph(&mut &bad[..]).is_err(), "byte {at} = {b}");
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
