//! Observing a run (docs/design.md "Observability"): each PE's events
//! (`event`), the statistics counted from them (`stats`), and recording
//! them. The statistics are always counted, inline, as each event is
//! emitted; recording is optional and costs a test of a flag when off.
//!
//! What recording feeds meets the event stream in two traits: a [`Sink`]
//! is one output of a run (an eventlog, a trace, a profile, or events kept
//! in memory for tests) and makes a [`Recorder`] for each PE, which sees
//! that PE's events in the order of its clock, each with what the PE's
//! threads and sparks were doing up to it ([`Activity`], followed once
//! for all the outputs). The files are written as
//! the run goes (`out`): each PE's recorder fills a buffer of bounded size
//! and appends it whole to the shared file, so memory stays bounded and a
//! run stopped half way leaves a file its readers accept.

pub mod event;
pub mod eventlog;
pub mod out;
pub mod profile;
pub mod sc_profile;
pub mod stats;
pub mod trace;

use crate::parallel::ids::PeId;
use event::{Event, StopWhy};
use stats::PeStats;
use std::sync::{Arc, Mutex};

/// Where recorded events go: every event of one PE with its time, and
/// what the PE's threads and sparks were doing up to it.
pub trait Recorder: Send {
    fn record(&mut self, t: f64, e: &Event, was: &Activity);
    /// The PE's run ended at `t` (its clock), its threads and sparks
    /// `now`: write out what is buffered.
    fn finish(&mut self, _t: f64, _now: &Activity) {}
}

/// What a PE's threads and spark pool are doing, as its events tell it:
/// followed once for all the outputs (`Obs::step_done`), only while
/// recording.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Activity {
    /// A thread is running.
    pub running: bool,
    /// Threads ready to run (not running).
    pub runnable: u32,
    pub blocked: u32,
    /// Sparks in the pool.
    pub sparks: u64,
}

impl Activity {
    /// Follows `e`.
    fn count(&mut self, e: &Event) {
        match *e {
            Event::ThreadCreate { .. } => self.runnable += 1,
            Event::ThreadRun { .. } => {
                self.runnable = self.runnable.saturating_sub(1);
                self.running = true;
            }
            Event::ThreadStop { why, .. } => {
                self.running = false;
                if why.is_blocked() {
                    self.blocked += 1;
                } else if why == StopWhy::Yielded {
                    self.runnable += 1;
                }
            }
            Event::ThreadWakeup { .. } => {
                self.blocked = self.blocked.saturating_sub(1);
                self.runnable += 1;
            }
            Event::SparkCreate => self.sparks += 1,
            Event::SparkRun | Event::SparkFizzle | Event::SparkGc | Event::SparkSteal { .. } => {
                self.sparks = self.sparks.saturating_sub(1)
            }
            _ => {}
        }
    }
}

/// One output of a run: makes each PE's recorder. Shared by the PEs'
/// threads; what it writes at the very end is the caller's business
/// (`out::Outputs::finish`).
pub trait Sink: Send + Sync + std::fmt::Debug {
    fn for_pe(&self, pe: PeId) -> Box<dyn Recorder>;
    /// Takes the events kept so far, for a sink that keeps them (a PE in
    /// another process ships them to the main one: `engine/mpi`).
    fn drain(&self) -> Vec<Stamped> {
        Vec::new()
    }
}

/// An event as recorded: which PE, when (its engine's clock, seconds).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stamped {
    pub pe: PeId,
    pub t: f64,
    pub event: Event,
}

/// A recorder that keeps every PE's events in memory, in one list that
/// its clones share (`Config::record`).
#[derive(Clone, Debug, Default)]
pub struct Recording {
    pe: PeId,
    events: Arc<Mutex<Vec<Stamped>>>,
}

impl Recording {
    /// The same list, for PE `pe`'s events.
    pub fn for_pe(&self, pe: PeId) -> Recording {
        Recording {
            pe,
            events: self.events.clone(),
        }
    }

    /// What was recorded so far.
    pub fn events(&self) -> Vec<Stamped> {
        self.events.lock().map(|v| v.clone()).unwrap_or_default()
    }

    /// How many events are kept.
    pub fn len(&self) -> usize {
        self.events.lock().map_or(0, |v| v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Sink for Recording {
    fn for_pe(&self, pe: PeId) -> Box<dyn Recorder> {
        Box::new(Recording::for_pe(self, pe))
    }

    fn drain(&self) -> Vec<Stamped> {
        self.events
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

impl Recorder for Recording {
    fn record(&mut self, t: f64, e: &Event, _: &Activity) {
        if let Ok(mut v) = self.events.lock() {
            v.push(Stamped {
                pe: self.pe,
                t,
                event: e.clone(),
            });
        }
    }
}

/// One PE's event stream: the counters, and a recorder if any.
#[derive(Default)]
pub struct Obs {
    stats: PeStats,
    recording: Option<Pending>,
    /// Messages sent so far.
    messages: u64,
}

/// The events of the step under way, stamped when it ends.
struct Pending {
    replay: Replay,
    events: Vec<Event>,
}

/// A recorder fed one PE's stamped events in order, following what its
/// threads and sparks do: what a PE does as its steps end, and what the
/// main process does with the events of a PE in another (`engine/mpi`).
pub struct Replay {
    recorder: Box<dyn Recorder>,
    /// As the events recorded so far left it.
    activity: Activity,
}

impl Replay {
    pub fn new(recorder: Box<dyn Recorder>) -> Replay {
        Replay {
            recorder,
            activity: Activity::default(),
        }
    }

    /// `e` happened at `t`.
    pub fn record(&mut self, t: f64, e: &Event) {
        self.recorder.record(t, e, &self.activity);
        self.activity.count(e);
    }

    /// The PE's run ended at `t`.
    pub fn finish(&mut self, t: f64) {
        self.recorder.finish(t, &self.activity);
    }
}

impl Obs {
    /// Counts `e`, and keeps it when recording.
    #[inline]
    pub fn emit(&mut self, e: Event) {
        self.stats.count(&e);
        if let Some(r) = &mut self.recording {
            r.events.push(e);
        }
    }

    pub fn stats(&self) -> &PeStats {
        &self.stats
    }

    pub fn recording(&self) -> bool {
        self.recording.is_some()
    }

    /// Records the events from now on with `recorder`.
    pub fn record(&mut self, recorder: Box<dyn Recorder>) {
        self.recording = Some(Pending {
            replay: Replay::new(recorder),
            events: Vec::new(),
        });
    }

    /// The run ended at `t`: the recorder writes out what it holds.
    pub fn finish(&mut self, t: f64) {
        if let Some(r) = &mut self.recording {
            r.replay.finish(t);
        }
    }

    /// A number for the next message this PE sends (from 1), so that its
    /// receipt can be matched with its sending (trace arrows).
    pub fn next_message_id(&mut self) -> u64 {
        self.messages += 1;
        self.messages
    }

    /// The engine's clock went from `start` to `end` during the step that
    /// emitted the pending events: a thread's slice ends at `end`, and so
    /// does what follows it; the rest happened at `start`.
    pub fn step_done(&mut self, start: f64, end: f64) {
        if let Some(r) = &mut self.recording {
            let mut t = start;
            for e in r.events.drain(..) {
                if matches!(e, Event::ThreadStop { .. }) {
                    t = end;
                }
                r.replay.record(t, &e);
            }
        }
    }
}
