//! The files a run writes as it goes (`gph run --eventlog`, `--trace`,
//! `--profile`): what the run is ([`RunInfo`]), a file that the PEs'
//! recorders append whole chunks to ([`Appender`]), and the outputs asked
//! for, together one [`Sink`] ([`Outputs`]).

use super::event::Event;
use super::eventlog::EventLog;
use super::profile::Profile;
use super::trace::Trace;
use super::{Activity, Recorder, Sink};
use crate::engine::grid::Grid;
use crate::parallel::ids::PeId;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Where one of a run's files goes: a path, or a buffer the caller reads
/// after the run (the browser build, which has no files).
#[derive(Clone, Debug)]
pub enum Target {
    Path(String),
    Memory(Arc<Mutex<Vec<u8>>>),
}

impl Target {
    /// A new, empty buffer.
    pub fn memory() -> Target {
        Target::Memory(Arc::default())
    }

    /// What the buffer holds (empty for a path).
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Target::Path(_) => Vec::new(),
            Target::Memory(m) => m.lock().map(|b| b.clone()).unwrap_or_default(),
        }
    }

    /// The name its errors give.
    pub fn name(&self) -> &str {
        match self {
            Target::Path(p) => p,
            Target::Memory(_) => "<memory>",
        }
    }

    /// Opens it for writing, emptied.
    pub fn create(&self) -> Result<Box<dyn Write + Send>, String> {
        match self {
            Target::Path(p) => match std::fs::File::create(p) {
                Ok(f) => Ok(Box::new(f)),
                Err(e) => Err(format!("cannot write {p}: {e}")),
            },
            Target::Memory(m) => {
                if let Ok(mut b) = m.lock() {
                    b.clear();
                }
                Ok(Box::new(MemoryWriter(m.clone())))
            }
        }
    }

    /// Writes `bytes` as the whole of it.
    pub fn write(&self, bytes: &[u8]) -> Result<(), String> {
        self.create()?
            .write_all(bytes)
            .map_err(|e| format!("cannot write {}: {e}", self.name()))
    }
}

impl From<&str> for Target {
    fn from(p: &str) -> Target {
        Target::Path(p.to_string())
    }
}

struct MemoryWriter(Arc<Mutex<Vec<u8>>>);

impl Write for MemoryWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut b) = self.0.lock() {
            b.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a run is, for the files' titles and metadata.
#[derive(Clone, Debug, Default)]
pub struct RunInfo {
    /// The program's name and arguments.
    pub program: String,
    pub args: Vec<String>,
    /// `sim` or `threads`.
    pub engine: String,
    pub pes: usize,
    /// The simulated machine, if the sim engine has one from a file.
    pub grid: Option<Grid>,
    /// The load policy and its settings, e.g. `gum`.
    pub policy: String,
    /// The most bytes each file may take (None: no limit); the REPL's
    /// recordings of every evaluation have one.
    pub file_limit: Option<u64>,
}

impl RunInfo {
    /// The command line, as a person would type it.
    pub fn command(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A PE's name: its number, and its cluster on a grid.
    pub fn pe_name(&self, pe: PeId) -> String {
        match &self.grid {
            Some(g) if (pe.0 as usize) < g.len() => {
                format!(
                    "PE {} ({}, speed {:.2})",
                    pe.0,
                    g.cluster_name(pe),
                    g.speed(pe)
                )
            }
            _ => format!("PE {}", pe.0),
        }
    }

    /// The machine in a few words: the grid, or how many PEs.
    pub fn machine(&self) -> String {
        match &self.grid {
            Some(g) => format!("grid {}", g.describe()),
            None => crate::obs::stats::pes(self.pes),
        }
    }
}

/// A file that several PEs append to, each a whole chunk at a time (an
/// eventlog block, a run of trace events), so that what is in the file is
/// always a sequence of complete chunks. The first error is kept and
/// reported at the end; later writes are skipped. With a limit, the first
/// chunk that would take the file past it and every chunk after are left
/// out (the file still ends as its format requires: `finish`'s tail is
/// always written).
pub struct Appender {
    path: String,
    limit: Option<u64>,
    state: Mutex<AppendState>,
}

impl std::fmt::Debug for Appender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Appender({})", self.path)
    }
}

struct AppendState {
    file: Box<dyn Write + Send>,
    error: Option<String>,
    written: u64,
    /// Chunks were left out for the limit.
    cut: bool,
}

impl Appender {
    pub fn create(target: impl Into<Target>, limit: Option<u64>) -> Result<Appender, String> {
        let target = target.into();
        let file = target.create()?;
        Ok(Appender {
            path: target.name().to_string(),
            limit,
            state: Mutex::new(AppendState {
                file,
                error: None,
                written: 0,
                cut: false,
            }),
        })
    }

    /// Writes `bytes` at the end of the file, in one piece (unless the
    /// file is at its limit).
    pub fn append(&self, bytes: &[u8]) {
        self.write(bytes, false);
    }

    fn write(&self, bytes: &[u8], tail: bool) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        let room = self
            .limit
            .is_none_or(|l| !s.cut && s.written + bytes.len() as u64 <= l);
        if !(room || tail) {
            s.cut = true;
            return;
        }
        if s.error.is_none() {
            match s.file.write_all(bytes) {
                Ok(()) => s.written += bytes.len() as u64,
                Err(e) => s.error = Some(format!("cannot write {}: {e}", self.path)),
            }
        }
    }

    /// Whether chunks were left out for the limit.
    pub fn cut(&self) -> bool {
        self.state.lock().is_ok_and(|s| s.cut)
    }

    /// Writes `tail`, flushes; the first error met, if any.
    pub fn finish(&self, tail: &[u8]) -> Result<(), String> {
        self.write(tail, true);
        let mut s = self
            .state
            .lock()
            .map_err(|_| format!("cannot write {}: a PE failed", self.path))?;
        if s.error.is_none() {
            if let Err(e) = s.file.flush() {
                s.error = Some(format!("cannot write {}: {e}", self.path));
            }
        }
        s.error.clone().map_or(Ok(()), Err)
    }
}

/// The files a run writes. A [`Sink`]: each PE records into every one.
#[derive(Debug, Default)]
pub struct Outputs {
    eventlog: Option<EventLog>,
    trace: Option<Trace>,
    profile: Option<Profile>,
}

impl Outputs {
    /// Creates the files asked for (and writes their headers), or says
    /// which cannot be written.
    pub fn create(
        info: &RunInfo,
        eventlog: Option<&str>,
        trace: Option<&str>,
        profile: Option<&str>,
    ) -> Result<Outputs, String> {
        let t = |p: Option<&str>| p.map(Target::from);
        Outputs::create_at(info, t(eventlog), t(trace), t(profile))
    }

    /// [`Outputs::create`] with any targets (buffers in memory too).
    pub fn create_at(
        info: &RunInfo,
        eventlog: Option<Target>,
        trace: Option<Target>,
        profile: Option<Target>,
    ) -> Result<Outputs, String> {
        Ok(Outputs {
            eventlog: eventlog.map(|p| EventLog::create(p, info)).transpose()?,
            trace: trace.map(|p| Trace::create(p, info)).transpose()?,
            profile: profile.map(|p| Profile::create(p, info)).transpose()?,
        })
    }

    /// After the run (every PE's recorder finished): completes each file.
    /// `run_time`: the run's length on its engine's clock, seconds.
    pub fn finish(&self, run_time: f64) -> Result<(), String> {
        let mut first = Ok(());
        let mut keep = |r: Result<(), String>| {
            if first.is_ok() {
                first = r;
            }
        };
        if let Some(e) = &self.eventlog {
            keep(e.finish());
        }
        if let Some(t) = &self.trace {
            keep(t.finish());
        }
        if let Some(p) = &self.profile {
            keep(p.finish(run_time));
        }
        first
    }

    /// Whether a file stopped at its limit (`RunInfo::file_limit`).
    pub fn cut(&self) -> bool {
        self.eventlog.as_ref().is_some_and(EventLog::cut)
            || self.trace.as_ref().is_some_and(Trace::cut)
    }
}

impl Sink for Outputs {
    fn for_pe(&self, pe: PeId) -> Box<dyn Recorder> {
        let mut all: Vec<Box<dyn Recorder>> = Vec::new();
        if let Some(e) = &self.eventlog {
            all.push(e.for_pe(pe));
        }
        if let Some(t) = &self.trace {
            all.push(t.for_pe(pe));
        }
        if let Some(p) = &self.profile {
            all.push(p.for_pe(pe));
        }
        if all.len() == 1 {
            all.pop().unwrap()
        } else {
            Box::new(Tee(all))
        }
    }
}

/// Several recorders fed the same events.
struct Tee(Vec<Box<dyn Recorder>>);

impl Recorder for Tee {
    fn record(&mut self, t: f64, e: &Event, was: &Activity) {
        for r in &mut self.0 {
            r.record(t, e, was);
        }
    }

    fn finish(&mut self, t: f64, now: &Activity) {
        for r in &mut self.0 {
            r.finish(t, now);
        }
    }
}

/// Seconds on an engine's clock as whole nanoseconds.
pub fn nanos(t: f64) -> u64 {
    if t > 0.0 {
        (t * 1e9).round() as u64
    } else {
        0
    }
}

/// `s` made safe inside XML text or an attribute.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_xml() {
        assert_eq!(
            xml_escape("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt; "
        );
    }

    #[test]
    fn unwritable_path_is_an_error() {
        let e = Appender::create("/nonexistent-dir/x.eventlog", None).unwrap_err();
        assert!(
            e.starts_with("cannot write /nonexistent-dir/x.eventlog: "),
            "{e}"
        );
    }

    #[test]
    fn a_limited_file_keeps_whole_chunks_up_to_its_limit_and_its_tail() {
        let dir = std::env::temp_dir().join(format!("gph-appender-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.json");
        let a = Appender::create(path.to_str().unwrap(), Some(100)).unwrap();
        a.append(b"[");
        for _ in 0..50 {
            a.append(b",\n{\"event\":1}");
        }
        assert!(a.cut());
        a.finish(b"\n]\n").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() <= 100 + 3, "{} bytes", text.len());
        assert!(text.ends_with("{\"event\":1}\n]\n"), "{text}");
        let unlimited = Appender::create(path.to_str().unwrap(), None).unwrap();
        unlimited.append(&[b'x'; 1000]);
        assert!(!unlimited.cut());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
