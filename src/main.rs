//! The `gph` command: `check`, `dump`, and (with the machine) `run` and `repl`.

use clap::{Parser, Subcommand};
use gph::options::report;
use gph::{cache, calibrate, repl, signals, CompileOpts, MachineOpts, ObserveOpts};
use gph_runtime::EngineKind;
use gph_syntax::{Diagnostic, SourceFile};
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

// Public for src/bin/gph-mpi.rs, which is this program under another name.
pub fn main() -> ExitCode {
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
