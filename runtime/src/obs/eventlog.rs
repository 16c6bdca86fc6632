//! `--eventlog`: GHC's binary eventlog, which ThreadScope opens and the
//! ghc-events library reads, one capability per PE.
//!
//! The format (GHC's rts/eventlog/EventLogFormat.h; all numbers big
//! endian): a header that describes every event type used (number, size
//! or variable, description), then the data: events of type (u16), time
//! (u64 nanoseconds) and fields. Each PE's events come in blocks, each
//! headed by a block marker that names its capability; a PE fills a
//! block of at most [`BLOCK_BYTES`] and appends it whole to the file, so
//! memory is bounded and a run stopped half way leaves a file of complete
//! blocks (ghc-events reads it, reporting only the missing end marker).
//!
//! How gph's events map onto GHC's (see docs/observe.md):
//!
//! * thread ids are unique in the log: PE × 2^24 + n for the n-th thread
//!   made on the PE (gph reuses thread numbers; GHC never does);
//! * stop status: yielded → ThreadYielding (3), blocked on a black hole →
//!   BlockedOnBlackHole (8), blocked on a FETCH → BlockedOnMsgGlobalise
//!   (18, GUM's "waiting for a global address"), on an MVar →
//!   BlockedOnMVar (7), in threadDelay → BlockedOnDelay (11), finished or
//!   failed → ThreadFinished (5);
//! * a spark that arrives from PE p (SCHEDULE) is a SPARK_STEAL with
//!   victim p on the thief's capability, as in GHC; the victim's side is
//!   the SEND_MESSAGE;
//! * messages are the parallel RTS's SEND_MESSAGE / RECEIVE_MESSAGE: the
//!   tag is Eden's opcode (0x50 + n: FINISH → Finish, FAIL → FailPE, GUM's
//!   kinds → Packet, ghc-events knowing no GUM opcode), the gph kind is in
//!   the port field (0 FISH, 1 SCHEDULE, 2 FETCH, 3 RESUME, 4 ACK, 5 FREE,
//!   6 FINISH, 7 FAIL), machines are numbered from 1 (PE + 1, as Eden's
//!   `selfPe`), processes and threads there are 0 (GUM has none);
//! * each PE is its own capability set (a GUM PE is an OS process with
//!   its own heap), so heap sizes are per PE; HEAP_ALLOCATED is the
//!   running total of the PE's allocation, HEAP_LIVE what survived a
//!   collection;
//! * SPARK_COUNTERS are written at each collection, every half
//!   millisecond of spark activity, and at the end;
//! * a collection during a thread's slice is stamped with the slice's
//!   start (as every event of a step but its end), so it is written
//!   before the RUN_THREAD of that instant: ThreadScope wants a
//!   capability's runs and collections not to overlap, as in GHC.

use super::event::{Event, StopWhy};
use super::out::{nanos, Appender, RunInfo, Target};
use super::{Activity, Recorder};
use crate::parallel::ids::PeId;
use crate::parallel::protocol::MsgKind;
use std::collections::HashMap;
use std::sync::Arc;

/// The most bytes of one block (GHC's RTS uses 2 MB buffers; smaller
/// blocks reach the file sooner).
pub const BLOCK_BYTES: usize = 64 << 10;

/// Seconds of spark activity between two SPARK_COUNTERS.
const COUNTERS_EVERY: f64 = 0.5e-3;

// Event type numbers (EventLogFormat.h).
const CREATE_THREAD: u16 = 0;
const RUN_THREAD: u16 = 1;
const STOP_THREAD: u16 = 2;
const THREAD_WAKEUP: u16 = 8;
const GC_START: u16 = 9;
const GC_END: u16 = 10;
const BLOCK_MARKER: u16 = 18;
const CAPSET_CREATE: u16 = 25;
const CAPSET_ASSIGN_CAP: u16 = 27;
const RTS_IDENTIFIER: u16 = 29;
const PROGRAM_ARGS: u16 = 30;
const SPARK_COUNTERS: u16 = 34;
const SPARK_CREATE: u16 = 35;
const SPARK_DUD: u16 = 36;
const SPARK_OVERFLOW: u16 = 37;
const SPARK_RUN: u16 = 38;
const SPARK_STEAL: u16 = 39;
const SPARK_FIZZLE: u16 = 40;
const SPARK_GC: u16 = 41;
const CAP_CREATE: u16 = 45;
const HEAP_ALLOCATED: u16 = 49;
const HEAP_SIZE: u16 = 50;
const HEAP_LIVE: u16 = 51;
const USER_MARKER: u16 = 58;
const HACK_BUG_T9003: u16 = 59;
const CREATE_PROCESS: u16 = 62;
const KILL_PROCESS: u16 = 63;
const ASSIGN_THREAD_TO_PROCESS: u16 = 64;
const SEND_MESSAGE: u16 = 67;
const RECEIVE_MESSAGE: u16 = 68;

/// Variable size, in the header.
const VARIABLE: u16 = 0xffff;

/// Every event type the log may hold: number, size of the fields (or
/// VARIABLE), description. USER_MARKER and HACK_BUG_T9003 are declared,
/// never written: readers take their presence to mean the stop-status
/// numbering of GHC 7.8.3 and later, the one used here.
const TYPES: &[(u16, u16, &str)] = &[
    (CREATE_THREAD, 4, "Create thread"),
    (RUN_THREAD, 4, "Run thread"),
    (STOP_THREAD, 10, "Stop thread"),
    (THREAD_WAKEUP, 6, "Wakeup thread"),
    (GC_START, 0, "Starting GC"),
    (GC_END, 0, "Finished GC"),
    (BLOCK_MARKER, 14, "Block marker"),
    (CAPSET_CREATE, 6, "Create capability set"),
    (CAPSET_ASSIGN_CAP, 6, "Add capability to capability set"),
    (RTS_IDENTIFIER, VARIABLE, "RTS name and version"),
    (PROGRAM_ARGS, VARIABLE, "Program arguments"),
    (SPARK_COUNTERS, 56, "Spark counters"),
    (SPARK_CREATE, 0, "Spark create"),
    (SPARK_DUD, 0, "Spark dud"),
    (SPARK_OVERFLOW, 0, "Spark overflow"),
    (SPARK_RUN, 0, "Spark run"),
    (SPARK_STEAL, 2, "Spark steal"),
    (SPARK_FIZZLE, 0, "Spark fizzle"),
    (SPARK_GC, 0, "Spark GC"),
    (CAP_CREATE, 2, "Create capability"),
    (HEAP_ALLOCATED, 12, "Total heap memory ever allocated"),
    (HEAP_SIZE, 12, "Current heap size"),
    (HEAP_LIVE, 12, "Current heap live data"),
    (USER_MARKER, VARIABLE, "User marker"),
    (HACK_BUG_T9003, 0, "Empty event for bug #9003"),
    (CREATE_PROCESS, 4, "Create process"),
    (KILL_PROCESS, 4, "Kill process"),
    (ASSIGN_THREAD_TO_PROCESS, 8, "Assign thread to process"),
    (SEND_MESSAGE, 19, "Send message"),
    (RECEIVE_MESSAGE, 23, "Receive message"),
];

const HEADER_BEGIN: u32 = 0x6864_7262; // "hdrb"
const HEADER_END: u32 = 0x6864_7265; // "hdre"
const DATA_BEGIN: u32 = 0x6461_7462; // "datb"
const DATA_END: u16 = 0xffff;
const HET_BEGIN: u32 = 0x6865_7462; // "hetb"
const HET_END: u32 = 0x6865_7465; // "hete"
const ET_BEGIN: u32 = 0x6574_6200; // "etb\0"
const ET_END: u32 = 0x6574_6500; // "ete\0"
const CAPSET_OSPROCESS: u16 = 2;

/// Thread stop statuses (GHC's rts/Constants.h, as ghc-events reads them).
const THREAD_YIELDING: u16 = 3;
const THREAD_FINISHED: u16 = 5;
const BLOCKED_ON_MVAR: u16 = 7;
const BLOCKED_ON_BLACK_HOLE: u16 = 8;
const BLOCKED_ON_DELAY: u16 = 11;
const BLOCKED_ON_MSG_GLOBALISE: u16 = 18;

/// Eden's message opcodes (ghc-events' MessageTag, from 0x50).
const TAG_FINISH: u8 = 0x53;
const TAG_FAIL: u8 = 0x54;
const TAG_RFORK: u8 = 0x55;
const TAG_DATA: u8 = 0x57;
const TAG_HEAD: u8 = 0x58;
const TAG_TERMINATE: u8 = 0x5b;
const TAG_PACKET: u8 = 0x5c;

/// A stop reason as GHC's stop status.
fn stop_status(why: StopWhy) -> u16 {
    match why {
        StopWhy::Yielded => THREAD_YIELDING,
        StopWhy::BlockedOnBlackHole => BLOCKED_ON_BLACK_HOLE,
        StopWhy::BlockedOnFetch => BLOCKED_ON_MSG_GLOBALISE,
        StopWhy::BlockedOnMVar => BLOCKED_ON_MVAR,
        StopWhy::BlockedOnDelay => BLOCKED_ON_DELAY,
        StopWhy::Finished | StopWhy::Failed => THREAD_FINISHED,
    }
}

/// A message kind as Eden's opcode.
fn message_tag(kind: MsgKind) -> u8 {
    match kind {
        MsgKind::Finish => TAG_FINISH,
        MsgKind::Fail => TAG_FAIL,
        MsgKind::Create => TAG_RFORK,
        MsgKind::Split | MsgKind::Value => TAG_DATA,
        MsgKind::Head => TAG_HEAD,
        MsgKind::Terminate => TAG_TERMINATE,
        // A packet is Eden's PACKET, and so are GUM's kinds: ghc-events
        // knows no GUM opcode (nor gph's CREDIT and PESTATIC).
        MsgKind::Packet
        | MsgKind::Fish
        | MsgKind::Schedule
        | MsgKind::Fetch
        | MsgKind::Resume
        | MsgKind::Ack
        | MsgKind::Free
        | MsgKind::Credit
        | MsgKind::PeStatic => TAG_PACKET,
    }
}

/// The kind's number (the port field).
fn kind_number(kind: MsgKind) -> u32 {
    MsgKind::ALL.iter().position(|&k| k == kind).unwrap_or(0) as u32
}

/// The bytes of an eventlog being written.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn u8(&mut self, x: u8) {
        self.0.push(x);
    }
    fn u16(&mut self, x: u16) {
        self.0.extend_from_slice(&x.to_be_bytes());
    }
    fn u32(&mut self, x: u32) {
        self.0.extend_from_slice(&x.to_be_bytes());
    }
    fn u64(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_be_bytes());
    }
    /// An event's type and time.
    fn event(&mut self, ty: u16, ns: u64) {
        self.u16(ty);
        self.u64(ns);
    }
    /// A variable-size event: its type, time, and `payload` (its size is
    /// the eventlog's u16, so a longer payload is cut).
    fn variable(&mut self, ty: u16, ns: u64, payload: &[u8]) {
        let payload = &payload[..payload.len().min(u16::MAX as usize - 1)];
        self.event(ty, ns);
        self.u16(payload.len() as u16);
        self.0.extend_from_slice(payload);
    }
}

/// An eventlog file being written.
#[derive(Debug)]
pub struct EventLog {
    file: Arc<Appender>,
}

impl EventLog {
    /// Whether events were left out for the file's limit.
    pub fn cut(&self) -> bool {
        self.file.cut()
    }

    /// Creates the file and writes the header and what describes the run:
    /// a capability set per PE, with its capability, the RTS name and the
    /// program's arguments.
    pub fn create(path: impl Into<Target>, info: &RunInfo) -> Result<EventLog, String> {
        let file = Appender::create(path, info.file_limit)?;
        let mut b = Bytes::default();
        b.u32(HEADER_BEGIN);
        b.u32(HET_BEGIN);
        for &(num, size, desc) in TYPES {
            b.u32(ET_BEGIN);
            b.u16(num);
            b.u16(size);
            b.u32(desc.len() as u32);
            b.0.extend_from_slice(desc.as_bytes());
            b.u32(0); // no extra information
            b.u32(ET_END);
        }
        b.u32(HET_END);
        b.u32(HEADER_END);
        b.u32(DATA_BEGIN);
        // Events before any block belong to no capability.
        let rts = format!("gph-{} {}", env!("CARGO_PKG_VERSION"), info.engine);
        let mut args = Vec::new();
        for a in std::iter::once(&info.program).chain(&info.args) {
            args.extend_from_slice(a.as_bytes());
            args.push(0);
        }
        for pe in 0..info.pes.max(1) as u32 {
            b.event(CAPSET_CREATE, 0);
            b.u32(pe);
            b.u16(CAPSET_OSPROCESS);
            b.event(CAP_CREATE, 0);
            b.u16(pe as u16);
            b.event(CAPSET_ASSIGN_CAP, 0);
            b.u32(pe);
            b.u16(pe as u16);
            let mut p = pe.to_be_bytes().to_vec();
            p.extend_from_slice(rts.as_bytes());
            b.variable(RTS_IDENTIFIER, 0, &p);
            let mut p = pe.to_be_bytes().to_vec();
            p.extend_from_slice(&args);
            b.variable(PROGRAM_ARGS, 0, &p);
        }
        file.append(&b.0);
        Ok(EventLog {
            file: Arc::new(file),
        })
    }

    /// PE `pe`'s recorder.
    pub fn for_pe(&self, pe: PeId) -> Box<dyn Recorder> {
        Box::new(PeLog {
            file: self.file.clone(),
            pe,
            buf: Bytes::default(),
            last: 0,
            threads: HashMap::new(),
            made: 0,
            allocated: 0,
            sparks: SparkCounts::default(),
            counted_at: None,
            run: None,
            held: Vec::new(),
        })
    }

    /// Ends the data (every PE has written its last block).
    pub fn finish(&self) -> Result<(), String> {
        self.file.finish(&DATA_END.to_be_bytes())
    }
}

/// GHC's spark counters of one capability.
#[derive(Clone, Copy, Default, PartialEq)]
struct SparkCounts {
    created: u64,
    dud: u64,
    overflowed: u64,
    converted: u64,
    gcd: u64,
    fizzled: u64,
    /// Sparks sent away in answer to a FISH.
    exported: u64,
    /// Sparks from other PEs run here (in `converted`, never in the pool).
    received: u64,
}

impl SparkCounts {
    /// Sparks still in the pool.
    fn remaining(&self) -> u64 {
        self.created
            .saturating_sub(self.converted - self.received)
            .saturating_sub(self.gcd + self.fizzled + self.exported)
    }
}

/// One PE's part of the eventlog: the block being filled.
struct PeLog {
    file: Arc<Appender>,
    pe: PeId,
    buf: Bytes,
    /// Time of the last event written, ns (the block's end time).
    last: u64,
    /// The log's id of each live thread, by gph's thread number.
    threads: HashMap<u32, u32>,
    /// Threads made on this PE so far.
    made: u32,
    /// Bytes allocated so far.
    allocated: u64,
    sparks: SparkCounts,
    /// When SPARK_COUNTERS were last written (seconds).
    counted_at: Option<f64>,
    /// A RUN_THREAD not written yet (log's thread id, ns): collections
    /// of the same instant go first.
    run: Option<(u32, u64)>,
    /// Events of that instant that go after it.
    held: Vec<(f64, Event)>,
}

impl PeLog {
    fn capset(&self) -> u32 {
        self.pe.0 as u32
    }

    /// Starts an event at `ns`, opening a block if none is.
    fn event(&mut self, ty: u16, ns: u64) {
        if self.buf.0.is_empty() {
            // The marker; its size and end time are filled in by `flush`.
            self.buf.event(BLOCK_MARKER, ns);
            self.buf.u32(0);
            self.buf.u64(0);
            self.buf.u16(self.pe.0);
        }
        self.last = ns;
        self.buf.event(ty, ns);
    }

    /// Writes the block out.
    fn flush(&mut self) {
        if self.buf.0.is_empty() {
            return;
        }
        let size = self.buf.0.len() as u32;
        self.buf.0[10..14].copy_from_slice(&size.to_be_bytes());
        self.buf.0[14..22].copy_from_slice(&self.last.to_be_bytes());
        self.file.append(&self.buf.0);
        self.buf.0.clear();
    }

    /// The log's id of thread `thread`, made now if it is new.
    fn thread_id(&mut self, thread: u32) -> u32 {
        let (pe, made) = (self.pe.0 as u32, &mut self.made);
        *self.threads.entry(thread).or_insert_with(|| {
            *made += 1;
            (pe << 24) | (*made & 0xff_ffff)
        })
    }

    /// The log's id of process `process` of this PE: unique in the log,
    /// as thread ids are.
    fn process_id(&self, process: u32) -> u32 {
        ((self.pe.0 as u32) << 24) | ((process + 1) & 0xff_ffff)
    }

    fn spark_counters(&mut self, t: f64, ns: u64) {
        self.counted_at = Some(t);
        let s = self.sparks;
        self.event(SPARK_COUNTERS, ns);
        // GHC's order: created, dud, overflowed, converted, GC'd, fizzled,
        // remaining.
        for x in [
            s.created,
            s.dud,
            s.overflowed,
            s.converted,
            s.gcd,
            s.fizzled,
            s.remaining(),
        ] {
            self.buf.u64(x);
        }
    }

    /// A spark event happened at `t`: counters if they are due.
    fn spark_activity(&mut self, t: f64, ns: u64) {
        match self.counted_at {
            Some(c) if t - c < COUNTERS_EVERY => {}
            _ => self.spark_counters(t, ns),
        }
    }
}

impl Recorder for PeLog {
    /// Writes `e`, collections of the instant a thread starts running
    /// before its RUN_THREAD (the rest of that instant after it).
    fn record(&mut self, t: f64, e: &Event, _: &Activity) {
        let ns = nanos(t);
        if let Some((_, at)) = self.run {
            let gc = matches!(
                e,
                Event::GcStart | Event::GcEnd { .. } | Event::HeapAllocated { .. } | Event::SparkGc
            );
            if ns == at && !matches!(e, Event::ThreadStop { .. }) {
                if gc {
                    self.write(t, e);
                } else {
                    self.held.push((t, e.clone()));
                }
                return;
            }
            self.start_run();
        }
        self.write(t, e);
    }

    fn finish(&mut self, t: f64, _: &Activity) {
        self.start_run();
        let ns = nanos(t).max(self.last);
        self.spark_counters(t, ns);
        self.flush();
    }
}

impl PeLog {
    /// Writes the pending RUN_THREAD and what was held behind it.
    fn start_run(&mut self) {
        if let Some((id, at)) = self.run.take() {
            self.event(RUN_THREAD, at);
            self.buf.u32(id);
            for (t, e) in std::mem::take(&mut self.held) {
                self.write(t, &e);
            }
        }
    }

    fn write(&mut self, t: f64, e: &Event) {
        let ns = nanos(t);
        match *e {
            Event::ThreadCreate { thread } => {
                self.threads.remove(&thread);
                let id = self.thread_id(thread);
                self.event(CREATE_THREAD, ns);
                self.buf.u32(id);
            }
            Event::ThreadRun { thread } => {
                let id = self.thread_id(thread);
                self.run = Some((id, ns));
            }
            Event::ThreadStop { thread, why, .. } => {
                let id = self.thread_id(thread);
                self.event(STOP_THREAD, ns);
                self.buf.u32(id);
                self.buf.u16(stop_status(why));
                self.buf.u32(0); // the black hole's owner: unknown
                if matches!(why, StopWhy::Finished | StopWhy::Failed) {
                    self.threads.remove(&thread);
                }
            }
            Event::ThreadWakeup { thread } => {
                let id = self.thread_id(thread);
                self.event(THREAD_WAKEUP, ns);
                self.buf.u32(id);
                self.buf.u16(self.pe.0);
            }
            Event::SparkCreate => {
                self.sparks.created += 1;
                self.event(SPARK_CREATE, ns);
                self.spark_activity(t, ns);
            }
            Event::SparkDud => {
                self.sparks.dud += 1;
                self.event(SPARK_DUD, ns);
                self.spark_activity(t, ns);
            }
            Event::SparkOverflow => {
                self.sparks.overflowed += 1;
                self.event(SPARK_OVERFLOW, ns);
                self.spark_activity(t, ns);
            }
            Event::SparkRun => {
                self.sparks.converted += 1;
                self.event(SPARK_RUN, ns);
                self.spark_activity(t, ns);
            }
            Event::SparkFizzle => {
                self.sparks.fizzled += 1;
                self.event(SPARK_FIZZLE, ns);
                self.spark_activity(t, ns);
            }
            Event::SparkGc => {
                self.sparks.gcd += 1;
                self.event(SPARK_GC, ns);
            }
            Event::SparkSteal { .. } => {
                self.sparks.exported += 1;
                self.spark_activity(t, ns);
            }
            Event::SparkReceive { from } => {
                // Converted here, as `--stats` counts it, though it never
                // was in this pool.
                self.sparks.converted += 1;
                self.sparks.received += 1;
                self.event(SPARK_STEAL, ns);
                self.buf.u16(from.0);
                self.spark_activity(t, ns);
            }
            Event::GcStart => self.event(GC_START, ns),
            Event::GcEnd {
                copied_words,
                heap_words,
            } => {
                self.event(GC_END, ns);
                let capset = self.capset();
                self.event(HEAP_LIVE, ns);
                self.buf.u32(capset);
                self.buf.u64(8 * copied_words);
                self.event(HEAP_SIZE, ns);
                self.buf.u32(capset);
                self.buf.u64(8 * heap_words);
                self.spark_counters(t, ns);
            }
            Event::HeapAllocated { words } => {
                self.allocated += 8 * words;
                let (capset, allocated) = (self.capset(), self.allocated);
                self.event(HEAP_ALLOCATED, ns);
                self.buf.u32(capset);
                self.buf.u64(allocated);
            }
            Event::HeapSize { words } => {
                let capset = self.capset();
                self.event(HEAP_SIZE, ns);
                self.buf.u32(capset);
                self.buf.u64(8 * words);
            }
            Event::Send { to, kind, .. } => {
                self.event(SEND_MESSAGE, ns);
                self.buf.u8(message_tag(kind));
                self.buf.u32(0); // sender process
                self.buf.u32(0); // sender thread
                self.buf.u16(to.0 + 1);
                self.buf.u32(0); // receiver process
                self.buf.u32(kind_number(kind));
            }
            Event::Receive {
                from, kind, bytes, ..
            } => {
                self.event(RECEIVE_MESSAGE, ns);
                self.buf.u8(message_tag(kind));
                self.buf.u32(0); // receiver process
                self.buf.u32(kind_number(kind));
                self.buf.u16(from.0 + 1);
                self.buf.u32(0); // sender process
                self.buf.u32(0); // sender thread
                self.buf.u32(bytes.min(u32::MAX as u64) as u32);
            }
            Event::FishOut { .. }
            | Event::FishForward { .. }
            | Event::FishHome
            | Event::Fetch { .. }
            | Event::Packet { .. }
            | Event::Piggyback { .. } => {}
            Event::ProcessCreate { process } => {
                let id = self.process_id(process);
                self.event(CREATE_PROCESS, ns);
                self.buf.u32(id);
            }
            Event::ProcessThread { process, thread } => {
                let (p, t) = (self.process_id(process), self.thread_id(thread));
                self.event(ASSIGN_THREAD_TO_PROCESS, ns);
                self.buf.u32(t);
                self.buf.u32(p);
            }
            Event::ProcessEnd { process } => {
                let id = self.process_id(process);
                self.event(KILL_PROCESS, ns);
                self.buf.u32(id);
            }
        }
        if self.buf.0.len() >= BLOCK_BYTES {
            self.flush();
        }
    }
}

impl Drop for PeLog {
    /// A PE that ended without `finish` (an error) still leaves its block.
    fn drop(&mut self) {
        self.flush();
    }
}
