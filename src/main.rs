//! The `gph` command: `check`, `dump`, and (with the machine) `run` and `repl`.

mod cache;
mod calibrate;
mod files;
mod repl;
mod signals;

use clap::{Parser, Subcommand};
use gph_runtime::parallel::policy::Sched;
use gph_runtime::EngineKind;
use gph_syntax::{Diagnostic, SourceFile, SourceMap};
use std::io::IsTerminal;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "gph",
    version,
    about = "A graph-reduction interpreter for a lazy parallel Haskell (GpH and Eden)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and type-check a program; report every error found.
    Check { file: String },
    /// Compile a program and run it; the words after `--` are its arguments.
    Run {
        file: String,
        #[command(flatten)]
        machine: MachineOpts,
        #[command(flatten)]
        compiler: CompileOpts,
        #[command(flatten)]
        observe: ObserveOpts,
        /// Compile the program even if this gph has compiled these very
        /// sources before (compiled programs are kept in $GPH_CACHE_DIR,
        /// else $XDG_CACHE_HOME/gph or ~/.cache/gph).
        #[arg(long)]
        recompile: bool,
        /// The program's arguments (what `getArgs` returns).
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// An interactive session: evaluate expressions, add definitions, look
    /// at types and compiled code.
    Repl {
        /// A file to load first.
        file: Option<String>,
        /// Print each input line after the prompt, so that the output reads
        /// as a transcript (for lessons and tests fed from a file).
        #[arg(long)]
        echo: bool,
        #[command(flatten)]
        machine: MachineOpts,
        #[command(flatten)]
        compiler: CompileOpts,
    },
    /// Measure this machine's costs (reduction rate, contention between
    /// cores, messages, collector, latencies) and write a machine file the
    /// sim engine takes (`--engine sim --grid FILE --pes N`).
    Calibrate {
        /// Where to write the machine file (default: standard output).
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
        /// The machine's name in the file (default: the file's name).
        #[arg(long)]
        name: Option<String>,
        /// Cores to measure contention on (default: all of them).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
        cores: Option<u16>,
    },
    /// Measure the mpi engine's messages against raw MPI between two ranks
    /// (`mpirun -np 2 gph mpi-bench`): latency and throughput per size.
    MpiBench {
        /// Message sizes in bytes.
        #[arg(long, value_delimiter = ',', default_values_t = [16, 1024, 65536])]
        sizes: Vec<usize>,
        /// Round trips of the smallest size (fewer of larger ones).
        #[arg(long, default_value_t = 20000)]
        rounds: usize,
    },
    /// Print what one compiler pass produced.
    Dump {
        #[arg(long, value_parser = stage_parser())]
        stage: gph_compiler::Stage,
        file: String,
        #[command(flatten)]
        compiler: CompileOpts,
    },
}

/// How the compiler's back end runs: shared by `run`, `repl` and `dump`.
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct CompileOpts {
    /// Optimisation level: `-O0` skips the simplifier, specialisation and
    /// deforestation (the straightest translation, for when a program
    /// misbehaves); `-O1` (the default) and `-O2` optimise.
    #[arg(short = 'O', value_name = "LEVEL", default_value_t = 1,
          value_parser = clap::value_parser!(u8).range(0..=2))]
    opt_level: u8,
    /// Check the compiler's intermediate code after every pass (Core Lint;
    /// always on in debug builds).
    #[arg(long)]
    lint: bool,
}

impl CompileOpts {
    pub(crate) fn options(&self) -> gph_compiler::Options {
        let mut o = gph_compiler::Options {
            optimise: self.opt_level > 0,
            ..Default::default()
        };
        o.lint |= self.lint;
        o
    }
}

/// How the machine runs: shared by `run` and `repl`.
#[derive(clap::Args, Clone)]
pub(crate) struct MachineOpts {
    /// The most heap the run may use, all its PEs and both semispaces of
    /// each together, e.g. `512M`, `4G` (default: half of the machine's
    /// memory; at least 4M). Running out is the error "heap exhausted".
    #[arg(long, value_name = "SIZE", value_parser = gph_runtime::options::parse_heap_limit)]
    heap_limit: Option<u64>,
    /// Print statistics (reductions, allocation, GCs, sparks, time) on stderr
    /// after the run.
    #[arg(long)]
    stats: bool,
    /// Write the statistics as JSON to this file.
    #[arg(long, value_name = "PATH")]
    stats_json: Option<String>,
    /// Collect garbage every few allocations (for testing the collector).
    #[arg(long, hide = true)]
    gc_stress: bool,
    /// How many PEs (processing elements) run the program (default: the
    /// number of cores; with --grid, the grid's: a grid of one cluster,
    /// such as a machine file of `gph calibrate`, runs on any number).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pes: Option<u16>,
    /// How the PEs run: `threads` (one OS thread each, real time) or `sim`
    /// (one OS thread, virtual time, deterministic).
    #[arg(long, value_parser = named(&EngineKind::ALL, EngineKind::name), default_value_t = EngineKind::Threads)]
    engine: EngineKind,
    /// The machine as a grid file (see programs/grids): simulated with
    /// `--engine sim`; emulated on `threads` (slow PEs paced to their
    /// speed, messages between clusters delayed by the link's latency).
    #[arg(long, value_name = "FILE")]
    grid: Option<String>,
    /// Seeds the PEs' random choices (sim runs are reproducible per seed).
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Simulate a faulty network and machine (sim engine): messages
    /// delayed at random, congested links, stalled PEs, duplicate FISH,
    /// each as much as seed N draws (docs/reliability.md). The output must
    /// not change.
    #[arg(long, value_name = "N")]
    faults: Option<u64>,
    /// How PEs share out work: `gum2` (Grid-GUM2: speeds and loads
    /// exchanged, fish the busiest PE for its speed) or `gum` (GUM: fish a
    /// random PE, one spark per fish).
    #[arg(long, value_parser = named(&Sched::ALL, Sched::name), default_value_t)]
    sched: Sched,
    /// The load policy's and the packet layer's knobs.
    #[command(flatten)]
    overrides: gph_runtime::Overrides,
}

/// What a run records (docs/observe.md): files written as it goes.
#[derive(clap::Args, Clone, Default)]
pub(crate) struct ObserveOpts {
    /// Write the run's events as a GHC eventlog (ThreadScope, ghc-events):
    /// one capability per PE.
    #[arg(long, value_name = "FILE")]
    pub(crate) eventlog: Option<String>,
    /// Write a Chrome/Perfetto trace (JSON): a process per PE, a track per
    /// thread, message arrows.
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<String>,
    /// Draw the activity profile (per PE and overall) as an SVG picture.
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: Option<String>,
}

impl ObserveOpts {
    /// Whether any file is asked for.
    pub(crate) fn asked(&self) -> bool {
        self.eventlog.is_some() || self.trace.is_some() || self.profile.is_some()
    }

    /// The files asked for, created; None if none is.
    pub(crate) fn outputs(
        &self,
        program: String,
        machine: &MachineOpts,
        config: &gph_runtime::Config,
    ) -> Result<Option<std::sync::Arc<gph_runtime::obs::out::Outputs>>, String> {
        if !self.asked() {
            return Ok(None);
        }
        let mut policy = machine.sched.name().to_string();
        machine.overrides.describe(&mut policy);
        let info = gph_runtime::obs::out::RunInfo {
            program,
            args: config.args.clone(),
            engine: config.engine.name().to_string(),
            pes: config.grid.as_ref().map_or(config.pes.max(1), |g| g.len()),
            grid: config.grid.clone(),
            policy,
        };
        let out = gph_runtime::obs::out::Outputs::create(
            &info,
            self.eventlog.as_deref(),
            self.trace.as_deref(),
            self.profile.as_deref(),
        )?;
        Ok(Some(std::sync::Arc::new(out)))
    }
}

/// A parser of the names of a runtime enum (`--engine`, `--sched`): the
/// runtime's list of them is the one clap offers.
fn named<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
) -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(all.iter().map(|&t| name(t)))
        .map(move |s| *all.iter().find(|&&t| name(t) == s).expect("a listed name"))
}

/// Half of the machine's memory (or 8 GiB when it cannot be read).
fn default_heap_limit() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
    });
    total_kib.map_or(8 << 30, |k| k * 1024 / 2)
}

impl MachineOpts {
    /// The options as `gph run` arguments (the defaults left out): what
    /// the REPL's `:set` shows, and parses again with a change.
    pub(crate) fn to_args(&self) -> Vec<String> {
        let mut a: Vec<String> = Vec::new();
        let mut opt = |name: &str, v: Option<String>| {
            if let Some(v) = v {
                a.push(format!("--{name}"));
                if !v.is_empty() {
                    a.push(v);
                }
            }
        };
        let ms = |d: &std::time::Duration| format!("{}", d.as_secs_f64() * 1e3);
        let flag = |b: bool| b.then(String::new);
        opt("heap-limit", self.heap_limit.map(|b| b.to_string()));
        opt("stats", flag(self.stats));
        opt("stats-json", self.stats_json.clone());
        opt("gc-stress", flag(self.gc_stress));
        opt("pes", self.pes.map(|n| n.to_string()));
        opt(
            "engine",
            (self.engine != EngineKind::Threads).then(|| self.engine.name().to_string()),
        );
        opt("grid", self.grid.clone());
        opt("seed", (self.seed != 0).then(|| self.seed.to_string()));
        opt("faults", self.faults.map(|n| n.to_string()));
        opt(
            "sched",
            (self.sched != Sched::default()).then(|| self.sched.name().to_string()),
        );
        let o = &self.overrides;
        opt("thread-limit", o.thread_limit.map(|n| n.to_string()));
        opt("low-watermark", o.low_watermark.map(|n| n.to_string()));
        opt("super-schedule", flag(o.super_schedule));
        opt("fish-delay", o.fish_delay.as_ref().map(ms));
        opt("no-chunking", flag(o.no_chunking));
        opt("packet-size", o.packet_size.map(|b| b.to_string()));
        opt("chunk-timeout", o.chunk_timeout.as_ref().map(ms));
        a
    }

    /// How the machine is, in a few words (for the REPL).
    pub(crate) fn describe(&self) -> String {
        let pes = match (&self.grid, self.pes) {
            (Some(g), _) => format!("grid {g}"),
            (None, Some(n)) => format!("{n} PE{}", if n == 1 { "" } else { "s" }),
            (None, None) => {
                let n = std::thread::available_parallelism().map_or(1, |n| n.get());
                format!("{n} PE{} (one per core)", if n == 1 { "" } else { "s" })
            }
        };
        let mut d = format!("{pes}, engine {}, sched {}", self.engine, self.sched);
        // The rest of the options, as they would be typed.
        let mut rest = self.clone();
        (rest.pes, rest.grid, rest.engine, rest.sched) =
            (None, None, EngineKind::Threads, Sched::default());
        let more = rest.to_args();
        if !more.is_empty() {
            d.push_str(", ");
            d.push_str(&more.join(" "));
        }
        d
    }

    pub(crate) fn config(
        &self,
        file: &str,
        args: Vec<String>,
    ) -> Result<gph_runtime::Config, String> {
        self.config_on(file, args, None)
    }

    /// The run's configuration; on the mpi engine, `mpi` is this process's
    /// MPI: one PE per rank.
    pub(crate) fn config_on(
        &self,
        file: &str,
        args: Vec<String>,
        mpi: Option<&gph_runtime::engine::mpi::Session>,
    ) -> Result<gph_runtime::Config, String> {
        let ranks = match (self.engine, mpi) {
            (EngineKind::Mpi, None) => {
                return Err(
                    "--engine mpi runs programs under mpirun (`mpirun -np 4 gph run \
                     --engine mpi FILE`); the REPL runs on threads or sim"
                        .into(),
                )
            }
            (EngineKind::Mpi, Some(m)) => {
                if let Some(n) = self.pes.filter(|&n| n as usize != m.size) {
                    return Err(format!(
                        "--pes {n}, but mpirun started {} ranks: the mpi engine runs a PE per rank",
                        m.size
                    ));
                }
                if m.size > 64 {
                    return Err(format!("{} ranks: gph runs at most 64 PEs", m.size));
                }
                Some(m.size as u16)
            }
            _ => None,
        };
        if self.faults.is_some() && self.engine != EngineKind::Sim {
            return Err(format!(
                "--faults perturbs the simulated network: add --engine sim (the engine is {})",
                self.engine
            ));
        }
        let pes = ranks.or(self.pes);
        let prog_name = std::path::Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "main".into());
        let grid = match &self.grid {
            Some(path) => {
                let g = gph_runtime::engine::grid::Grid::load(std::path::Path::new(path))?;
                match pes {
                    // A machine file (one cluster) on that many of its PEs.
                    Some(n) => Some(g.with_pes(n as usize).map_err(|e| match ranks {
                        Some(_) => format!("{n} MPI ranks: {e}"),
                        None => format!("--pes {n}: {e}"),
                    })?),
                    None => Some(g),
                }
            }
            None => None,
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(gph_runtime::Config {
            args,
            prog_name,
            heap_limit: self.heap_limit.unwrap_or_else(default_heap_limit) as usize,
            gc_stress: self.gc_stress,
            pes: pes.map_or(cores.min(64), |n| n as usize),
            mpi_rank: mpi.map(|m| m.rank),
            engine: self.engine,
            grid,
            seed: self.seed,
            faults: self.faults,
            sched: self.sched,
            overrides: self.overrides.clone(),
            ..Default::default()
        })
    }

    /// Prints or writes the statistics as asked.
    pub(crate) fn report_stats(
        &self,
        stats: &gph_runtime::Stats,
        wall: std::time::Duration,
    ) -> Result<(), ()> {
        if self.stats {
            eprint!("{}", gph_runtime::format_stats(stats));
        }
        if let Some(path) = &self.stats_json {
            let json = gph_runtime::obs::stats::to_json(stats, wall);
            std::fs::write(path, json + "\n")
                .map_err(|e| eprintln!("gph: cannot write {path}: {e}"))?;
        }
        Ok(())
    }
}

/// `--stage`: the compiler's list of stages, with what each shows.
fn stage_parser() -> impl clap::builder::TypedValueParser<Value = gph_compiler::Stage> {
    use clap::builder::{PossibleValue, TypedValueParser};
    let all = gph_compiler::Stage::ALL;
    clap::builder::PossibleValuesParser::new(all.map(|(_, n, h)| PossibleValue::new(n).help(h)))
        .map(move |s| {
            all.iter()
                .find(|(_, n, _)| *n == s)
                .expect("a listed stage")
                .0
        })
}

fn read_source(path: &str) -> Result<SourceFile, String> {
    std::fs::read_to_string(path)
        .map(|text| SourceFile::new(path, text))
        .map_err(|e| format!("gph: cannot read {path}: {e}"))
}

/// Prints diagnostics to stderr, in source order; returns whether any is an error.
pub(crate) fn report(sources: &SourceMap, diags: &[Diagnostic]) -> bool {
    let color = std::io::stderr().is_terminal();
    let mut diags = diags.to_vec();
    gph_syntax::diag::sort(&mut diags);
    for d in &diags {
        match sources.file_of(d.span) {
            Some(file) => eprint!("{}", d.render(file, color)),
            None => eprintln!("gph: {}", d.message),
        }
    }
    diags.iter().any(Diagnostic::is_error)
}

fn run(cli: Cli) -> Result<(), ()> {
    match cli.command {
        Command::Check { file } => {
            let src = read_source(&file).map_err(|e| eprintln!("{e}"))?;
            let result = gph_compiler::check(&src);
            if report(&result.sources, &result.diagnostics) {
                return Err(());
            }
            Ok(())
        }
        Command::Run {
            file,
            machine,
            compiler,
            observe,
            recompile,
            args,
        } => {
            // On the mpi engine every rank runs this; only rank 0 speaks.
            let mpi = match machine.engine {
                EngineKind::Mpi => Some(
                    gph_runtime::engine::mpi::Session::start()
                        .map_err(|e| eprintln!("gph: {e}"))?,
                ),
                _ => None,
            };
            let main_rank = mpi.as_ref().is_none_or(|m| m.rank == 0);
            let say = |e: String| {
                if main_rank {
                    eprintln!("{e}")
                }
            };
            let src = read_source(&file).map_err(say)?;
            let mut config = machine
                .config_on(&file, args, mpi.as_ref())
                .map_err(|e| say(format!("gph: {e}")))?;
            let options = compiler.options();
            let key = cache::Key::new(&src, &options);
            let cached = key.as_ref().filter(|_| !recompile).and_then(|k| k.lookup());
            let program = match cached {
                Some(p) => p,
                None => {
                    let (program, sources, mut diagnostics) = gph_compiler::compile(&src, &options);
                    // Warnings are `gph check`'s business; a run shows only
                    // errors, and with them the warnings that may explain
                    // them (an extension gph does not support).
                    if !diagnostics.iter().any(Diagnostic::is_error) {
                        diagnostics.clear();
                    }
                    if !main_rank && !diagnostics.is_empty() {
                        return Err(());
                    }
                    if report(&sources, &diagnostics) {
                        return Err(());
                    }
                    let Some(program) = program else {
                        return Err(());
                    };
                    if let Some(k) = &key {
                        k.store(&program, &sources);
                    }
                    program
                }
            };
            let name = std::path::Path::new(&file)
                .file_stem()
                .map_or_else(|| file.clone(), |s| s.to_string_lossy().into_owned());
            if !main_rank {
                // Another rank's events go to rank 0, which writes the files.
                if observe.asked() {
                    config.record =
                        Some(std::sync::Arc::new(gph_runtime::obs::Recording::default()));
                }
                let (exit, _) = gph_runtime::run_main(&program, &config);
                drop(mpi);
                return match exit {
                    gph_runtime::Exit::Success => Ok(()),
                    gph_runtime::Exit::Error(_) => Err(()),
                    gph_runtime::Exit::ExitWith(code) => std::process::exit(code),
                };
            }
            let outputs = observe
                .outputs(name, &machine, &config)
                .map_err(|e| eprintln!("gph: {e}"))?;
            if let Some(o) = &outputs {
                config.record = Some(o.clone());
            }
            if mpi.is_none() {
                // mpirun has its own way with signals.
                let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
                config.interrupt = Some(flag.clone());
                signals::stop_runs_on_signals(flag);
            }
            let start = std::time::Instant::now();
            let (exit, stats) = gph_runtime::run_main(&program, &config);
            let wall = start.elapsed();
            let signal = signals::run_stopped();
            if let Some(o) = &outputs {
                let run_time = stats.virtual_time.unwrap_or(stats.time.as_secs_f64());
                o.finish(run_time).map_err(|e| eprintln!("gph: {e}"))?;
            }
            machine.report_stats(&stats, wall)?;
            if let Some(sig) = signal {
                // As a shell reports a process a signal ended.
                std::process::exit(128 + sig);
            }
            match exit {
                gph_runtime::Exit::Success => Ok(()),
                gph_runtime::Exit::Error(msg) => {
                    eprintln!("gph: {msg}");
                    Err(())
                }
                gph_runtime::Exit::ExitWith(code) => {
                    drop(mpi);
                    std::process::exit(code)
                }
            }
        }
        Command::Repl {
            file,
            echo,
            machine,
            compiler,
        } => repl::repl(file, echo, machine, compiler),
        Command::MpiBench { sizes, rounds } => mpi_bench(&sizes, rounds),
        Command::Calibrate { out, name, cores } => {
            let cores = cores.map_or_else(
                || {
                    std::thread::available_parallelism()
                        .map_or(1, |n| n.get())
                        .min(64)
                },
                |n| n as usize,
            );
            let name = name.unwrap_or_else(|| {
                out.as_deref()
                    .and_then(|o| std::path::Path::new(o).file_stem())
                    .map_or_else(|| "machine".into(), |s| s.to_string_lossy().into_owned())
            });
            let text = calibrate::calibrate(&name, cores).map_err(|e| eprintln!("gph: {e}"))?;
            match out {
                Some(path) => std::fs::write(&path, text)
                    .map_err(|e| eprintln!("gph: cannot write {path}: {e}")),
                None => {
                    print!("{text}");
                    Ok(())
                }
            }
        }
        Command::Dump {
            stage,
            file,
            compiler,
        } => {
            let src = read_source(&file).map_err(|e| eprintln!("{e}"))?;
            let result = gph_compiler::dump(&src, stage, &compiler.options());
            let failed = report(&result.sources, &result.diagnostics);
            if let Some(out) = result.output {
                print!("{out}");
            }
            if failed {
                return Err(());
            }
            Ok(())
        }
    }
}

/// `gph mpi-bench`: the table, on rank 0.
fn mpi_bench(sizes: &[usize], rounds: usize) -> Result<(), ()> {
    let session = gph_runtime::engine::mpi::Session::start().map_err(|e| eprintln!("gph: {e}"))?;
    #[cfg(feature = "mpi")]
    {
        let rows = gph_runtime::engine::mpi::bench::pingpong(sizes, rounds).map_err(|e| {
            if session.rank == 0 {
                eprintln!("gph: {e}")
            }
        })?;
        if session.rank == 0 {
            println!(
                "   bytes  latency us: raw   gph  ratio   throughput MB/s: raw     gph  ratio"
            );
            for r in rows {
                println!(
                    "{:8}  {:15.2} {:5.2} {:6.2}   {:20.1} {:7.1} {:6.2}",
                    r.bytes,
                    r.raw_latency,
                    r.engine_latency,
                    r.engine_latency / r.raw_latency,
                    r.raw_throughput,
                    r.engine_throughput,
                    r.engine_throughput / r.raw_throughput
                );
            }
        }
    }
    #[cfg(not(feature = "mpi"))]
    let _ = (sizes, rounds, session);
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A bug in gph is reported in one line, never as a Rust backtrace; a
    // program too deep for the compiler's stack is reported below.
    std::panic::set_hook(Box::new(|info| {
        if !gph_syntax::stack::is_too_deep(info.payload()) {
            eprintln!("gph: internal error: {info}");
        }
    }));
    // The compiler's passes recurse over the program: they run on a thread
    // with a large stack, whose guard stops them cleanly when it runs out.
    let result = std::panic::catch_unwind(|| gph_syntax::stack::run(move || run(cli)));
    match result {
        Ok(Ok(Ok(()))) => ExitCode::SUCCESS,
        Ok(Ok(Err(()))) => ExitCode::FAILURE,
        Ok(Err(too_deep)) => {
            eprintln!("gph: {too_deep}");
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::FAILURE,
    }
}
