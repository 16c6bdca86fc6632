//! The gph machine: the instruction set the code generator targets
//! (`code`, checked by `validate`); one PE (`machine`: heap and collector,
//! reducer, threads, spark pool, scheduler, primitives, the outside world);
//! what PEs do among themselves (`parallel`: global addresses, packing,
//! the protocols); and how PEs run and messages travel (`engine`).
//!
//! The driver calls [`run_main`].

pub mod code;
pub mod engine;
pub mod machine;
pub mod parallel;
pub mod validate;

use engine::{grid, os_threads as threads, sim};
use machine::{io, load, pe};

use std::io::{IsTerminal, Read, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use pe::Tuning;

/// How to run a program.
#[derive(Clone, Debug)]
pub struct Config {
    /// The program's arguments (getArgs).
    pub args: Vec<String>,
    /// The program's name (getProgName).
    pub prog_name: String,
    /// The largest heap (one semispace), in bytes.
    pub heap_limit: usize,
    /// Collect every few allocations (to find missing GC roots).
    pub gc_stress: bool,
    /// Set by Ctrl-C in the REPL: the run stops with "interrupted".
    pub interrupt: Option<Arc<AtomicBool>>,
    /// How many PEs (ignored when there is a grid).
    pub pes: usize,
    pub engine: Engine,
    /// The simulated machine (sim engine).
    pub grid: Option<grid::Grid>,
    /// Seeds the PEs' random choices (whom to fish).
    pub seed: u64,
    /// Most live threads per PE.
    pub thread_limit: Option<usize>,
    /// Fish early when fewer sparks than this are left (see `Tuning`).
    pub low_watermark: Option<usize>,
    /// The fish delay (see `pe::Tuning`).
    pub fish_delay: Option<std::time::Duration>,
}

/// How the PEs run (DESIGN.md "Engines").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// One OS thread per PE.
    Threads,
    /// All PEs in one OS thread, in virtual time.
    Sim,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Threads => "threads",
            Engine::Sim => "sim",
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            args: Vec::new(),
            prog_name: "main".into(),
            heap_limit: 4 << 30,
            gc_stress: false,
            interrupt: None,
            pes: 1,
            engine: Engine::Threads,
            grid: None,
            seed: 0,
            thread_limit: None,
            low_watermark: None,
            fish_delay: None,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Supercombinator entries (thunks included).
    pub reductions: u64,
    pub allocated_bytes: u64,
    pub gcs: u64,
    /// Bytes copied by the collector (live data, summed over collections).
    pub copied_bytes: u64,
    /// The largest heap (one semispace), in bytes.
    pub peak_heap_bytes: u64,
    pub max_stack_bytes: u64,
    pub sparks_created: u64,
    pub sparks_fizzled: u64,
    pub sparks_converted: u64,
    pub sparks_overflowed: u64,
    pub threads: u64,
    /// Times a thread blocked on a black hole.
    pub blocked: u64,
    pub time: Duration,
    pub engine: &'static str,
    pub pes: usize,
    /// The virtual run time (sim engine).
    pub virtual_time: Option<f64>,
    pub per_pe: Vec<PeStats>,
    /// Messages sent, by kind: (count, bytes).
    pub messages: std::collections::BTreeMap<&'static str, (u64, u64)>,
}

/// What one PE did.
#[derive(Clone, Debug, Default)]
pub struct PeStats {
    pub reductions: u64,
    pub allocated_bytes: u64,
    pub gcs: u64,
    pub copied_bytes: u64,
    pub peak_heap_bytes: u64,
    pub threads: u64,
    pub blocked: u64,
    pub sparks_created: u64,
    pub sparks_converted: u64,
    pub sparks_fizzled: u64,
    pub sparks_overflowed: u64,
    pub sparks_exported: u64,
    pub sparks_imported: u64,
    pub fish_sent: u64,
    pub fish_forwarded: u64,
    pub fish_failed: u64,
    pub fetches: u64,
    /// Seconds running (threads and messages) and idle (virtual for sim).
    pub busy_s: f64,
    pub idle_s: f64,
    /// Seconds with nothing to run while threads waited for other PEs.
    pub blocked_s: f64,
    /// Messages sent, by kind: (count, bytes).
    pub messages: std::collections::BTreeMap<&'static str, (u64, u64)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    Success,
    /// A run-time error: the message, without "gph: ".
    Error(String),
    /// exitWith.
    ExitWith(i32),
}

/// Runs `main` with the process's stdin and stdout.
pub fn run_main(program: &code::Program, config: &Config) -> (Exit, Stats) {
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let mut out = stdout.lock();
    let mut input = std::io::stdin();
    run_main_with(
        program,
        config,
        &Tuning::default(),
        &mut out,
        tty,
        &mut input,
    )
}

/// Runs `main` with the given stdout (line buffered or not) and stdin, on
/// the PEs and engine of `config`.
pub fn run_main_with(
    program: &code::Program,
    config: &Config,
    tuning: &Tuning,
    out: &mut dyn Write,
    line_buffered: bool,
    input: &mut dyn Read,
) -> (Exit, Stats) {
    let start = Instant::now();
    let mut stats = Stats::default();
    let loaded = match load::load(program) {
        Ok(l) => l,
        Err(e) => return (Exit::Error(e), stats),
    };
    if program.main.is_none() {
        return (Exit::Error("the program has no main".into()), stats);
    }
    let n = config.grid.as_ref().map_or(config.pes.max(1), |g| g.len());
    let mut tuning = tuning.clone();
    if let Some(t) = config.thread_limit {
        tuning.thread_limit = t.max(1);
    }
    if let Some(w) = config.low_watermark {
        tuning.low_watermark = w;
    }
    if let Some(d) = config.fish_delay {
        tuning.fish_delay = d;
    }
    let setup = engine::Setup {
        program,
        loaded: &loaded,
        config,
        tuning,
        npes: n,
    };
    let io = io::Io::new(
        out,
        line_buffered,
        input,
        config.args.clone(),
        config.prog_name.clone(),
    );
    let mut pe0 = setup.new_pe(io, 0);
    let engine = config.engine;
    let mut per_pe = Vec::new();
    let result = match engine {
        Engine::Sim => {
            let grid = match &config.grid {
                Some(g) => g.clone(),
                None => match grid::Grid::uniform(n) {
                    Ok(g) => g,
                    Err(e) => return (Exit::Error(e), stats),
                },
            };
            let mut pes = vec![pe0];
            for k in 1..n {
                pes.push(setup.new_pe(io::Io::elsewhere(), k as u16));
            }
            let ready = pes[1..]
                .iter_mut()
                .try_for_each(|pe| pe.init_cafs())
                .and_then(|()| setup.start_main(&mut pes[0]));
            let r = match ready {
                Ok(id) => {
                    let (r, times) = sim::run(&mut pes, &grid, id);
                    stats.virtual_time = Some(times.virtual_time);
                    for (pe, t) in pes.iter().zip(times.per_pe) {
                        per_pe.push(pe_stats(pe, t));
                    }
                    r
                }
                Err(e) => Err(e),
            };
            pe0 = pes.swap_remove(0);
            r
        }
        Engine::Threads => {
            let (r, times, others) = threads::run(&setup, &mut pe0, pe_stats);
            per_pe.push(pe_stats(&pe0, times));
            per_pe.extend(others);
            r
        }
    };
    let flushed = pe0.io.flush();
    let exit = match result {
        Ok(_) => match flushed {
            Ok(()) => Exit::Success,
            Err(e) => Exit::Error(e),
        },
        Err(pe::Stop::Error(e)) => Exit::Error(e),
        Err(pe::Stop::Exit(c)) => Exit::ExitWith(c),
    };
    stats.engine = engine.name();
    stats.pes = n;
    stats.max_stack_bytes = 4 * pe0.counters.max_stack_words;
    let total = PeStats::sum(&per_pe);
    stats.reductions = total.reductions;
    stats.allocated_bytes = total.allocated_bytes;
    stats.gcs = total.gcs;
    stats.copied_bytes = total.copied_bytes;
    stats.peak_heap_bytes = total.peak_heap_bytes;
    stats.sparks_created = total.sparks_created;
    stats.sparks_fizzled = total.sparks_fizzled;
    stats.sparks_converted = total.sparks_converted;
    stats.sparks_overflowed = total.sparks_overflowed;
    stats.threads = total.threads;
    stats.blocked = total.blocked;
    stats.messages = total.messages;
    stats.per_pe = per_pe;
    stats.time = start.elapsed();
    (exit, stats)
}

impl PeStats {
    /// Messages and bytes sent, all kinds together.
    pub fn sent(&self) -> (u64, u64) {
        self.messages
            .values()
            .fold((0, 0), |(m, b), (cm, cb)| (m + cm, b + cb))
    }

    /// The PEs together: counts and times added, the largest heap.
    pub fn sum(pes: &[PeStats]) -> PeStats {
        let mut t = PeStats::default();
        for p in pes {
            t.reductions += p.reductions;
            t.allocated_bytes += p.allocated_bytes;
            t.gcs += p.gcs;
            t.copied_bytes += p.copied_bytes;
            t.peak_heap_bytes = t.peak_heap_bytes.max(p.peak_heap_bytes);
            t.threads += p.threads;
            t.blocked += p.blocked;
            t.sparks_created += p.sparks_created;
            t.sparks_converted += p.sparks_converted;
            t.sparks_fizzled += p.sparks_fizzled;
            t.sparks_overflowed += p.sparks_overflowed;
            t.sparks_exported += p.sparks_exported;
            t.sparks_imported += p.sparks_imported;
            t.fish_sent += p.fish_sent;
            t.fish_forwarded += p.fish_forwarded;
            t.fish_failed += p.fish_failed;
            t.fetches += p.fetches;
            t.busy_s += p.busy_s;
            t.idle_s += p.idle_s;
            t.blocked_s += p.blocked_s;
            for (k, (c, b)) in &p.messages {
                let e = t.messages.entry(k).or_default();
                e.0 += c;
                e.1 += b;
            }
        }
        t
    }
}

/// The statistics of one PE.
fn pe_stats(pe: &pe::Pe, times: engine::PeTimes) -> PeStats {
    let c = &pe.counters;
    PeStats {
        reductions: c.reductions,
        allocated_bytes: 8 * (pe.heap.allocated_words + pe.heap.live_words() as u64),
        gcs: pe.heap.gcs,
        copied_bytes: 8 * pe.heap.copied_words,
        peak_heap_bytes: 8 * pe.heap.peak_words as u64,
        threads: c.threads,
        blocked: c.blocked,
        sparks_created: c.sparks_created,
        sparks_converted: c.sparks_converted,
        sparks_fizzled: c.sparks_fizzled,
        sparks_overflowed: c.sparks_overflowed,
        sparks_exported: c.sparks_exported,
        sparks_imported: c.sparks_imported,
        fish_sent: c.fish_sent,
        fish_forwarded: c.fish_forwarded,
        fish_failed: c.fish_failed,
        fetches: c.fetches,
        busy_s: times.busy,
        idle_s: times.idle,
        blocked_s: times.blocked,
        messages: pe
            .gum
            .sent
            .by_kind
            .iter()
            .map(|(k, v)| (k.name(), *v))
            .collect(),
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The `--stats` report (like `+RTS -s`): the totals; with several PEs,
/// then the engine (and virtual run time), a table of what each PE did and
/// the messages sent, by kind.
pub fn format_stats(s: &Stats) -> String {
    let secs = s.time.as_secs_f64();
    let rate = if secs > 0.0 {
        s.reductions as f64 / secs / 1e6
    } else {
        0.0
    };
    let mut out = format!(
        "{:>16} reductions ({rate:.1} M/s)\n\
         {:>16} bytes allocated in the heap\n\
         {:>16} bytes copied during GC\n\
         {:>16} bytes maximum heap size\n\
         {:>16} bytes maximum stack size\n\
         {:>16} collections\n\
         {:>16} threads\n\
         SPARKS: {} ({} converted, {} fizzled, {} overflowed)\n\
         Total time {:.3}s\n",
        thousands(s.reductions),
        thousands(s.allocated_bytes),
        thousands(s.copied_bytes),
        thousands(s.peak_heap_bytes),
        thousands(s.max_stack_bytes),
        thousands(s.gcs),
        thousands(s.threads),
        s.sparks_created,
        s.sparks_converted,
        s.sparks_fizzled,
        s.sparks_overflowed,
        secs,
    );
    if s.per_pe.len() <= 1 {
        return out;
    }
    out.push_str(&format!("ENGINE: {}, {} PEs", s.engine, s.per_pe.len()));
    if let Some(v) = s.virtual_time {
        out.push_str(&format!(", virtual time {v:.4}s"));
    }
    out.push_str("\n\n");
    let total = PeStats::sum(&s.per_pe);
    // Two header lines: a group above each abbreviated column.
    let mut rows = vec![
        cells(&[
            "", "", "alloc", "", "", "sparks", "sparks", "fish", "", "busy", "idle", "blkd",
        ]),
        cells(&[
            "PE",
            "reductions",
            "MB",
            "GCs",
            "threads",
            "c/v/f/o",
            "exp/imp",
            "s/fw/fl",
            "fetches",
            "s",
            "s",
            "s",
        ]),
    ];
    rows.extend(
        s.per_pe
            .iter()
            .enumerate()
            .map(|(i, p)| pe_row(i.to_string(), p)),
    );
    rows.push(pe_row("total".into(), &total));
    out.push_str(&columns(&rows, false));
    out.push('\n');
    let mut rows = vec![cells(&["MESSAGES", "count", "bytes"])];
    let (mut count, mut bytes) = (0, 0);
    for (kind, (c, b)) in &s.messages {
        rows.push(vec![format!("  {kind}"), thousands(*c), thousands(*b)]);
        count += c;
        bytes += b;
    }
    rows.push(vec!["  total".into(), thousands(count), thousands(bytes)]);
    out.push_str(&columns(&rows, true));
    out
}

fn cells(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|x| x.to_string()).collect()
}

/// One row of the per-PE table.
fn pe_row(label: String, p: &PeStats) -> Vec<String> {
    vec![
        label,
        thousands(p.reductions),
        format!("{:.1}", p.allocated_bytes as f64 / 1e6),
        thousands(p.gcs),
        thousands(p.threads),
        format!(
            "{}/{}/{}/{}",
            p.sparks_created, p.sparks_converted, p.sparks_fizzled, p.sparks_overflowed
        ),
        format!("{}/{}", p.sparks_exported, p.sparks_imported),
        format!("{}/{}/{}", p.fish_sent, p.fish_forwarded, p.fish_failed),
        thousands(p.fetches),
        format!("{:.3}", p.busy_s),
        format!("{:.3}", p.idle_s),
        format!("{:.3}", p.blocked_s),
    ]
}

/// Lays `rows` out in columns two spaces apart, right-aligned but for the
/// first column if `left_first`.
fn columns(rows: &[Vec<String>], left_first: bool) -> String {
    let mut widths: Vec<usize> = Vec::new();
    for row in rows {
        for (c, cell) in row.iter().enumerate() {
            let w = cell.chars().count();
            match widths.get_mut(c) {
                Some(old) => *old = (*old).max(w),
                None => widths.push(w),
            }
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, (cell, &w)) in row.iter().zip(&widths).enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            if c == 0 && left_first {
                line.push_str(&format!("{cell:<w$}"));
            } else {
                line.push_str(&format!("{cell:>w$}"));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_pe_stats() -> Stats {
        let pe = PeStats {
            reductions: 12_345_678,
            allocated_bytes: 987_654_321,
            gcs: 42,
            copied_bytes: 1_234_567,
            peak_heap_bytes: 8_388_608,
            threads: 7,
            sparks_created: 100,
            sparks_converted: 80,
            sparks_fizzled: 15,
            sparks_overflowed: 5,
            busy_s: 1.5,
            ..PeStats::default()
        };
        Stats {
            reductions: pe.reductions,
            allocated_bytes: pe.allocated_bytes,
            gcs: pe.gcs,
            copied_bytes: pe.copied_bytes,
            peak_heap_bytes: pe.peak_heap_bytes,
            max_stack_bytes: 65_536,
            sparks_created: pe.sparks_created,
            sparks_fizzled: pe.sparks_fizzled,
            sparks_converted: pe.sparks_converted,
            sparks_overflowed: pe.sparks_overflowed,
            threads: pe.threads,
            blocked: 0,
            time: Duration::from_millis(1500),
            engine: "threads",
            pes: 1,
            virtual_time: None,
            per_pe: vec![pe],
            messages: Default::default(),
        }
    }

    /// The report is the same with one PE as before there were many.
    #[test]
    fn one_pe_stats_unchanged() {
        let expected = "      12,345,678 reductions (8.2 M/s)
     987,654,321 bytes allocated in the heap
       1,234,567 bytes copied during GC
       8,388,608 bytes maximum heap size
          65,536 bytes maximum stack size
              42 collections
               7 threads
SPARKS: 100 (80 converted, 15 fizzled, 5 overflowed)
Total time 1.500s
";
        let mut s = one_pe_stats();
        assert_eq!(format_stats(&s), expected);
        // Messages and a virtual time change nothing on one PE.
        s.engine = "sim";
        s.virtual_time = Some(0.25);
        s.messages.insert("FISH", (3, 72));
        assert_eq!(format_stats(&s), expected);
        s.per_pe.clear();
        assert_eq!(format_stats(&s), expected);
    }

    #[test]
    fn many_pe_stats() {
        let pe = |i: u64| PeStats {
            reductions: 1_000_000 * (i + 1),
            allocated_bytes: 2_500_000 * (i + 1),
            gcs: i,
            threads: 10 + i,
            sparks_created: 100 * i,
            sparks_converted: 50 * i,
            sparks_fizzled: 3 * i,
            sparks_overflowed: i,
            sparks_exported: 7 * i,
            sparks_imported: 11 * i,
            fish_sent: 20 + i,
            fish_forwarded: 30 + i,
            fish_failed: 5 + i,
            fetches: 1_000 * i,
            busy_s: 0.125 * (i + 1) as f64,
            idle_s: 0.05,
            blocked_s: 0.01,
            ..PeStats::default()
        };
        let mut s = one_pe_stats();
        s.engine = "sim";
        s.pes = 3;
        s.virtual_time = Some(0.20244);
        s.per_pe = (0..3).map(pe).collect();
        s.messages.insert("FISH", (1_234, 29_616));
        s.messages.insert("FETCH", (56, 2_688));
        s.messages.insert("RESUME", (56, 1_234_567));
        let out = format_stats(&s);
        let totals = format_stats(&one_pe_stats());
        assert!(out.starts_with(&totals), "{out}");
        let rest = &out[totals.len()..];
        assert!(
            rest.starts_with("ENGINE: sim, 3 PEs, virtual time 0.2024s\n"),
            "{out}"
        );
        let words = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        let lines: Vec<Vec<String>> = rest.lines().map(words).collect();
        let row = |first: &str| {
            lines
                .iter()
                .find(|l| l.first().map(String::as_str) == Some(first))
                .unwrap_or_else(|| panic!("no row {first} in\n{out}"))
                .clone()
        };
        let pe_rows = ["0", "1", "2"].map(row);
        assert_eq!(
            pe_rows[0],
            words("0 1,000,000 2.5 0 10 0/0/0/0 0/0 20/30/5 0 0.125 0.050 0.010")
        );
        assert_eq!(
            pe_rows[2],
            words("2 3,000,000 7.5 2 12 200/100/6/2 14/22 22/32/7 2,000 0.375 0.050 0.010")
        );
        assert!(!lines
            .iter()
            .any(|l| l.first().map(String::as_str) == Some("3")));
        assert_eq!(row("FISH"), words("FISH 1,234 29,616"));
        assert_eq!(row("FETCH"), words("FETCH 56 2,688"));
        assert_eq!(row("RESUME"), words("RESUME 56 1,234,567"));
        // The PEs' total comes first, the messages' total last.
        assert_eq!(
            row("total"),
            words("total 6,000,000 15.0 3 33 300/150/9/3 21/33 63/93/18 3,000 0.750 0.150 0.030")
        );
        assert_eq!(lines.last().unwrap(), &words("total 1,346 1,266,871"));
        // Readable in a terminal of 100 columns.
        assert!(out.lines().all(|l| l.len() <= 100), "{out}");
    }
}
