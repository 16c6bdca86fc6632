//! The options the `gph` command shares among its subcommands: how the
//! compiler's back end runs (`CompileOpts`), how the machine runs
//! (`MachineOpts`), what a run records (`ObserveOpts`), and how
//! diagnostics are printed.

use gph_runtime::parallel::policy::Sched;
use gph_runtime::EngineKind;
use gph_syntax::{Diagnostic, SourceMap};
use std::io::IsTerminal;

/// How the compiler's back end runs: shared by `run`, `repl` and `dump`.
#[derive(clap::Args, Clone, Copy)]
pub struct CompileOpts {
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

/// A group of options from the words `args` (no command name before).
fn parse_args<T: clap::Args>(args: &[&str]) -> Result<T, String> {
    #[derive(clap::Parser)]
    #[command(no_binary_name = true)]
    struct Args<T: clap::Args> {
        #[command(flatten)]
        group: T,
    }
    <Args<T> as clap::Parser>::try_parse_from(args)
        .map(|a| a.group)
        .map_err(|e| e.to_string())
}

impl CompileOpts {
    /// The options of `gph run` ARGS (`-O0`, `--lint`).
    pub fn parse(args: &[&str]) -> Result<CompileOpts, String> {
        parse_args(args)
    }

    pub fn options(&self) -> gph_compiler::Options {
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
pub struct MachineOpts {
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
    pub engine: EngineKind,
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
pub struct ObserveOpts {
    /// Write the run's events as a GHC eventlog (ThreadScope, ghc-events):
    /// one capability per PE.
    #[arg(long, value_name = "FILE")]
    pub eventlog: Option<String>,
    /// Write a Chrome/Perfetto trace (JSON): a process per PE, a track per
    /// thread, message arrows.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<String>,
    /// Draw the activity profile (per PE and overall) as an SVG picture.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<String>,
    /// The most bytes each file may take (None: no limit).
    #[arg(skip)]
    pub file_limit: Option<u64>,
}

impl ObserveOpts {
    /// Whether any file is asked for.
    pub fn asked(&self) -> bool {
        self.eventlog.is_some() || self.trace.is_some() || self.profile.is_some()
    }

    /// The files asked for, created; None if none is.
    pub fn outputs(
        &self,
        program: String,
        machine: &MachineOpts,
        config: &gph_runtime::Config,
    ) -> Result<Option<std::sync::Arc<gph_runtime::obs::out::Outputs>>, String> {
        let at = |p: &Option<String>| p.as_deref().map(gph_runtime::obs::out::Target::from);
        let targets = [at(&self.eventlog), at(&self.trace), at(&self.profile)];
        outputs_at(program, machine, config, targets, self.file_limit)
    }
}

/// The recordings of a run into these targets (eventlog, trace, profile:
/// files, or buffers in memory); None if there is none.
pub fn outputs_at(
    program: String,
    machine: &MachineOpts,
    config: &gph_runtime::Config,
    [eventlog, trace, profile]: [Option<gph_runtime::obs::out::Target>; 3],
    file_limit: Option<u64>,
) -> Result<Option<std::sync::Arc<gph_runtime::obs::out::Outputs>>, String> {
    {
        if eventlog.is_none() && trace.is_none() && profile.is_none() {
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
            file_limit,
        };
        let out = gph_runtime::obs::out::Outputs::create_at(&info, eventlog, trace, profile)?;
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

/// Half of the machine's memory (or 8 GiB when it cannot be read); the
/// runtime's default where addresses are 32 bits (the browser build).
fn default_heap_limit() -> u64 {
    if usize::BITS < 64 {
        return gph_runtime::DEFAULT_HEAP_LIMIT as u64;
    }
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
    });
    total_kib.map_or(8 << 30, |k| k * 1024 / 2)
}

impl MachineOpts {
    /// The options of `gph run` ARGS (`--pes 4`, `--engine sim`, ...).
    pub fn parse(args: &[&str]) -> Result<MachineOpts, String> {
        parse_args(args)
    }

    /// Whether a run writes a file of its own (`--stats-json`).
    pub fn writes_files(&self) -> bool {
        self.stats_json.is_some()
    }

    /// The options as `gph run` arguments (the defaults left out): what
    /// the REPL's `:set` shows, and parses again with a change.
    pub fn to_args(&self) -> Vec<String> {
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
        opt("slice", o.slice.map(|n| n.to_string()));
        a
    }

    /// How the machine is, in a few words (for the REPL).
    pub fn describe(&self) -> String {
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

    pub fn config(&self, file: &str, args: Vec<String>) -> Result<gph_runtime::Config, String> {
        self.config_on(file, args, None)
    }

    /// The run's configuration; on the mpi engine, `mpi` is this process's
    /// MPI: one PE per rank.
    pub fn config_on(
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
    pub fn report_stats(
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

/// Prints diagnostics to stderr, in source order; returns whether any is an error.
pub fn report(sources: &SourceMap, diags: &[Diagnostic]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_groups_parse_from_words() {
        let m = MachineOpts::parse(&["--pes", "3", "--engine", "sim"]).unwrap();
        assert_eq!(m.engine, EngineKind::Sim);
        assert!(m.describe().starts_with("3 PEs, engine sim"));
        assert!(CompileOpts::parse(&["-O0"]).is_ok_and(|c| !c.options().optimise));
        assert!(MachineOpts::parse(&["--pes", "0"]).is_err());
    }
}
