//! `--trace`: the Chrome trace-event format (JSON), which Perfetto's UI
//! and `chrome://tracing` open.
//!
//! A process per PE, and in it a track for messages, one for collections,
//! and one per thread number (gph reuses a finished thread's number, so a
//! track holds the threads that had it, one after the other; each slice
//! names its thread as `PE.n`, the n-th made on the PE). Slices ("X")
//! for running and blocked threads and for collections; each message is a
//! short slice on the sender's and the receiver's message track, joined
//! by a flow arrow ("s" to "f"); counters ("C") for runnable and blocked
//! threads and the spark pool. Times are microseconds.
//!
//! The file is a JSON array written as the run goes: each PE appends runs
//! of complete events (at most [`CHUNK_BYTES`]); the closing `]` comes
//! last, and both viewers accept a file without it (a run stopped half
//! way).

use super::event::{Event, StopWhy};
use super::out::{Appender, RunInfo, Target};
use super::{Activity, Recorder};
use crate::parallel::ids::PeId;
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;

/// The most bytes a PE holds before appending them to the file.
pub const CHUNK_BYTES: usize = 64 << 10;

/// The tracks of a PE other than its threads'.
const MESSAGES_TID: u32 = 0;
const GC_TID: u32 = 1;
/// Thread number n's track.
fn thread_tid(thread: u32) -> u32 {
    thread + 2
}

/// A trace file being written.
#[derive(Debug)]
pub struct Trace {
    file: Arc<Appender>,
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Microseconds, to the nanosecond.
fn micros(t: f64) -> String {
    format!("{:.3}", t.max(0.0) * 1e6)
}

impl Trace {
    /// Whether events were left out for the file's limit.
    pub fn cut(&self) -> bool {
        self.file.cut()
    }

    /// Creates the file and names each PE's process and fixed tracks.
    pub fn create(path: impl Into<Target>, info: &RunInfo) -> Result<Trace, String> {
        let file = Appender::create(path, info.file_limit)?;
        let mut items = Vec::new();
        for pe in 0..info.pes.max(1) {
            let name = info.pe_name(PeId(pe as u16));
            items.push(format!(
                r#"{{"ph":"M","name":"process_name","pid":{pe},"args":{{"name":{}}}}}"#,
                json_str(&name)
            ));
            items.push(format!(
                r#"{{"ph":"M","name":"process_sort_index","pid":{pe},"args":{{"sort_index":{pe}}}}}"#
            ));
            for (tid, name) in [(MESSAGES_TID, "messages"), (GC_TID, "GC")] {
                items.push(format!(
                    r#"{{"ph":"M","name":"thread_name","pid":{pe},"tid":{tid},"args":{{"name":"{name}"}}}}"#
                ));
            }
        }
        let title = format!("{} ({}, {})", info.command(), info.engine, info.machine());
        items.push(format!(
            r#"{{"ph":"M","name":"process_labels","pid":0,"args":{{"labels":{}}}}}"#,
            json_str(&title)
        ));
        file.append(format!("[\n{}", items.join(",\n")).as_bytes());
        Ok(Trace {
            file: Arc::new(file),
        })
    }

    pub fn for_pe(&self, pe: PeId) -> Box<dyn Recorder> {
        Box::new(PeTrace {
            file: self.file.clone(),
            pe: pe.0,
            buf: String::new(),
            threads: HashMap::new(),
            made: 0,
            named: Vec::new(),
            gc_start: None,
            shown: (0, 0, 0),
            last: None,
        })
    }

    /// Closes the array (every PE has written its last events).
    pub fn finish(&self) -> Result<(), String> {
        self.file.finish(b"\n]\n")
    }
}

/// What a live thread is doing, since when.
#[derive(Clone, Copy)]
enum Doing {
    Runnable,
    Running(f64),
    Blocked(f64, StopWhy),
}

struct Thread {
    /// Its number among the threads made on the PE.
    serial: u32,
    doing: Doing,
}

/// One PE's part of the trace.
struct PeTrace {
    file: Arc<Appender>,
    pe: u16,
    /// Complete events, each preceded by ",\n".
    buf: String,
    threads: HashMap<u32, Thread>,
    made: u32,
    /// Which thread tracks have a name already.
    named: Vec<bool>,
    gc_start: Option<f64>,
    /// The counters last written: runnable, blocked, spark pool.
    shown: (u32, u32, u64),
    /// The time of the last event: when time moves on, the counters as
    /// they were then are written if they changed.
    last: Option<f64>,
}

impl PeTrace {
    fn item(&mut self, json: std::fmt::Arguments) {
        self.buf.push_str(",\n");
        let _ = self.buf.write_fmt(json);
    }

    /// A slice on track `tid` from `t0` to `t1`; `args` a JSON object.
    fn slice(&mut self, tid: u32, name: &str, t0: f64, t1: f64, args: &str) {
        let pid = self.pe;
        let (ts, dur) = (micros(t0), micros((t1 - t0).max(0.0)));
        self.item(format_args!(
            r#"{{"ph":"X","cat":"gph","name":"{name}","pid":{pid},"tid":{tid},"ts":{ts},"dur":{dur},"args":{args}}}"#
        ));
    }

    fn name_track(&mut self, thread: u32) {
        let i = thread as usize;
        if self.named.len() <= i {
            self.named.resize(i + 1, false);
        }
        if !self.named[i] {
            self.named[i] = true;
            let (pid, tid) = (self.pe, thread_tid(thread));
            self.item(format_args!(
                r#"{{"ph":"M","name":"thread_name","pid":{pid},"tid":{tid},"args":{{"name":"thread {thread}"}}}}"#
            ));
            self.item(format_args!(
                r#"{{"ph":"M","name":"thread_sort_index","pid":{pid},"tid":{tid},"args":{{"sort_index":{tid}}}}}"#
            ));
        }
    }

    /// Writes the counters as they were at the last event, if they changed.
    fn show_counters(&mut self, a: &Activity) {
        let Some(t) = self.last.take() else {
            return;
        };
        let now = (a.runnable, a.blocked, a.sparks);
        if now == self.shown {
            return;
        }
        self.shown = now;
        let (pid, ts) = (self.pe, micros(t));
        self.item(format_args!(
            r#"{{"ph":"C","name":"threads","pid":{pid},"ts":{ts},"args":{{"runnable":{},"blocked":{}}}}}"#,
            now.0, now.1
        ));
        self.item(format_args!(
            r#"{{"ph":"C","name":"spark pool","pid":{pid},"ts":{ts},"args":{{"sparks":{}}}}}"#,
            now.2
        ));
    }

    /// A message slice on the message track and its end of the arrow.
    fn message(&mut self, t: f64, name: &str, args: String, flow: &str, id: u64) {
        // A slice of a nanosecond: the arrow binds to the slice around it.
        self.slice(MESSAGES_TID, name, t, t + 1e-9, &args);
        let (pid, ts) = (self.pe, micros(t));
        let bind = if flow == "f" { r#","bp":"e""# } else { "" };
        self.item(format_args!(
            r#"{{"ph":"{flow}","name":"message","cat":"message","id":{id},"pid":{pid},"tid":{MESSAGES_TID},"ts":{ts}{bind}}}"#
        ));
    }

    /// A mark on the PE's message track.
    fn instant(&mut self, t: f64, name: &str) {
        let (pid, ts) = (self.pe, micros(t));
        self.item(format_args!(
            r#"{{"ph":"i","s":"t","name":{},"cat":"eden","pid":{pid},"tid":{MESSAGES_TID},"ts":{ts}}}"#,
            json_str(name)
        ));
    }

    fn flush(&mut self) {
        if !self.buf.is_empty() {
            self.file.append(self.buf.as_bytes());
            self.buf.clear();
        }
    }
}

/// A message's arrow: the sender's PE and its number for the message.
fn flow_id(from: PeId, id: u64) -> u64 {
    ((from.0 as u64) << 40) | id
}

fn blocked_name(why: StopWhy) -> &'static str {
    match why {
        StopWhy::BlockedOnFetch => "blocked on FETCH",
        StopWhy::BlockedOnMVar => "blocked on MVar",
        StopWhy::BlockedOnDelay => "asleep (threadDelay)",
        _ => "blocked on black hole",
    }
}

impl Recorder for PeTrace {
    fn record(&mut self, t: f64, e: &Event, was: &Activity) {
        if self.last.is_some_and(|l| t > l) {
            self.show_counters(was);
        }
        self.last = Some(t);
        match *e {
            Event::ThreadCreate { thread } => {
                self.made += 1;
                self.threads.insert(
                    thread,
                    Thread {
                        serial: self.made,
                        doing: Doing::Runnable,
                    },
                );
                self.name_track(thread);
            }
            Event::ThreadRun { thread } => {
                if let Some(th) = self.threads.get_mut(&thread) {
                    th.doing = Doing::Running(t);
                }
            }
            Event::ThreadStop {
                thread,
                reductions,
                why,
                ..
            } => {
                let Some(th) = self.threads.get_mut(&thread) else {
                    return;
                };
                let (serial, doing) = (th.serial, th.doing);
                match why {
                    StopWhy::Yielded => th.doing = Doing::Runnable,
                    w if w.is_blocked() => th.doing = Doing::Blocked(t, w),
                    _ => {
                        self.threads.remove(&thread);
                    }
                }
                if let Doing::Running(t0) = doing {
                    let args = format!(
                        r#"{{"thread":"{}.{serial}","reductions":{reductions},"stop":"{why:?}"}}"#,
                        self.pe
                    );
                    self.slice(thread_tid(thread), "running", t0, t, &args);
                }
            }
            Event::ThreadWakeup { thread } => {
                if let Some(th) = self.threads.get_mut(&thread) {
                    if let Doing::Blocked(t0, why) = th.doing {
                        th.doing = Doing::Runnable;
                        let args = format!(r#"{{"thread":"{}.{}"}}"#, self.pe, th.serial);
                        self.slice(thread_tid(thread), blocked_name(why), t0, t, &args);
                    }
                }
            }
            Event::GcStart => self.gc_start = Some(t),
            Event::GcEnd {
                copied_words,
                heap_words,
            } => {
                let t0 = self.gc_start.take().unwrap_or(t);
                let args = format!(
                    r#"{{"live_bytes":{},"heap_bytes":{}}}"#,
                    8 * copied_words,
                    8 * heap_words
                );
                self.slice(GC_TID, "GC", t0, t, &args);
            }
            Event::Send {
                to,
                kind,
                bytes,
                id,
            } => {
                let args = format!(r#"{{"to":"PE {}","bytes":{bytes}}}"#, to.0);
                let flow = flow_id(PeId(self.pe), id);
                self.message(t, &format!("send {}", kind.name()), args, "s", flow);
            }
            Event::Receive {
                from,
                kind,
                bytes,
                id,
            } => {
                let args = format!(r#"{{"from":"PE {}","bytes":{bytes}}}"#, from.0);
                let name = format!("receive {}", kind.name());
                if id == 0 {
                    self.slice(MESSAGES_TID, &name, t, t + 1e-9, &args);
                } else {
                    self.message(t, &name, args, "f", flow_id(from, id));
                }
            }
            Event::SparkCreate
            | Event::SparkDud
            | Event::SparkOverflow
            | Event::SparkRun
            | Event::SparkFizzle
            | Event::SparkGc
            | Event::SparkSteal { .. }
            | Event::SparkReceive { .. }
            | Event::HeapAllocated { .. }
            | Event::HeapSize { .. }
            | Event::FishOut { .. }
            | Event::FishForward { .. }
            | Event::FishHome
            | Event::Fetch { .. }
            | Event::ProcessThread { .. }
            | Event::Packet { .. }
            | Event::Piggyback { .. } => {}
            Event::ProcessCreate { process } => {
                self.instant(t, &format!("process {process} created"))
            }
            Event::ProcessEnd { process } => self.instant(t, &format!("process {process} ended")),
        }
        if self.buf.len() >= CHUNK_BYTES {
            self.flush();
        }
    }

    /// Threads still blocked at the end are shown blocked until then.
    fn finish(&mut self, t: f64, now: &Activity) {
        self.show_counters(now);
        let mut open: Vec<(u32, u32, f64, StopWhy)> = self
            .threads
            .iter()
            .filter_map(|(&n, th)| match th.doing {
                Doing::Blocked(t0, why) => Some((n, th.serial, t0, why)),
                _ => None,
            })
            .collect();
        open.sort_by_key(|o| o.0);
        for (n, serial, t0, why) in open {
            let args = format!(r#"{{"thread":"{}.{serial}"}}"#, self.pe);
            self.slice(thread_tid(n), blocked_name(why), t0, t.max(t0), &args);
        }
        self.threads.clear();
        self.flush();
    }
}

impl Drop for PeTrace {
    fn drop(&mut self) {
        self.flush();
    }
}
