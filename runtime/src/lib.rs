//! The gph machine: the instruction set the code generator targets
//! (`code`), the heap and its garbage collector, the reducer, the PE
//! (scheduler, threads, spark pool), the primitives and the outside world.
//!
//! The driver calls [`run_main`].

pub mod code;
pub mod grid;
pub mod heap;
pub mod io;
pub mod load;
pub mod pe;
pub mod prims;
pub mod reducer;
pub mod thread;
pub mod validate;

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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            args: Vec::new(),
            prog_name: "main".into(),
            heap_limit: 4 << 30,
            gc_stress: false,
            interrupt: None,
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

/// Runs `main` with the given stdout (line buffered or not) and stdin.
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
    let Some(main) = program.main else {
        return (Exit::Error("the program has no main".into()), stats);
    };
    let io = io::Io::new(
        out,
        line_buffered,
        input,
        config.args.clone(),
        config.prog_name.clone(),
    );
    let mut pe = pe::Pe::new(
        &loaded,
        io,
        config.heap_limit,
        config.gc_stress,
        config.interrupt.clone(),
        tuning.clone(),
    );
    let result = pe.init_cafs().and_then(|()| {
        let m = match program.globals.get(main.0 as usize) {
            Some(code::Global::Fun(sc)) => heap::Ptr(loaded.fun_node[sc.0 as usize]),
            Some(code::Global::Caf(_)) => {
                pe.cafs[loaded.caf_of_global[main.0 as usize].unwrap() as usize]
            }
            None => return pe::err("main is not a global"),
        };
        let id = pe.spawn(loaded.main_entry, &[m, loaded.unit_node]);
        pe.run(id)
    });
    let flushed = pe.io.flush();
    let exit = match result {
        Ok(_) => match flushed {
            Ok(()) => Exit::Success,
            Err(e) => Exit::Error(e),
        },
        Err(pe::Stop::Error(e)) => Exit::Error(e),
        Err(pe::Stop::Exit(c)) => Exit::ExitWith(c),
    };
    let c = &pe.counters;
    stats.reductions = c.reductions;
    stats.allocated_bytes = 8 * (pe.heap.allocated_words + pe.heap.live_words() as u64);
    stats.gcs = pe.heap.gcs;
    stats.copied_bytes = 8 * pe.heap.copied_words;
    stats.peak_heap_bytes = 8 * pe.heap.peak_words as u64;
    stats.max_stack_bytes = 4 * c.max_stack_words;
    stats.sparks_created = c.sparks_created;
    stats.sparks_fizzled = c.sparks_fizzled;
    stats.sparks_converted = c.sparks_converted;
    stats.sparks_overflowed = c.sparks_overflowed;
    stats.threads = c.threads;
    stats.blocked = c.blocked;
    stats.time = start.elapsed();
    (exit, stats)
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

/// The `--stats` report (like `+RTS -s`).
pub fn format_stats(s: &Stats) -> String {
    let secs = s.time.as_secs_f64();
    let rate = if secs > 0.0 {
        s.reductions as f64 / secs / 1e6
    } else {
        0.0
    };
    format!(
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
    )
}
