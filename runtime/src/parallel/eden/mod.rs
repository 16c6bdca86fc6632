//! Eden's processes and channels (docs/eden.md): the runtime half of
//! `Control.Parallel.Eden`, whose library (prelude) drives it through the
//! `Eden*` primitives.
//!
//! A channel ends in an *inport*: a placeholder node (kind `INPORT`) in
//! the receiver's heap that blocks its readers as a black hole does, and
//! an entry in the PE's inport table that holds the placeholder weakly.
//! Its other end is an *outport*: a thread that `connect`ed to it and
//! sends what it evaluated. Data fills the placeholder with the ordinary
//! update (waking the readers); a stream element makes it `x : p'`, `p'` a
//! new placeholder of the same inport. An inport whose placeholder a
//! collection did not reach is dead: its sender is told (TERMINATE) and
//! stops at its next send. A send to a channel of this PE updates the
//! placeholder at once (no packing, no message).

pub mod message;

use crate::code::CONS;
use crate::machine::heap::{h_info, h_kind, header, kind, Ptr};
use crate::machine::pe::{err, Pe, Stop};
use crate::machine::thread::Thread;
use crate::obs::event::Event;
use crate::parallel::ids::PeId;
use crate::parallel::pack::{self, Moves};
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::internal;
use message::Message;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// A channel's name: the PE its inport lives on, and a number unique on
/// that PE (`owner` made it, its `n`-th; `comp` 1..9 for the components
/// of a tuple sent on the channel, 0 for the whole). The library sees it
/// as an `Int`: `pe << 48 | owner << 32 | n << 8 | comp`, so that the
/// component `k` of channel `c` is `c + k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chan {
    pub pe: PeId,
    pub owner: PeId,
    pub n: u32,
    pub comp: u8,
}

/// Channels a PE may make (24 bits of `n`).
const MAX_CHANS: u32 = 1 << 24;

impl Chan {
    pub fn word(self) -> u64 {
        (self.pe.0 as u64) << 48
            | (self.owner.0 as u64) << 32
            | (self.n as u64) << 8
            | self.comp as u64
    }

    pub fn from_word(w: u64) -> Chan {
        Chan {
            pe: PeId((w >> 48) as u16),
            owner: PeId((w >> 32) as u16),
            n: ((w >> 8) & 0xff_ffff) as u32,
            comp: w as u8,
        }
    }

    fn component(self, k: u32) -> Chan {
        Chan {
            comp: k as u8,
            ..self
        }
    }
}

/// The receiving end of a channel on this PE.
struct Inport {
    /// The placeholder readers wait on (held weakly once claimed).
    node: Ptr,
    /// Not yet handed to the library (`EdenChanValue`): a root till then.
    claimed: bool,
    /// Who sends on it (PE, thread), once a message said so.
    sender: Option<(PeId, u32)>,
    /// The process whose threads read it (None: the main program's).
    process: Option<u32>,
    /// Stream elements taken in since the last CREDIT.
    uncredited: u32,
}

/// A sending thread's channel.
struct Outport {
    chan: Chan,
    /// The receiver dropped the channel: the next send ends the stream.
    closed: bool,
    /// Stream elements sent that the receiver has not credited yet.
    in_flight: u32,
    /// What the thread waits on while the window is full (a placeholder
    /// that a CREDIT or TERMINATE fills).
    gate: Option<Ptr>,
}

/// Stream elements a sender may have on their way to another PE before
/// the receiver has taken them in, and how often the receiver says it has.
/// Eden has no such window: its streams are as eager as the network lets
/// them be. Without one a producer faster than its consumer's PE fills
/// that PE's mailbox without bound, and a stream its consumer dropped is
/// stopped only after the backlog is worked off (par_eden_termination on
/// 4 simulated PEs: 629,864 HEAD messages for 30 elements used).
const STREAM_WINDOW: u32 = 4096;
const CREDIT_EVERY: u32 = STREAM_WINDOW / 4;

/// Eden's state of one PE.
#[derive(Default)]
pub struct Eden {
    inports: HashMap<Chan, Inport>,
    outports: HashMap<u32, Outport>,
    next_chan: u32,
    /// Round-robin placement: the next PE (None: the one after this).
    next_pe: Option<u16>,
    /// Channels whose senders were told to stop (once is enough: a fast
    /// producer may have thousands of elements on their way).
    terminated: HashSet<Chan>,
    /// Words of stream data received since the last collection, and the
    /// heap's live words after it: a PE that takes in more than it had
    /// live collects early, so that a stream nobody reads any more is
    /// noticed (and its producer stopped) before it fills the heap.
    received_words: usize,
    live_words: usize,
    /// The process of each thread that belongs to one (the main program's
    /// threads belong to none): a process lives while a thread maps to it.
    thread_process: HashMap<u32, u32>,
    next_process: u32,
}

/// Stream data a PE takes in before it collects early, at least (words).
const EARLY_GC_WORDS: usize = 1 << 16;

impl Eden {
    pub fn roots_mut(&mut self, mut f: impl FnMut(&mut Ptr)) {
        for i in self.inports.values_mut().filter(|i| !i.claimed) {
            f(&mut i.node);
        }
        for g in self.outports.values_mut().filter_map(|o| o.gate.as_mut()) {
            f(g);
        }
    }

    /// After a collection: moves the claimed placeholders that survived
    /// and answers the dead ones' channels and senders.
    pub(crate) fn after_gc(
        &mut self,
        live_words: usize,
        forwarded: impl Fn(Ptr) -> Option<Ptr>,
    ) -> Vec<(Chan, (PeId, u32))> {
        self.received_words = 0;
        self.live_words = live_words;
        let mut dead = Vec::new();
        self.inports.retain(|chan, i| {
            if !i.claimed {
                return true;
            }
            match forwarded(i.node) {
                Some(q) => {
                    i.node = q;
                    true
                }
                None => {
                    if let Some(s) = i.sender {
                        dead.push((*chan, s));
                    }
                    false
                }
            }
        });
        dead
    }
}

/// Words a fill allocates at most: a cons cell and a new placeholder.
const FILL_WORDS: usize = 5;

/// How a sent value travels to its placeholder.
enum Fill {
    /// One stream element: the placeholder becomes `x : p'`.
    Head,
    /// The last value.
    Value,
}

impl Pe<'_, '_> {
    fn send_eden(&mut self, to: PeId, m: Message) {
        let env = Envelope::new(self.id(), to, m.kind(), m.encode());
        self.send_envelope(env);
    }

    /// A placeholder node (space ensured).
    fn placeholder(&mut self) -> Ptr {
        self.node(header(kind::INPORT, 1, 0), &[])
    }

    fn fresh_chan(&mut self, pe: PeId) -> Result<Chan, Stop> {
        let n = self.eden.next_chan;
        if n >= MAX_CHANS {
            return err(format!(
                "too many Eden channels made on PE {} (at most {MAX_CHANS})",
                self.id().0 + 1
            ));
        }
        self.eden.next_chan += 1;
        Ok(Chan {
            pe,
            owner: self.id(),
            n,
            comp: 0,
        })
    }

    /// A new inport here with placeholder `node`, read by `process`.
    fn open(&mut self, chan: Chan, node: Ptr, claimed: bool, process: Option<u32>) {
        let i = Inport {
            node,
            claimed,
            sender: None,
            process,
            uncredited: 0,
        };
        self.eden.inports.insert(chan, i);
    }

    /// The next allocation collects, so that inports nobody reads any more
    /// are found and their senders stopped now rather than after the
    /// producer has filled the heap (measured: `take 5` of an infinite
    /// two-stage pipeline sent 19,800 elements before, 6,000 under
    /// --gc-stress).
    fn collect_soon(&mut self) {
        self.heap.alloc_end = self.heap.hp;
    }

    /// The thread `id` ended. A process ends with its last thread; if it
    /// still has open inports, their streams are dead unless another
    /// process reads them, which the next collection tells.
    pub(crate) fn eden_thread_ended(&mut self, id: u32) {
        if let Some(o) = self.eden.outports.remove(&id) {
            if o.closed {
                // It stopped because its receiver dropped the channel: what
                // it was reading may be dead too.
                self.collect_soon();
            }
        }
        let Some(p) = self.eden.thread_process.remove(&id) else {
            return;
        };
        if !self.eden.thread_process.values().any(|&q| q == p) {
            self.obs.emit(Event::ProcessEnd { process: p });
            if self.eden.inports.values().any(|i| i.process == Some(p)) {
                self.collect_soon();
            }
        }
    }

    pub(crate) fn join_process(&mut self, thread: u32, p: u32) {
        self.obs.emit(Event::ProcessThread { process: p, thread });
        self.eden.thread_process.insert(thread, p);
    }

    pub(crate) fn process_of(&self, t: &Thread) -> Option<u32> {
        self.eden.thread_process.get(&t.id).copied()
    }

    /// `EdenNewChan`: a channel into this PE; the library claims its
    /// placeholder with `EdenChanValue`.
    pub(crate) fn eden_new_chan(&mut self, t: &mut Thread) -> Result<i64, Stop> {
        self.ensure(t, 2)?;
        let chan = self.fresh_chan(self.id())?;
        let p = self.placeholder();
        let process = self.process_of(t);
        self.open(chan, p, false, process);
        Ok(chan.word() as i64)
    }

    /// `EdenChanValue`: the placeholder of a channel made here.
    pub(crate) fn eden_chan_value(&mut self, c: i64) -> Result<Ptr, Stop> {
        let chan = Chan::from_word(c as u64);
        let here = chan.pe == self.id();
        match self.eden.inports.get_mut(&chan) {
            Some(i) if here => {
                i.claimed = true;
                Ok(i.node)
            }
            _ => err("internal error: the placeholder of an unknown channel"),
        }
    }

    /// The PE a process goes to: `pe` from 1 (modulo the PEs), or 0 for
    /// round robin from the PE after this one (this one included).
    fn place(&mut self, pe: i64) -> PeId {
        let n = self.npes as i64;
        if pe > 0 {
            return PeId(((pe - 1) % n) as u16);
        }
        let next = self
            .eden
            .next_pe
            .unwrap_or(((self.id().0 as i64 + 1) % n) as u16);
        self.eden.next_pe = Some(((next as i64 + 1) % n) as u16);
        PeId(next)
    }

    /// `EdenCreate`: a process on PE `pe` (see `place`) that runs `g` (a
    /// function of its input placeholder, an IO action) and the name of
    /// its input channel. The closure is in `t.ptrs[g]`.
    pub(crate) fn eden_create(&mut self, t: &mut Thread, pe: i64, g: usize) -> Result<i64, Stop> {
        let to = self.place(pe);
        let input = self.fresh_chan(to)?;
        if to == self.id() {
            self.ensure(t, 2)?;
            let p = self.placeholder();
            let f = self.heap.deref(t.ptrs[g]);
            self.start_process(input, f, p);
        } else {
            let root = t.ptrs[g];
            let graph = self.pack_copy(root);
            self.send_eden(to, Message::Create { input, graph });
        }
        Ok(input.word() as i64)
    }

    /// A new process reading channel `input` (placeholder `node`): its
    /// first thread runs `f node world`.
    fn start_process(&mut self, input: Chan, f: Ptr, node: Ptr) {
        let p = self.eden.next_process;
        self.eden.next_process += 1;
        self.open(input, node, true, Some(p));
        let unit = self.l.unit_node;
        self.obs.emit(Event::ProcessCreate { process: p });
        let id = self.spawn(self.l.process_entry, &[f, node, unit]);
        self.join_process(id, p);
    }

    /// `EdenConnect`: the thread `t` sends on `c` from now on.
    pub(crate) fn eden_connect(&mut self, t: &Thread, c: i64) {
        let chan = Chan::from_word(c as u64);
        let o = Outport {
            chan,
            closed: false,
            in_flight: 0,
            gate: None,
        };
        self.eden.outports.insert(t.id, o);
    }

    /// The channel thread `t` sends on, unless its receiver dropped it.
    fn outport(&self, t: &Thread, c: i64) -> Option<Chan> {
        let chan = Chan::from_word(c as u64);
        match self.eden.outports.get(&t.id) {
            Some(o) if o.closed && o.chan == chan => None,
            _ => Some(chan),
        }
    }

    /// `EdenSplit`: when the value in `t.ptrs[v]` (evaluated) is a tuple,
    /// the channel becomes one per component and the answer is their
    /// number; else 0.
    pub(crate) fn eden_split(&mut self, t: &mut Thread, c: i64, v: usize) -> Result<i64, Stop> {
        let p = self.heap.deref(t.ptrs[v]);
        let h = self.heap.hdr(p);
        if h_kind(h) != kind::CON {
            return Ok(0);
        }
        let con = h_info(h);
        let arity = match self.l.prog.cons.get(con as usize) {
            Some(ci) if ci.name.starts_with("(,") && (2..=9).contains(&ci.arity) => ci.arity,
            _ => return Ok(0),
        };
        let Some(chan) = self.outport(t, c) else {
            return Ok(arity as i64);
        };
        if chan.pe == self.id() {
            self.split_here(t, chan, (self.id(), t.id), con, arity)?;
        } else {
            let thread = t.id;
            self.send_eden(
                chan.pe,
                Message::Split {
                    chan,
                    thread,
                    con,
                    arity,
                },
            );
        }
        Ok(arity as i64)
    }

    /// The value on channel `chan` of this PE is a tuple of `arity`
    /// channels: its placeholder becomes a tuple of new ones.
    fn split_here(
        &mut self,
        t: &mut Thread,
        chan: Chan,
        from: (PeId, u32),
        con: u32,
        arity: u32,
    ) -> Result<(), Stop> {
        let n = arity as usize;
        self.ensure(t, 2 * n + 1 + n)?;
        let Some(old) = self.eden.inports.remove(&chan) else {
            self.dropped(chan, from);
            return Ok(());
        };
        let parts: Vec<Ptr> = (1..=arity)
            .map(|k| {
                let p = self.placeholder();
                self.open(chan.component(k), p, true, old.process);
                p
            })
            .collect();
        let tuple = self.build_con(con, &parts);
        self.update(old.node, tuple);
        Ok(())
    }

    /// `EdenSendHead` / `EdenSendValue`: sends the value in `t.ptrs[x]`
    /// (in normal form) on channel `c`: 1 if sent, 0 if the receiver
    /// dropped the channel (the library then ends the stream).
    pub(crate) fn eden_send(
        &mut self,
        t: &mut Thread,
        c: i64,
        x: usize,
        last: bool,
    ) -> Result<i64, Stop> {
        let Some(chan) = self.outport(t, c) else {
            return Ok(0);
        };
        let fill = if last { Fill::Value } else { Fill::Head };
        if chan.pe == self.id() {
            self.ensure(t, FILL_WORDS)?;
        }
        let ok = self.deliver(chan, t.id, t.ptrs[x], fill);
        if last {
            self.eden.outports.remove(&t.id);
        } else if ok && chan.pe != self.id() {
            if let Some(o) = self.eden.outports.get_mut(&t.id) {
                o.in_flight += 1;
                if o.in_flight >= STREAM_WINDOW {
                    return Ok(2);
                }
            }
        }
        Ok(ok as i64)
    }

    /// `EdenGate`: what the thread `t` evaluates before its next element
    /// on `c`: `()` when the window has room (or the channel closed), else
    /// a placeholder that the receiver's CREDIT fills.
    pub(crate) fn eden_gate(&mut self, t: &mut Thread, c: i64) -> Result<Ptr, Stop> {
        let chan = Chan::from_word(c as u64);
        let full = match self.eden.outports.get(&t.id) {
            Some(o) => o.chan == chan && !o.closed && o.in_flight >= STREAM_WINDOW,
            None => false,
        };
        if !full {
            return Ok(self.l.unit_node);
        }
        self.ensure(t, 2)?;
        let p = self.placeholder();
        if let Some(o) = self.eden.outports.get_mut(&t.id) {
            o.gate = Some(p);
        }
        Ok(p)
    }

    /// The receiver took in `n` more elements of `chan` from our thread
    /// `thread`, or (`None`) dropped the channel: a thread waiting at its
    /// gate goes on.
    fn credit(&mut self, chan: Chan, thread: u32, n: Option<u32>) {
        let Some(o) = self.eden.outports.get_mut(&thread) else {
            return;
        };
        if o.chan != chan {
            return;
        }
        match n {
            Some(n) => o.in_flight = o.in_flight.saturating_sub(n),
            None => o.closed = true,
        }
        if o.closed || o.in_flight < STREAM_WINDOW {
            if let Some(g) = o.gate.take() {
                let unit = self.l.unit_node;
                self.update(g, unit);
            }
        }
    }

    /// Our thread `thread` sends `v` on `chan`: into its placeholder when
    /// the channel is this PE's (FILL_WORDS ensured; false when the channel
    /// is gone), else as a message.
    fn deliver(&mut self, chan: Chan, thread: u32, v: Ptr, fill: Fill) -> bool {
        if chan.pe == self.id() {
            return self.fill_with(chan, (self.id(), thread), v, fill);
        }
        let graph = self.pack_copy(v);
        let m = match fill {
            Fill::Head => Message::Head {
                chan,
                thread,
                graph,
            },
            Fill::Value => Message::Value {
                chan,
                thread,
                graph,
            },
        };
        self.send_eden(chan.pe, m);
        true
    }

    /// Puts `v` into the placeholder of channel `chan` of this PE
    /// (FILL_WORDS ensured); false when the channel is gone.
    fn fill_with(&mut self, chan: Chan, from: (PeId, u32), v: Ptr, fill: Fill) -> bool {
        let Some(i) = self.eden.inports.get_mut(&chan) else {
            self.dropped(chan, from);
            return false;
        };
        i.sender = Some(from);
        let old = i.node;
        match fill {
            Fill::Head => {
                let p = self.placeholder();
                let cell = self.build_con(CONS.0, &[v, p]);
                if let Some(i) = self.eden.inports.get_mut(&chan) {
                    i.node = p;
                }
                self.update(old, cell);
            }
            Fill::Value => {
                self.eden.inports.remove(&chan);
                self.update(old, v);
            }
        }
        true
    }

    /// A message for a channel that is gone (or never was): its sender
    /// stops.
    pub(crate) fn dropped(&mut self, chan: Chan, (pe, thread): (PeId, u32)) {
        if pe == self.id() {
            self.credit(chan, thread, None);
        } else if self.eden.terminated.insert(chan) {
            self.send_eden(pe, Message::Terminate { chan, thread });
        }
    }

    /// A copy of the graph at `root` for another PE: values are copied
    /// whole (no size limit: Eden's data is sent, not shared); anything
    /// unevaluated inside stays here behind a FetchMe (GUM fetches it on
    /// demand).
    fn pack_copy(&mut self, root: Ptr) -> pack::PackedGraph {
        pack::pack(
            &mut self.heap,
            &mut self.ga,
            &self.raised,
            root,
            Moves::NONE,
            usize::MAX / 2,
        )
    }

    /// Unpacks `graph` with `extra` more words ensured; its root.
    fn unpack_with(&mut self, graph: &[u64], extra: usize) -> Result<Ptr, Stop> {
        let words = pack::unpack_words(graph).map_err(internal)?;
        self.ensure(&mut Thread::empty(), words + extra)?;
        let u = pack::unpack(&mut self.heap, &mut self.ga, &mut self.raised, graph)
            .map_err(internal)?;
        Ok(u.root)
    }

    /// Handles one of Eden's messages.
    pub(crate) fn eden_receive(&mut self, from: PeId, m: Message) -> Result<(), Stop> {
        match m {
            Message::Create { input, graph } => {
                let f = self.unpack_with(&graph, 2)?;
                let p = self.placeholder();
                self.start_process(input, f, p);
            }
            Message::Split {
                chan,
                thread,
                con,
                arity,
            } => self.split_here(&mut Thread::empty(), chan, (from, thread), con, arity)?,
            Message::Head {
                chan,
                thread,
                graph,
            } => self.receive_data(from, chan, thread, &graph, Fill::Head)?,
            Message::Value {
                chan,
                thread,
                graph,
            } => self.receive_data(from, chan, thread, &graph, Fill::Value)?,
            Message::Terminate { chan, thread } => self.dropped(chan, (self.id(), thread)),
            Message::Credit { chan, thread, n } => self.credit(chan, thread, Some(n)),
        }
        Ok(())
    }

    fn receive_data(
        &mut self,
        from: PeId,
        chan: Chan,
        thread: u32,
        graph: &[u64],
        fill: Fill,
    ) -> Result<(), Stop> {
        if !self.eden.inports.contains_key(&chan) {
            self.dropped(chan, (from, thread));
            return Ok(());
        }
        let v = self.unpack_with(graph, FILL_WORDS)?;
        let head = matches!(fill, Fill::Head);
        self.fill_with(chan, (from, thread), v, fill);
        if let Some(i) = self.eden.inports.get_mut(&chan).filter(|_| head) {
            i.uncredited += 1;
            if i.uncredited >= CREDIT_EVERY {
                let n = std::mem::take(&mut i.uncredited);
                self.send_eden(from, Message::Credit { chan, thread, n });
            }
        }
        self.eden.received_words += graph.len();
        if self.eden.received_words > self.eden.live_words.max(EARLY_GC_WORDS) {
            self.collect_soon();
        }
        Ok(())
    }

    /// The thread `t` failed with `msg`: if it was sending, its receiver
    /// gets the error as the value (raised when, and only if, demanded).
    pub(crate) fn eden_thread_failed(&mut self, t: &Thread, msg: &str) -> Result<(), Stop> {
        let Some(o) = self.eden.outports.remove(&t.id) else {
            return Ok(());
        };
        if o.closed {
            return Ok(());
        }
        self.ensure(&mut Thread::empty(), 2 + FILL_WORDS)?;
        let k = self.raised.len() as u32;
        self.raised.push(msg.to_string());
        let r = self.node(header(kind::RAISE, 1, k), &[]);
        self.deliver(o.chan, t.id, r, Fill::Value);
        Ok(())
    }
}
