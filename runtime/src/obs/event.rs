//! What a PE does, as events. Each PE has one stream of them (`Obs`);
//! every statistic is counted from it (`stats`), and a recorder may keep
//! the stream, each event stamped with the PE's clock (virtual seconds on
//! the sim engine, wall seconds since the start elsewhere), for event
//! logs, traces and activity profiles.
//!
//! Threads are the PE's own (numbered per PE, numbers reused); sparks are
//! counted, not named (as in GHC's eventlog).

use crate::parallel::ids::PeId;
use crate::parallel::protocol::packet::Flush;
use crate::parallel::protocol::MsgKind;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Event {
    /// A thread was made (the main thread, of a spark, of a spark that
    /// came from another PE, or to read stdin for a FETCH).
    ThreadCreate {
        thread: u32,
    },
    /// A thread starts a time slice.
    ThreadRun {
        thread: u32,
    },
    /// A thread's slice ended, after `reductions` supercombinator entries,
    /// its stacks `stack_words` (4-byte units) deep.
    ThreadStop {
        thread: u32,
        reductions: u64,
        stack_words: u64,
        why: StopWhy,
    },
    /// A blocked thread can run again.
    ThreadWakeup {
        thread: u32,
    },
    /// `par` recorded a spark.
    SparkCreate,
    /// `par` of a value: no spark.
    SparkDud,
    /// The spark pool was full: no spark.
    SparkOverflow,
    /// A spark became a thread here.
    SparkRun,
    /// A spark was found evaluated when it was to run or be sent away.
    SparkFizzle,
    /// A collection dropped an evaluated spark.
    SparkGc,
    /// A spark went to PE `to` in answer to its FISH.
    SparkSteal {
        to: PeId,
    },
    /// A spark from PE `from` became a thread here.
    SparkReceive {
        from: PeId,
    },
    GcStart,
    /// A collection ended: `copied_words` survived it, and the semispace
    /// is `heap_words` now.
    GcEnd {
        copied_words: u64,
        heap_words: u64,
    },
    /// The heap in use (`words`, allocation since the last collection and
    /// what survived it), reported at each collection and at the end.
    HeapAllocated {
        words: u64,
    },
    /// The semispace is `words` (at the end of the run).
    HeapSize {
        words: u64,
    },
    /// A message of `bytes` left for PE `to`; `id` numbers the sender's
    /// messages (from 1).
    Send {
        to: PeId,
        kind: MsgKind,
        bytes: u64,
        id: u64,
    },
    /// A message of `bytes` from PE `from` is handled; `id` is the one
    /// its `Send` had (0: a message sent without one, FINISH or FAIL).
    Receive {
        from: PeId,
        kind: MsgKind,
        bytes: u64,
        id: u64,
    },
    /// A packet of `messages` messages (each also a `Send`), `bytes` on
    /// the wire, left for PE `to` (`parallel::protocol::packet`); a packet
    /// of one message is that message.
    Packet {
        to: PeId,
        messages: u32,
        bytes: u64,
        why: Flush,
    },
    /// A packet leaving now carries `bytes` of the load policy's tables
    /// (Grid-GUM2's piggyback; counted in the packet's bytes too).
    Piggyback {
        bytes: u64,
    },
    /// This PE sent a FISH of its own to `to`.
    FishOut {
        to: PeId,
    },
    /// A FISH from `origin` found no work here and went on to `to`.
    FishForward {
        origin: PeId,
        to: PeId,
    },
    /// Our FISH came home empty.
    FishHome,
    /// A thread needs a node of PE `to`: a FETCH went there.
    Fetch {
        to: PeId,
    },
    /// An Eden process started here (its number on this PE).
    ProcessCreate {
        process: u32,
    },
    /// A thread of this PE joined a process (its first thread, or one it
    /// forked).
    ProcessThread {
        process: u32,
        thread: u32,
    },
    /// A process of this PE ended: its last thread did.
    ProcessEnd {
        process: u32,
    },
}

/// Why a thread's time slice ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StopWhy {
    /// Its slice was used up.
    Yielded,
    /// It entered a black hole: a thunk under evaluation here.
    BlockedOnBlackHole,
    /// It entered a node on another PE (a FetchMe, or a thunk on its way
    /// to another PE): it waits for a RESUME.
    BlockedOnFetch,
    /// It waits for an MVar to be filled or emptied.
    BlockedOnMVar,
    /// It sleeps (threadDelay).
    BlockedOnDelay,
    Finished,
    /// A run-time error.
    Failed,
}

impl StopWhy {
    pub fn is_blocked(self) -> bool {
        matches!(
            self,
            StopWhy::BlockedOnBlackHole
                | StopWhy::BlockedOnFetch
                | StopWhy::BlockedOnMVar
                | StopWhy::BlockedOnDelay
        )
    }
}
