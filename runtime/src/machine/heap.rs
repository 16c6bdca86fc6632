//! The heap of one PE: an arena of 64-bit words, nodes addressed by `u32`
//! word indices, and a copying (Cheney) garbage collector.
//!
//! A node is a header word followed by `size` payload words:
//!
//! ```text
//! header = kind (8 bits) | size (24 bits) << 8 | info (32 bits) << 32
//! ```
//!
//! `info` is the constructor id (CON), the supercombinator id (FUN, PAP,
//! THUNK), the owner thread (BLACKHOLE), the string index (STR), the index
//! of a remote reference (FETCHME, MUTREF) or the forwarding address
//! (FORWARD, during GC only). Which payload words are pointers is one
//! table, `pointer_words`; which kinds are values, `is_value_kind`; which
//! kinds threads wait on, `has_waiters_flag`.
//!
//! Word indices (not Rust pointers) make nodes position independent: the
//! heap grows by resizing the vector, and a collection is a copy into a
//! second vector of the same layout. The static area at the start (nullary
//! constructors, FUN nodes, small Int and Char boxes) holds no pointers and
//! is never copied: both semispaces carry the same prefix.
//!
//! Note [GC safety]
//! Any allocation may collect (`Pe::ensure`, `Pe::gc`), and a collection
//! moves every node it keeps: a `Ptr` in a Rust local is stale after it.
//! So whatever must survive an allocation is a root when it happens: a
//! thread's pointer registers (`Thread::ptrs`), `Pe::tmp` for arguments
//! being gathered, the spark pool, the CAF table, the GA tables, waiting
//! FETCHes and Eden's channels. Code that allocates looks its nodes up
//! again afterwards (unpacking a message may collect, so the FetchMe it
//! answers is found by its address after unpacking, not before). The
//! reducer keeps to this by construction: it holds pointers only in
//! registers. `--gc-stress` collects every few words to catch a breach.
//!
//! Note [Waiters flag]
//! The nodes a thread can block on (BLACKHOLE, FETCHME, RBH, INPORT) keep
//! in their first payload word whether any thread (or, for a black hole,
//! any FETCH from another PE) waits on them: 1 if so. The update
//! (`Pe::update`) and the other ends of a wait (an RBH's ACK, a failed
//! spark's RAISE) wake the PE's blocked threads only when it is set, so an
//! update nobody waits for costs no scan. A FETCHME's flag also says that
//! its FETCH is out (it is set by the first thread that enters it, which
//! sends the FETCH). Read and set it with `Heap::waiters` and
//! `Heap::set_waiters`.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A node: the index of its header word in the PE's heap.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Ptr(pub u32);

impl fmt::Debug for Ptr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Node kinds.
pub mod kind {
    /// Constructor: info = ConId, fields are pointers.
    pub const CON: u8 = 1;
    /// Int: one raw word (i64).
    pub const INT: u8 = 2;
    /// Double: one raw word (f64 bits).
    pub const DOUBLE: u8 = 3;
    /// Char: one raw word (code point).
    pub const CHAR: u8 = 4;
    /// Integer that fits an i64: one raw word.
    pub const SMALLINT: u8 = 5;
    /// Integer outside i64: payload = sign (0 or 1) then the magnitude's
    /// u64 limbs, least significant first (raw words).
    pub const BIGINT: u8 = 6;
    /// A function with no arguments yet (static): info = ScId.
    pub const FUN: u8 = 7;
    /// A partial application: info = ScId, fields = the arguments so far.
    pub const PAP: u8 = 8;
    /// An unevaluated closure: info = ScId, fields = free variables (at
    /// least one word, so that IND and BLACKHOLE fit over it).
    pub const THUNK: u8 = 9;
    /// An evaluated thunk: payload[0] = the value.
    pub const IND: u8 = 10;
    /// A thunk under evaluation: info = owner thread, payload[0] = 1 when
    /// some thread is blocked on it (Note [Waiters flag]).
    pub const BLACKHOLE: u8 = 11;
    /// A string literal not yet unpacked: info = string index, payload[0]
    /// = the byte offset of the rest.
    pub const STR: u8 = 12;
    /// The rest of a handle's input (hGetContents), read when demanded:
    /// payload[0] = the handle's number (0 for stdin; machine::io).
    pub const STDIN: u8 = 13;
    /// A mutable cell (an IORef): payload[0] = its value. A value in weak
    /// head normal form whose identity matters: it is never copied to
    /// another PE (packing sends a MUTREF to it).
    pub const MUTVAR: u8 = 14;
    /// GC only: the node has moved to info.
    pub const FORWARD: u8 = 15;
    /// A node on another PE: info = the index of its global address in the
    /// PE's table of remote references; payload[0] = 1 once a FETCH is out
    /// (threads wait on it as on a black hole; the RESUME updates it;
    /// Note [Waiters flag]).
    pub const FETCHME: u8 = 16;
    /// A revertible black hole: a thunk packed off to another PE, until the
    /// ACK turns it into a FETCHME. payload[0]: Note [Waiters flag].
    pub const RBH: u8 = 17;
    /// A thunk whose evaluation by a spark failed: entering it raises the
    /// error again (info = the message's index in the PE's error table).
    pub const RAISE: u8 = 18;
    /// The placeholder of an Eden channel's inport (parallel::eden):
    /// threads wait on it as on a black hole until data fills it.
    /// payload[0]: Note [Waiters flag].
    pub const INPORT: u8 = 19;
    /// An array (Data.Array's storage): size = the number of elements,
    /// fields = the elements (pointers, each possibly unevaluated). A value;
    /// mutable only while the library builds it (inside one evaluation),
    /// so it is copied between PEs as a constructor is.
    pub const ARRAY: u8 = 20;
    /// A mutable cell of another PE (a MUTVAR packed there): a value that
    /// is never fetched; info = the index of its global address in the
    /// PE's table of remote references, as for a FETCHME. Sent home again,
    /// it is the cell itself.
    pub const MUTREF: u8 = 21;
}

#[inline(always)]
pub const fn header(kind: u8, size: u32, info: u32) -> u64 {
    kind as u64 | (size as u64) << 8 | (info as u64) << 32
}
#[inline(always)]
pub const fn h_kind(h: u64) -> u8 {
    h as u8
}
#[inline(always)]
pub const fn h_size(h: u64) -> usize {
    ((h >> 8) & 0xff_ffff) as usize
}
#[inline(always)]
pub const fn h_info(h: u64) -> u32 {
    (h >> 32) as u32
}

/// Which payload words of a node are pointers (the rest are raw words):
/// all of them for CON, PAP, THUNK, ARRAY and MUTVAR, the first for an
/// IND, none for any other kind. This is the one table of it: the
/// collector, packing and the REPL's saved values read it (a test below
/// gives every kind its row).
#[inline(always)]
pub const fn pointer_words(h: u64) -> usize {
    match h_kind(h) {
        kind::CON | kind::PAP | kind::THUNK | kind::ARRAY | kind::MUTVAR => h_size(h),
        kind::IND => 1,
        _ => 0,
    }
}

/// Whether threads can block on a node of kind `k`, which then keeps
/// the flag of Note [Waiters flag].
#[inline(always)]
pub const fn has_waiters_flag(k: u8) -> bool {
    matches!(
        k,
        kind::BLACKHOLE | kind::FETCHME | kind::RBH | kind::INPORT
    )
}

/// Whether a node of kind `k` has pointer fields (`pointer_words`).
#[inline(always)]
pub const fn has_pointer_fields(k: u8) -> bool {
    pointer_words(header(k, 1, 0)) > 0
}

/// Is a node of this kind a value in weak head normal form?
#[inline(always)]
pub const fn is_value_kind(k: u8) -> bool {
    matches!(
        k,
        kind::CON
            | kind::INT
            | kind::DOUBLE
            | kind::CHAR
            | kind::SMALLINT
            | kind::BIGINT
            | kind::FUN
            | kind::PAP
            | kind::MUTVAR
            | kind::ARRAY
            | kind::MUTREF
    )
}

/// The largest payload a node may have (24-bit size field).
pub const MAX_NODE_WORDS: usize = 0xff_ffff;

pub struct Heap {
    /// The current semispace; `mem.len()` is its capacity.
    pub mem: Vec<u64>,
    /// The other semispace (allocated lazily, same static prefix).
    spare: Vec<u64>,
    /// Next free word.
    pub hp: usize,
    /// Allocation stops here (the capacity, or earlier in GC-stress mode).
    pub alloc_end: usize,
    /// End of the static area.
    pub static_end: usize,
    /// The run's heap limit, which this heap's two semispaces draw on.
    budget: Arc<HeapBudget>,
    /// GC stress: allow only this many words between collections.
    pub stress: Option<usize>,
    // scan pointer during a collection, and the node whose fields are
    // being updated (usize::MAX when none)
    scan: usize,
    under_scan: usize,
    /// Per supercombinator: the field a selector thunk picks, or
    /// `load::NOT_SELECTOR` (empty: no selector thunks are known).
    pub selectors: Vec<u16>,
}

/// The heap limit of a run (`--heap-limit`), in words, shared by its PEs:
/// each PE's heap takes from it twice what its semispace grows by (the
/// other semispace will follow), and gives it back when dropped. Counting
/// both semispaces of every PE keeps the run's resident memory near the
/// limit: with the limit per PE and for one semispace, a program that
/// grew without end reached 2.1 times the limit on one PE, and N PEs each
/// had a whole limit of their own.
#[derive(Debug)]
pub struct HeapBudget {
    limit_words: usize,
    reserved: AtomicUsize,
}

impl HeapBudget {
    pub fn new(limit_bytes: usize) -> HeapBudget {
        HeapBudget {
            limit_words: limit_bytes / 8,
            reserved: AtomicUsize::new(0),
        }
    }

    /// A limit of `words` for both semispaces of one heap (tests, tools).
    pub fn of_words(words: usize) -> Arc<HeapBudget> {
        Arc::new(HeapBudget::new(words * 8))
    }

    /// Takes up to `want` words if at least `at_least` are left; how many.
    fn take(&self, want: usize, at_least: usize) -> usize {
        let left = |r: usize| self.limit_words.saturating_sub(r);
        match self
            .reserved
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |r| {
                let got = want.min(left(r));
                (left(r) >= at_least && got > 0).then_some(r + got)
            }) {
            Ok(before) => want.min(left(before)),
            Err(_) => 0,
        }
    }

    fn give_back(&self, words: usize) {
        let _ = self
            .reserved
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |r| {
                Some(r.saturating_sub(words))
            });
    }
}

/// Selector thunks followed in one go: a chain can be as long as a list
/// (and a cycle of them is a `<<loop>>`, left to the reducer).
const SELECT_CHAIN: usize = 4096;

/// A selection found during a collection.
enum Selected {
    /// The field, a from-space address.
    From(usize),
    /// The field, already in to-space.
    Done(Ptr),
}

impl Heap {
    /// A heap whose static area is `statics` (already laid out), with an
    /// initial semispace of `initial` words (static area included).
    pub fn new(statics: Vec<u64>, initial: usize, budget: Arc<HeapBudget>) -> Heap {
        let static_end = statics.len();
        let cap = initial.max(static_end + 1024);
        let mut mem = statics;
        mem.resize(cap, 0);
        // The first semispaces are taken whatever is left: a PE must start.
        budget.reserved.fetch_add(2 * cap, Ordering::SeqCst);
        Heap {
            mem,
            spare: Vec::new(),
            hp: static_end,
            alloc_end: cap,
            static_end,
            budget,
            stress: None,
            scan: 0,
            under_scan: usize::MAX,
            selectors: Vec::new(),
        }
    }

    #[inline(always)]
    pub fn try_alloc(&mut self, words: usize) -> Option<Ptr> {
        let p = self.hp;
        if p + words <= self.alloc_end {
            self.hp = p + words;
            Some(Ptr(p as u32))
        } else {
            None
        }
    }

    /// Words a node with header `h` takes (at least one payload word, so
    /// that an indirection or a black hole fits over it).
    pub fn node_words(h: u64) -> usize {
        1 + h_size(h).max(1)
    }

    /// A node with header `h` and `payload` (the rest zero), or None when
    /// the space is not there (outside the reducer, which bump-allocates).
    pub fn alloc_node(&mut self, h: u64, payload: &[u64]) -> Option<Ptr> {
        let n = Heap::node_words(h);
        let p = self.try_alloc(n)?;
        let i = p.0 as usize;
        self.mem[i] = h;
        self.mem[i + 1..i + n].fill(0);
        self.mem[i + 1..i + 1 + payload.len()].copy_from_slice(payload);
        Some(p)
    }

    /// Whether threads wait on the node `p` (Note [Waiters flag]).
    #[inline(always)]
    pub fn waiters(&self, p: Ptr) -> bool {
        self.mem[p.0 as usize + 1] != 0
    }
    /// Records that something waits on the node `p` (Note [Waiters flag]).
    #[inline(always)]
    pub fn set_waiters(&mut self, p: Ptr) {
        self.mem[p.0 as usize + 1] = 1;
    }

    #[inline(always)]
    pub fn hdr(&self, p: Ptr) -> u64 {
        self.mem[p.0 as usize]
    }
    #[inline(always)]
    pub fn word(&self, p: Ptr, i: usize) -> u64 {
        self.mem[p.0 as usize + 1 + i]
    }
    #[inline(always)]
    pub fn set_word(&mut self, p: Ptr, i: usize, w: u64) {
        self.mem[p.0 as usize + 1 + i] = w;
    }
    #[inline(always)]
    pub fn field(&self, p: Ptr, i: usize) -> Ptr {
        Ptr(self.mem[p.0 as usize + 1 + i] as u32)
    }
    #[inline(always)]
    pub fn kind(&self, p: Ptr) -> u8 {
        h_kind(self.mem[p.0 as usize])
    }

    /// The field a selector thunk with header `h` picks, if it is one.
    #[inline(always)]
    fn selects(&self, h: u64) -> Option<usize> {
        if h_kind(h) != kind::THUNK {
            return None;
        }
        match self.selectors.get(h_info(h) as usize) {
            Some(&f) if f != crate::machine::load::NOT_SELECTOR => Some(f as usize),
            _ => None,
        }
    }

    /// `p` (dereferenced), or what it selects when it is a selector thunk
    /// whose constructor is evaluated; such thunks become indirections.
    pub fn select(&mut self, p: Ptr) -> Ptr {
        let mut p = self.deref(p);
        for _ in 0..SELECT_CHAIN {
            let Some(i) = self.selects(self.hdr(p)) else {
                break;
            };
            let c = self.deref(self.field(p, 0));
            let hc = self.hdr(c);
            if h_kind(hc) != kind::CON || h_size(hc) <= i {
                break;
            }
            let v = self.deref(self.field(c, i));
            if v == p {
                break;
            }
            self.mem[p.0 as usize] = header(kind::IND, h_size(self.hdr(p)) as u32, 0);
            self.mem[p.0 as usize + 1] = v.0 as u64;
            p = v;
        }
        p
    }

    /// Follows indirections.
    #[inline(always)]
    pub fn deref(&self, mut p: Ptr) -> Ptr {
        loop {
            let h = self.mem[p.0 as usize];
            if h_kind(h) != kind::IND {
                return p;
            }
            p = Ptr(self.mem[p.0 as usize + 1] as u32);
        }
    }

    /// Whether the value at `p` is in normal form: no thunk (or anything
    /// else a walk to normal form would evaluate or wait for) reachable
    /// through constructors and arrays, as `rnf` walks; partial
    /// applications and functions count as values, as there. Gives up
    /// (false) after `limit` nodes, so a large or cyclic value costs at
    /// most that; evaluates nothing.
    pub fn normal_form(&self, p: Ptr, limit: usize) -> bool {
        let mut todo = vec![p];
        let mut seen = 0;
        while let Some(q) = todo.pop() {
            seen += 1;
            if seen > limit {
                return false;
            }
            let q = self.deref(q);
            let h = self.hdr(q);
            match h_kind(h) {
                kind::CON | kind::ARRAY => todo.extend((0..h_size(h)).map(|i| self.field(q, i))),
                k if is_value_kind(k) => {}
                _ => return false,
            }
        }
        true
    }

    /// Words in use in the dynamic area.
    pub fn live_words(&self) -> usize {
        self.hp - self.static_end
    }

    // ------------------------------------------------------------ GC
    //
    // A collection is: `begin`, `evacuate` every root, `scan`, `finish`.
    // The PE drives it because only the PE knows its roots.

    /// Starts a collection: the to-space gets the capacity of the current
    /// semispace (so everything live fits).
    pub fn begin(&mut self) {
        let cap = self.mem.len();
        if self.spare.len() != cap {
            self.spare.clear();
            self.spare.extend_from_slice(&self.mem[..self.static_end]);
            self.spare.resize(cap, 0);
        }
        std::mem::swap(&mut self.mem, &mut self.spare);
        // `mem` is now the to-space, `spare` the from-space.
        self.hp = self.static_end;
        self.scan = self.static_end;
    }

    /// Copies the node `p` (from-space) into to-space if not yet copied,
    /// short-circuiting indirections and evaluated selections; returns its
    /// new address.
    #[inline]
    pub fn evacuate(&mut self, p: Ptr) -> Ptr {
        let p = self.deref_spare(p.0 as usize);
        if p < self.static_end {
            return Ptr(p as u32);
        }
        let h = self.spare[p];
        match h_kind(h) {
            kind::FORWARD => Ptr(h_info(h)),
            kind::THUNK if self.selects(h).is_some() => self.evacuate_selector(p),
            _ => self.copy(p, h),
        }
    }

    fn copy(&mut self, p: usize, h: u64) -> Ptr {
        let n = h_size(h) + 1;
        let to = self.hp;
        self.mem[to..to + n].copy_from_slice(&self.spare[p..p + n]);
        self.hp = to + n;
        self.spare[p] = header(kind::FORWARD, 0, to as u32);
        Ptr(to as u32)
    }

    /// Evacuates the selector thunk `p` (from-space): when its constructor
    /// is evaluated, as the field it selects, following a chain of such
    /// selections (the `zs` of `(ys, zs) = span p xs` is one, as long as
    /// the list); every thunk of the chain stands for the result.
    fn evacuate_selector(&mut self, p: usize) -> Ptr {
        let mut chain: Vec<usize> = Vec::new();
        let mut cur = p;
        let r = loop {
            let selected = if chain.len() < SELECT_CHAIN {
                self.selection(cur)
            } else {
                None
            };
            let f = match selected {
                None => break self.copy(cur, self.spare[cur]),
                Some(Selected::Done(r)) => {
                    chain.push(cur);
                    break r;
                }
                Some(Selected::From(f)) => {
                    chain.push(cur);
                    self.deref_spare(f)
                }
            };
            if f < self.static_end {
                break Ptr(f as u32);
            }
            let h = self.spare[f];
            match h_kind(h) {
                kind::FORWARD => break Ptr(h_info(h)),
                kind::THUNK if self.selects(h).is_some() => cur = f,
                _ => break self.copy(f, h),
            }
        };
        for q in chain {
            self.spare[q] = header(kind::FORWARD, 0, r.0);
        }
        r
    }

    /// What the selector thunk `p` (from-space) selects, if its
    /// constructor is evaluated.
    fn selection(&self, p: usize) -> Option<Selected> {
        let i = self.selects(self.spare[p])?;
        let c = self.deref_spare(self.spare[p + 1] as usize);
        if c < self.static_end {
            return None; // nullary constructors and boxes: no fields
        }
        let hc = self.spare[c];
        match h_kind(hc) {
            kind::CON if h_size(hc) > i => Some(Selected::From(self.spare[c + 1 + i] as usize)),
            kind::FORWARD => {
                // Copied already: its fields are to-space addresses once
                // scanned, from-space ones before. (The node under the scan
                // is neither for sure.)
                let to = h_info(hc) as usize;
                let ht = self.mem[to];
                if h_kind(ht) != kind::CON || h_size(ht) <= i || to == self.under_scan {
                    return None;
                }
                let f = self.mem[to + 1 + i] as usize;
                Some(if to < self.scan {
                    Selected::Done(Ptr(f as u32))
                } else {
                    Selected::From(f)
                })
            }
            _ => None,
        }
    }

    /// The from-space node `p` stands for, past indirections (a static
    /// address as it is).
    #[inline(always)]
    fn deref_spare(&self, mut p: usize) -> usize {
        while p >= self.static_end && h_kind(self.spare[p]) == kind::IND {
            p = self.spare[p + 1] as usize;
        }
        p
    }

    /// Is `p` (from-space, during a collection) a value, looking through
    /// indirections and forwarding? Used to drop fizzled sparks.
    pub fn gc_is_value(&self, p: Ptr) -> bool {
        let mut p = p.0 as usize;
        loop {
            let h = if p < self.static_end {
                self.mem[p]
            } else {
                self.spare[p]
            };
            match h_kind(h) {
                kind::IND => p = self.spare[p + 1] as usize,
                kind::FORWARD => return is_value_kind(h_kind(self.mem[h_info(h) as usize])),
                k => return is_value_kind(k),
            }
        }
    }

    /// After the scan: where the from-space node `p` went, if it survived
    /// (static nodes stay put).
    pub fn forwarded(&self, p: Ptr) -> Option<Ptr> {
        let i = p.0 as usize;
        if i < self.static_end {
            return Some(p);
        }
        let h = self.spare[i];
        (h_kind(h) == kind::FORWARD).then(|| Ptr(h_info(h)))
    }

    /// The Cheney scan: evacuates everything the copied nodes point to.
    pub fn scan(&mut self) {
        while self.scan < self.hp {
            let s = self.scan;
            let h = self.mem[s];
            let n = h_size(h);
            self.under_scan = s;
            for i in s + 1..s + 1 + pointer_words(h) {
                let q = self.evacuate(Ptr(self.mem[i] as u32));
                self.mem[i] = q.0 as u64;
            }
            self.scan = s + 1 + n;
        }
        self.under_scan = usize::MAX;
    }

    /// Ends a collection. `need` words must then be allocatable; grows the
    /// semispace (geometrically, up to the limit) when less than half of it
    /// would be free. Err(limit in words) when even the limit is too small.
    pub fn finish(&mut self, need: usize) -> Result<(), usize> {
        let live = self.hp - self.static_end;
        let cap = self.mem.len();
        let want = self.static_end + 2 * (live + need);
        if want > cap {
            // Growth by what the run's limit has left for both semispaces.
            let grow = cap.saturating_mul(2).max(want) - cap;
            let must = (self.hp + need).saturating_sub(cap);
            let got = self.budget.take(2 * grow, 2 * must) / 2;
            // Out of heap, or as good as: held back by the limit, with
            // less free than an eighth of the live data, the program would
            // collect again and again, each time copying it all for a few
            // words of room (a list growing under --heap-limit 1G took 9 s
            // to fail, most of them in such collections; GHC stops).
            let thrashing = got < grow && cap + got - self.hp < need + live / THRASHING;
            if self.hp + need > cap + got || thrashing {
                self.budget.give_back(2 * got);
                return Err(self.budget.limit_words);
            }
            if got > 0 {
                self.mem.resize(cap + got, 0);
            }
        }
        // Under stress the next collection comes after `k` words, or after
        // a 32nd of the live heap when that is more: collecting a large live
        // heap every 24 words made a streaming Eden program 4,000 times
        // slower than its allocation (par_eden_streams on 4 sim PEs: 24 s;
        // 0.56 s with the share),
        // while 32 keeps the collector's work within 32 times the program's.
        self.alloc_end = match self.stress {
            Some(k) => (self.hp + need + k.max(live / STRESS_SHARE)).min(self.mem.len()),
            None => self.mem.len(),
        };
        Ok(())
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        self.budget.give_back(2 * self.mem.len());
    }
}

/// A heap the limit keeps from growing is exhausted when less than the
/// live data over this is free after a collection (`Heap::finish`).
const THRASHING: usize = 8;

/// Under GC stress, at most this many collections per live heap's worth
/// of allocation (see `Heap::finish`).
const STRESS_SHARE: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind has its row in each property table. A new kind fails here until it is
    /// given one.
    #[test]
    fn every_kind_has_a_row_in_the_property_tables() {
        use kind::*;
        #[rustfmt::skip]
        // (kind, pointer words of a node of size 3, a value, waited on)
        let rows: [(u8, usize, bool, bool); 21] = [
            (CON, 3, true, false), (INT, 0, true, false), (DOUBLE, 0, true, false),
            (CHAR, 0, true, false), (SMALLINT, 0, true, false), (BIGINT, 0, true, false),
            (FUN, 0, true, false), (PAP, 3, true, false), (THUNK, 3, false, false),
            (IND, 1, false, false), (BLACKHOLE, 0, false, true), (STR, 0, false, false),
            (STDIN, 0, false, false), (MUTVAR, 3, true, false), (FORWARD, 0, false, false),
            (FETCHME, 0, false, true), (RBH, 0, false, true), (RAISE, 0, false, false),
            (INPORT, 0, false, true), (ARRAY, 3, true, false), (MUTREF, 0, true, false),
        ];
        let kinds: Vec<u8> = rows.iter().map(|r| r.0).collect();
        assert_eq!(
            kinds,
            (1..=21).collect::<Vec<u8>>(),
            "the kinds are 1..=21, each once"
        );
        for (k, ptrs, value, waited) in rows {
            assert_eq!(
                pointer_words(header(k, 3, 0)),
                ptrs,
                "pointer words of kind {k}"
            );
            assert_eq!(has_pointer_fields(k), ptrs > 0, "kind {k}");
            assert_eq!(is_value_kind(k), value, "is kind {k} a value");
            assert_eq!(has_waiters_flag(k), waited, "is kind {k} waited on");
        }
        assert_eq!(pointer_words(header(22, 3, 0)), 0);
    }

    fn heap() -> Heap {
        let mut statics = vec![0u64; 2];
        statics[0] = header(kind::CON, 0, 0);
        let mut h = Heap::new(statics, 1 << 12, HeapBudget::of_words(2 << 16));
        // Supercombinator 1 selects field 1, 2 field 0.
        h.selectors = vec![crate::machine::load::NOT_SELECTOR, 1, 0];
        h
    }

    fn node(h: &mut Heap, hdr: u64, words: &[u64]) -> Ptr {
        h.alloc_node(hdr, words).unwrap()
    }

    fn collect(h: &mut Heap, roots: &mut [Ptr]) {
        h.begin();
        for r in roots.iter_mut() {
            *r = h.evacuate(*r);
        }
        h.scan();
        h.finish(0).unwrap();
    }

    #[test]
    fn arrays_and_cells_keep_what_they_hold() {
        let mut h = heap();
        let garbage = node(&mut h, header(kind::INT, 1, 0), &[7]);
        let elems: Vec<u64> = (0..50)
            .map(|i| node(&mut h, header(kind::INT, 1, 0), &[100 + i]).0 as u64)
            .collect();
        let arr = node(&mut h, header(kind::ARRAY, 50, 0), &elems);
        let cell = node(&mut h, header(kind::MUTVAR, 1, 0), &[arr.0 as u64]);
        let empty = node(&mut h, header(kind::ARRAY, 0, 0), &[]);
        let _ = garbage;
        let mut roots = [cell, empty];
        collect(&mut h, &mut roots);
        let arr = h.field(roots[0], 0);
        assert_eq!(h.kind(arr), kind::ARRAY);
        for i in 0..50 {
            assert_eq!(h.word(h.field(arr, i), 0), 100 + i as u64);
        }
        assert_eq!(
            (h.kind(roots[1]), h_size(h.hdr(roots[1]))),
            (kind::ARRAY, 0)
        );
        // the cell, the array, its 50 numbers and the empty array
        assert_eq!(h.live_words(), 2 + 51 + 50 * 2 + 1);
    }

    /// `zs` of `(ys, zs) = span p xs`, n levels deep: each level's pair is
    /// (cell, next level's `snd` selection).
    #[test]
    fn a_chain_of_evaluated_selections_collapses_in_one_collection() {
        let mut h = heap();
        let end = node(&mut h, header(kind::INT, 1, 0), &[99]);
        let mut sel = end;
        for i in 0..100 {
            let cell = node(&mut h, header(kind::INT, 1, 0), &[i]);
            let pair = node(
                &mut h,
                header(kind::CON, 2, 1),
                &[cell.0 as u64, sel.0 as u64],
            );
            sel = node(&mut h, header(kind::THUNK, 1, 1), &[pair.0 as u64]);
        }
        let mut roots = [sel];
        collect(&mut h, &mut roots);
        assert_eq!((h.kind(roots[0]), h.word(roots[0], 0)), (kind::INT, 99));
        assert_eq!(h.live_words(), 2, "only the Int survives");
    }

    #[test]
    fn selections_from_unevaluated_or_copied_nodes_stay_correct() {
        let mut h = heap();
        let lazy = node(&mut h, header(kind::THUNK, 1, 0), &[0]);
        let pending = node(&mut h, header(kind::THUNK, 1, 2), &[lazy.0 as u64]);
        let a = node(&mut h, header(kind::INT, 1, 0), &[1]);
        let b = node(&mut h, header(kind::INT, 1, 0), &[2]);
        let pair = node(&mut h, header(kind::CON, 2, 1), &[a.0 as u64, b.0 as u64]);
        let fst = node(&mut h, header(kind::THUNK, 1, 2), &[pair.0 as u64]);
        let snd = node(&mut h, header(kind::THUNK, 1, 1), &[pair.0 as u64]);
        // A selection whose selected field is the selection itself: a
        // <<loop>> for the reducer, not the collector's business.
        let knot = node(&mut h, header(kind::CON, 1, 1), &[0]);
        let own = node(&mut h, header(kind::THUNK, 1, 2), &[knot.0 as u64]);
        h.mem[knot.0 as usize + 1] = own.0 as u64;
        // The pair is reached first, so the selections meet it copied.
        let mut roots = [pair, pending, fst, snd, own];
        collect(&mut h, &mut roots);
        let [pair, pending, fst, snd, own] = roots;
        assert_eq!(h.kind(pending), kind::THUNK);
        assert_eq!(fst, h.field(pair, 0));
        assert_eq!(snd, h.field(pair, 1));
        assert_eq!(h.word(snd, 0), 2);
        assert_eq!(h.kind(own), kind::THUNK);
        // Reached through two constructors, the selection meets the pair
        // copied and scanned.
        let inner = node(&mut h, header(kind::CON, 1, 1), &[0]);
        let outer = node(&mut h, header(kind::CON, 1, 1), &[inner.0 as u64]);
        let snd2 = node(&mut h, header(kind::THUNK, 1, 1), &[pair.0 as u64]);
        h.mem[inner.0 as usize + 1] = snd2.0 as u64;
        let mut roots = [pair, outer];
        collect(&mut h, &mut roots);
        let got = h.field(h.field(roots[1], 0), 0);
        assert_eq!(got, h.field(roots[0], 1));
        assert_eq!(h.word(got, 0), 2);
    }
}
