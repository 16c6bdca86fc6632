//! The gph machine: the instruction set the code generator targets
//! (`code`, checked by `validate`); one PE (`machine`: heap and collector,
//! reducer, threads, spark pool, scheduler, primitives, the outside world);
//! what PEs do among themselves (`parallel`: global addresses, packing,
//! the protocols); and how PEs run and messages travel (`engine`).
//!
//! The driver calls [`run_main`].

pub use gph_code as code;
pub mod engine;
pub mod host;
pub mod machine;
pub mod obs;
pub mod options;
pub mod parallel;
pub mod session;
pub use gph_code::validate;

#[cfg(not(target_arch = "wasm32"))]
use engine::os_threads as threads;
use engine::{grid, sim};
use machine::{io, load, pe};

use host::Instant;
use std::io::{IsTerminal, Read, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use obs::stats::{format_stats, PeStats, Stats};
pub use options::Overrides;
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
    pub engine: EngineKind,
    /// The simulated machine (sim engine).
    pub grid: Option<grid::Grid>,
    /// Seeds the PEs' random choices (whom to fish).
    pub seed: u64,
    /// Seeds the faults the sim engine injects (`engine::faults`); none
    /// when None.
    pub faults: Option<u64>,
    /// The load policy (`--sched`).
    pub sched: parallel::policy::Sched,
    /// The policy's and the packet layer's knobs (`options`).
    pub overrides: Overrides,
    /// Records every PE's events here (see `obs`).
    pub record: Option<Arc<dyn obs::Sink>>,
    /// This process's MPI rank, on the mpi engine (`engine::mpi::Session`).
    pub mpi_rank: Option<usize>,
}

/// Which engine runs the PEs (docs/design.md "Engines"; the trait they
/// implement is `engine::Engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// One OS thread per PE.
    Threads,
    /// All PEs in one OS thread, in virtual time.
    Sim,
    /// One PE per MPI rank, each a process (`mpirun`; the cargo feature
    /// `mpi`).
    Mpi,
}

impl EngineKind {
    /// Every engine, in the order `--engine` lists them.
    pub const ALL: [EngineKind; 3] = [EngineKind::Threads, EngineKind::Sim, EngineKind::Mpi];

    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Threads => "threads",
            EngineKind::Sim => "sim",
            EngineKind::Mpi => "mpi",
        }
    }
}

impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The default heap limit: 4 GiB, or 512 MiB where addresses are 32 bits
/// (the browser's WebAssembly), where 4 GiB would not fit in a `usize`.
pub const DEFAULT_HEAP_LIMIT: usize = if usize::BITS >= 64 {
    4 << 30
} else {
    512 << 20
};

impl Default for Config {
    fn default() -> Self {
        Config {
            args: Vec::new(),
            prog_name: "main".into(),
            heap_limit: DEFAULT_HEAP_LIMIT,
            gc_stress: false,
            interrupt: None,
            pes: 1,
            engine: EngineKind::Threads,
            grid: None,
            seed: 0,
            faults: None,
            sched: parallel::policy::Sched::default(),
            overrides: Overrides::default(),
            record: None,
            mpi_rank: None,
        }
    }
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
    let io = RunIo {
        out,
        line_buffered,
        input,
    };
    let (exit, stats, _) = run(program, config, tuning, io, None);
    (exit, stats)
}

/// The outside world of a run.
pub(crate) struct RunIo<'a> {
    pub out: &'a mut dyn Write,
    pub line_buffered: bool,
    pub input: &'a mut dyn Read,
}

/// Runs `main`; with a REPL session, its values are put into the main PE
/// first and taken out again after.
pub(crate) fn run(
    program: &code::Program,
    config: &Config,
    tuning: &Tuning,
    world: RunIo,
    session: Option<session::SessionRun>,
) -> (Exit, Stats, Option<session::saved::Saved>) {
    let RunIo {
        out,
        line_buffered,
        input,
    } = world;
    let start = Instant::now();
    let mut stats = Stats::default();
    let loaded = match load::load(program) {
        Ok(l) => l,
        Err(e) => return (Exit::Error(e), stats, None),
    };
    if program.main.is_none() {
        return (Exit::Error("the program has no main".into()), stats, None);
    }
    let n = config.grid.as_ref().map_or(config.pes.max(1), |g| g.len());
    let mut tuning = tuning.clone();
    config.overrides.apply(&mut tuning);
    tuning.sched = config.sched;
    // One heap limit for the run, whatever its PEs (`HeapBudget`).
    tuning.heap_budget = Some(Arc::new(machine::heap::HeapBudget::new(config.heap_limit)));
    let setup = engine::Setup {
        program,
        loaded: &loaded,
        config,
        tuning,
        npes: n,
        session: session.map(|s| s.saved),
    };
    if engine_is_mpi_elsewhere(config) {
        return (run_elsewhere(&setup), stats, None);
    }
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
        EngineKind::Sim => {
            let grid = match &config.grid {
                Some(g) => g.clone(),
                None => match grid::Grid::uniform(n) {
                    Ok(g) => g,
                    Err(e) => return (Exit::Error(e), stats, None),
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
                    let (r, times) = sim::run(&mut pes, &grid, id, config.faults);
                    stats.virtual_time = Some(times.virtual_time);
                    stats.faults = times.faults;
                    let end = times.virtual_time;
                    for (pe, t) in pes.iter_mut().zip(times.per_pe) {
                        per_pe.push(pe_stats(pe, t, end));
                    }
                    r
                }
                Err(e) => Err(e),
            };
            pe0 = pes.swap_remove(0);
            r
        }
        #[cfg(not(target_arch = "wasm32"))]
        EngineKind::Threads => {
            let (r, all) = threads::run(&setup, &mut pe0, pe_stats);
            per_pe = all;
            r
        }
        // The browser has no threads to give each PE (docs/web.md).
        #[cfg(target_arch = "wasm32")]
        EngineKind::Threads => Err(pe::Stop::Error(
            "the threads engine is not in the browser build: use the sim engine".into(),
        )),
        #[cfg(feature = "mpi")]
        EngineKind::Mpi => {
            let (r, all) = engine::mpi::run_main(&setup, &mut pe0, pe_stats);
            per_pe = all;
            r
        }
        #[cfg(not(feature = "mpi"))]
        EngineKind::Mpi => Err(pe::Stop::Error(engine::mpi::NOT_BUILT.into())),
    };
    let saved = session.map(|s| session::save(&s, program, &pe0, result.as_ref().ok().copied()));
    let flushed = pe0.io.flush();
    let exit = match result {
        Ok(_) => match flushed {
            Ok(()) => Exit::Success,
            Err(e) => Exit::Error(e),
        },
        Err(pe::Stop::Error(e)) => Exit::Error(e),
        Err(pe::Stop::Exit(c)) => Exit::ExitWith(c),
    };
    let (virtual_time, faults) = (stats.virtual_time, stats.faults);
    let mut stats = Stats::new(per_pe);
    stats.faults = faults;
    stats.engine = engine.name();
    stats.pes = n;
    stats.virtual_time = virtual_time;
    stats.time = start.elapsed();
    (exit, stats, saved)
}

/// Whether this process runs a PE of an MPI run other than the main one.
fn engine_is_mpi_elsewhere(config: &Config) -> bool {
    config.engine == EngineKind::Mpi && config.mpi_rank.is_some_and(|r| r != 0)
}

/// Runs this process's PE of an MPI run (not the main one): it has no
/// stdin or stdout, and exits as rank 0 says.
fn run_elsewhere(setup: &engine::Setup) -> Exit {
    #[cfg(feature = "mpi")]
    {
        let rank = setup.config.mpi_rank.unwrap_or(0);
        match engine::mpi::run_other(setup, rank, pe_stats) {
            0 => Exit::Success,
            c => Exit::ExitWith(c),
        }
    }
    #[cfg(not(feature = "mpi"))]
    {
        let _ = setup;
        Exit::Error(engine::mpi::NOT_BUILT.into())
    }
}

/// The statistics of one PE at the end of a run (at `end`, on its
/// engine's clock): its counters, and the times its engine measured.
fn pe_stats(pe: &mut pe::Pe, times: engine::PeTimes, end: f64) -> PeStats {
    pe.end_run(end);
    let mut s = pe.stats().clone();
    s.busy_s = times.busy;
    s.idle_s = times.idle;
    s.blocked_s = times.blocked;
    s
}
