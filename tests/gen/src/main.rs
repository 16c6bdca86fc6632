//! gph-gen: generates random well-typed Tier 1 programs and checks that
//! `gph run` prints what GHC prints for them (see the README, "Tests").
//!
//! * `gph-gen print --seed S`: the program of seed S.
//! * `gph-gen check --seed S --count N [--jobs J] [--gph PATH] [--keep DIR]`:
//!   programs S .. S+N-1 through the oracle and gph in every configuration;
//!   failures are shrunk and written to DIR; a summary at the end.
//! * `gph-gen corpus --seed S --count N --out DIR`: golden files
//!   (NAME.gph, NAME.stdout, NAME.exitcode) as in tests/programs.

mod ast;
mod check;
mod gen;
mod library;
mod print;
mod shrink;
mod ty;

use check::{Config, Expected, Failure, OracleResult};
use clap::{Parser, Subcommand};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Random well-typed gph programs, checked against GHC")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Prints the program of one seed.
    Print {
        #[arg(long)]
        seed: u64,
    },
    /// Generates programs, runs them under GHC and gph, shrinks failures.
    Check {
        #[arg(long)]
        seed: u64,
        #[arg(long, default_value_t = 100)]
        count: u64,
        /// Programs checked at the same time.
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        /// The gph binary (default: beside gph-gen, else on PATH).
        #[arg(long)]
        gph: Option<PathBuf>,
        /// The oracle (default: $ORACLE, else ../shared/tools/oracle).
        #[arg(long)]
        oracle: Option<PathBuf>,
        /// Where failing programs and their shrunk versions go.
        #[arg(long)]
        keep: Option<PathBuf>,
        /// Do not shrink failures.
        #[arg(long)]
        no_shrink: bool,
        /// Most oracle runs spent shrinking one failure.
        #[arg(long, default_value_t = 150)]
        shrink_budget: usize,
    },
    /// Writes golden files NAME.gph, NAME.stdout (and NAME.exitcode) from the oracle.
    Corpus {
        #[arg(long)]
        seed: u64,
        #[arg(long, default_value_t = 100)]
        count: u64,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        #[arg(long)]
        oracle: Option<PathBuf>,
    },
}

fn main() {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Print { seed } => print!("{}", print::print_program(&gen::generate(seed))),
        Cmd::Check {
            seed,
            count,
            jobs,
            gph,
            oracle,
            keep,
            no_shrink,
            shrink_budget,
        } => {
            let gph = gph.unwrap_or_else(check::default_gph);
            let oracle = oracle.unwrap_or_else(check::default_oracle);
            let ok = run_check(&Settings {
                seed,
                count,
                jobs,
                gph,
                oracle,
                keep,
                shrink: !no_shrink,
                shrink_budget,
            });
            std::process::exit(if ok { 0 } else { 1 });
        }
        Cmd::Corpus {
            seed,
            count,
            out,
            jobs,
            oracle,
        } => {
            let oracle = oracle.unwrap_or_else(check::default_oracle);
            corpus(seed, count, &out, jobs, &oracle);
        }
    }
}

pub struct Settings {
    seed: u64,
    count: u64,
    jobs: usize,
    gph: PathBuf,
    oracle: PathBuf,
    keep: Option<PathBuf>,
    shrink: bool,
    shrink_budget: usize,
}

#[derive(Default)]
struct Tally {
    programs: usize,
    passed: usize,
    failures: BTreeMap<Failure, usize>,
    ghc_rejected: Vec<u64>,
    discarded: Vec<(u64, String)>,
    oracle_secs: f64,
    gph_secs: f64,
    lines: usize,
    report: Vec<String>,
}

fn work_dir() -> PathBuf {
    let base = std::env::var_os("TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    let d = base.join(format!("gph-gen-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("a work directory");
    d
}

/// Runs `f(i)` for i in 0..n on `jobs` threads.
fn parallel(n: usize, jobs: usize, f: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                f(i);
            });
        }
    });
}

fn run_check(st: &Settings) -> bool {
    let start = Instant::now();
    let dir = work_dir();
    let cfgs = check::configs(check::supports_o0(&st.gph));
    eprintln!(
        "gph-gen check: seeds {}..{}, {} jobs, gph {}, configurations {}",
        st.seed,
        st.seed + st.count - 1,
        st.jobs,
        st.gph.display(),
        cfgs.iter().map(|c| c.name).collect::<Vec<_>>().join(" ")
    );
    if let Some(k) = &st.keep {
        std::fs::create_dir_all(k).expect("the --keep directory");
    }
    let tally = Mutex::new(Tally::default());
    parallel(st.count as usize, st.jobs, |i| {
        let seed = st.seed + i as u64;
        check_one(st, &cfgs, &dir, seed, &tally);
    });
    let _ = std::fs::remove_dir_all(&dir);
    let t = tally.into_inner().unwrap();
    let secs = start.elapsed().as_secs_f64();
    let n = t.programs.max(1) as f64;
    let count = |f: Failure| t.failures.get(&f).copied().unwrap_or(0);
    println!("gph-gen check --seed {} --count {}", st.seed, st.count);
    for r in &t.report {
        println!("  {r}");
    }
    println!(
        "programs {}  passed {}  mismatches {}  exit-status {}  internal-errors {}  panics {}  timeouts {}  rejections {}  ghc-rejected {}  discarded {}  seconds {:.0}",
        t.programs,
        t.passed,
        count(Failure::Mismatch),
        count(Failure::ExitStatus),
        count(Failure::InternalError),
        count(Failure::Panic),
        count(Failure::Timeout),
        count(Failure::Rejected),
        t.ghc_rejected.len(),
        t.discarded.len(),
        secs
    );
    println!(
        "per program: {:.1} lines, oracle {:.2}s, gph (all configurations) {:.2}s, wall {:.2}s with {} jobs",
        t.lines as f64 / n,
        t.oracle_secs / n,
        t.gph_secs / n,
        secs / n,
        st.jobs
    );
    if !t.ghc_rejected.is_empty() {
        println!("generator bugs (GHC rejected): seeds {:?}", t.ghc_rejected);
    }
    for (s, why) in &t.discarded {
        println!("discarded seed {s}: {why}");
    }
    t.failures.is_empty() && t.ghc_rejected.is_empty()
}

fn check_one(st: &Settings, cfgs: &[Config], dir: &Path, seed: u64, tally: &Mutex<Tally>) {
    let prog = gen::generate(seed);
    let text = print::print_program(&prog);
    let file = dir.join(format!("seed{seed}.gph"));
    std::fs::write(&file, &text).expect("write the program");
    let t0 = Instant::now();
    let exp = match check::oracle(&st.oracle, &file) {
        OracleResult::Ok(e) => e,
        OracleResult::Rejected(msg) => {
            if let Some(k) = &st.keep {
                let _ = std::fs::write(k.join(format!("ghc-rejected-{seed}.gph")), &text);
                let _ = std::fs::write(k.join(format!("ghc-rejected-{seed}.ghc")), &msg);
            }
            let mut t = tally.lock().unwrap();
            t.programs += 1;
            t.ghc_rejected.push(seed);
            t.report.push(format!(
                "seed {seed}: GHC rejects it (generator bug): {}",
                first_error(&msg)
            ));
            return;
        }
        OracleResult::TooSlow(why) => {
            let mut t = tally.lock().unwrap();
            t.programs += 1;
            t.discarded.push((seed, why));
            return;
        }
    };
    let oracle_secs = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let fail = check::check_gph(&st.gph, cfgs, &file, &exp);
    let gph_secs = t1.elapsed().as_secs_f64();
    let mut line = None;
    if let Some((f, cfg, detail)) = &fail {
        let mut msg = format!(
            "seed {seed}: {} in {cfg}: {}",
            f.name(),
            detail.lines().next().unwrap_or("")
        );
        if let Some(k) = &st.keep {
            let _ = std::fs::write(k.join(format!("seed{seed}.gph")), &text);
            let _ = std::fs::write(k.join(format!("seed{seed}.stdout")), &exp.stdout);
            let _ = std::fs::write(
                k.join(format!("seed{seed}.why")),
                format!("{} in {cfg}\n{detail}\n", f.name()),
            );
        }
        if st.shrink {
            let target = shrink::Target {
                failure: *f,
                config: cfg.clone(),
            };
            let small = shrink::shrink(&prog, &target, st, cfgs, dir, seed);
            let small_text = print::print_program(&small);
            msg.push_str(&format!(
                " (shrunk to {} lines)",
                small_text.lines().count()
            ));
            if let Some(k) = &st.keep {
                let _ = std::fs::write(k.join(format!("seed{seed}.min.gph")), &small_text);
            }
        }
        line = Some(msg);
    }
    let mut t = tally.lock().unwrap();
    t.programs += 1;
    t.lines += text.lines().count();
    t.oracle_secs += oracle_secs;
    t.gph_secs += gph_secs;
    match fail {
        None => t.passed += 1,
        Some((f, _, _)) => *t.failures.entry(f).or_default() += 1,
    }
    if let Some(l) = line {
        eprintln!("{l}");
        t.report.push(l);
    }
}

fn first_error(msg: &str) -> String {
    msg.lines()
        .skip_while(|l| !l.contains("error"))
        .take(3)
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

fn corpus(seed: u64, count: u64, out: &Path, jobs: usize, oracle: &Path) {
    std::fs::create_dir_all(out).expect("the output directory");
    let dir = work_dir();
    let written = AtomicUsize::new(0);
    parallel(count as usize, jobs, |i| {
        let s = seed + i as u64;
        let text = print::print_program(&gen::generate(s));
        let name = format!("gen_{s}");
        let file = dir.join(format!("{name}.gph"));
        std::fs::write(&file, &text).expect("write the program");
        match check::oracle(oracle, &file) {
            OracleResult::Ok(Expected { stdout, status }) => {
                std::fs::write(out.join(format!("{name}.gph")), &text).expect("write");
                std::fs::write(out.join(format!("{name}.stdout")), &stdout).expect("write");
                if status != 0 {
                    std::fs::write(out.join(format!("{name}.exitcode")), format!("{status}\n"))
                        .expect("write");
                }
                written.fetch_add(1, Ordering::Relaxed);
            }
            OracleResult::Rejected(msg) => eprintln!(
                "seed {s}: GHC rejects it (generator bug): {}",
                first_error(&msg)
            ),
            OracleResult::TooSlow(why) => eprintln!("seed {s}: discarded: {why}"),
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "wrote {} programs to {}",
        written.into_inner(),
        out.display()
    );
}
