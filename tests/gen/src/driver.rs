//! The `check` and `corpus` commands: programs through the oracle and gph,
//! in parallel jobs, with a summary.

use crate::ast::Program;
use crate::check::{self, Config, Expected, Failure, OracleResult};
use crate::{gen, print, shrink};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

pub struct Settings {
    pub seed: u64,
    pub count: u64,
    pub jobs: usize,
    pub gph: PathBuf,
    pub oracle: PathBuf,
    pub keep: Option<PathBuf>,
    /// Most oracle runs spent shrinking one failure.
    pub shrink_budget: usize,
    /// Failures shrunk per kind and configuration (0: none).
    pub shrink_max: usize,
    /// Programs compiled by one GHC run (1: the oracle for each).
    pub batch: usize,
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
    /// Failures shrunk so far, by kind and configuration.
    shrunk: BTreeMap<(Failure, String), usize>,
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

pub fn run_check(st: &Settings) -> bool {
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
    let batch = st.batch.max(1) as u64;
    let chunks = st.count.div_ceil(batch);
    parallel(chunks as usize, st.jobs, |c| {
        let first = st.seed + c as u64 * batch;
        let last = (first + batch).min(st.seed + st.count);
        let seeds: Vec<u64> = (first..last).collect();
        let progs: Vec<(Program, String)> = seeds
            .iter()
            .map(|s| {
                let p = gen::generate(*s);
                let t = print::print_program(&p);
                (p, t)
            })
            .collect();
        let t0 = Instant::now();
        let mut expected = if seeds.len() > 1 {
            oracle_batch(st, &dir, &seeds, &progs)
        } else {
            vec![None]
        };
        let batch_secs = t0.elapsed().as_secs_f64() / seeds.len() as f64;
        for (k, seed) in seeds.iter().enumerate() {
            let pre = expected[k].take().map(|e| (e, batch_secs));
            check_one(st, &cfgs, &dir, *seed, &progs[k], pre, &tally);
        }
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

/// Checks one program; `pre`: its expected output from a batch compilation
/// (and the seconds that took per program), else the oracle is run.
fn check_one(
    st: &Settings,
    cfgs: &[Config],
    dir: &Path,
    seed: u64,
    (prog, text): &(Program, String),
    pre: Option<(Expected, f64)>,
    tally: &Mutex<Tally>,
) {
    let file = dir.join(format!("seed{seed}.gph"));
    std::fs::write(&file, text).expect("write the program");
    let t0 = Instant::now();
    let (result, pre_secs) = match pre {
        Some((e, secs)) => (OracleResult::Ok(e), secs),
        None => (check::oracle(&st.oracle, &file), 0.0),
    };
    let exp = match result {
        OracleResult::Ok(e) => e,
        OracleResult::Rejected(msg) => {
            if let Some(k) = &st.keep {
                let _ = std::fs::write(k.join(format!("ghc-rejected-{seed}.gph")), text);
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
    let oracle_secs = t0.elapsed().as_secs_f64() + pre_secs;
    let t1 = Instant::now();
    let fail = check::check_gph(&st.gph, cfgs, &file, &exp);
    let gph_secs = t1.elapsed().as_secs_f64();
    if matches!(fail, Some((Failure::Mismatch | Failure::ExitStatus, ..)))
        && optimiser_dependent(st, cfgs, dir, seed, &file, &exp)
    {
        if let Some(k) = &st.keep {
            let _ = std::fs::write(k.join(format!("ghc-unstable-{seed}.gph")), text);
        }
        let mut t = tally.lock().unwrap();
        t.programs += 1;
        let why = "GHC -O1 and -O0 print different things; gph prints -O0's".to_string();
        t.report.push(format!("seed {seed}: discarded: {why}"));
        t.discarded.push((seed, why));
        return;
    }
    let mut line = None;
    if let Some((f, cfg, detail)) = &fail {
        let mut msg = format!(
            "seed {seed}: {} in {cfg}: {}",
            f.name(),
            detail.lines().next().unwrap_or("")
        );
        if let Some(k) = &st.keep {
            let _ = std::fs::write(k.join(format!("seed{seed}.gph")), text);
            let _ = std::fs::write(k.join(format!("seed{seed}.stdout")), &exp.stdout);
            let _ = std::fs::write(
                k.join(format!("seed{seed}.why")),
                format!("{} in {cfg}\n{detail}\n", f.name()),
            );
        }
        let take = {
            let mut t = tally.lock().unwrap();
            let n = t.shrunk.entry((*f, cfg.clone())).or_default();
            *n += 1;
            *n <= st.shrink_max
        };
        if take {
            let target = shrink::Target {
                failure: *f,
                config: cfg.clone(),
                signature: check::signature(*f, detail),
            };
            let small = shrink::shrink(prog, &target, st, cfgs, dir, seed);
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

/// Whether the program's output depends on GHC's optimiser (GHC without
/// optimisation prints something else than the oracle) and gph prints
/// what GHC without optimisation does: then the difference is GHC's, and
/// the program tests nothing.
fn optimiser_dependent(
    st: &Settings,
    cfgs: &[Config],
    dir: &Path,
    seed: u64,
    file: &Path,
    exp: &Expected,
) -> bool {
    let scratch = dir.join(format!("o0-{seed}"));
    let o0 = check::ghc_unoptimised(&st.oracle, file, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    o0.is_some_and(|o0| {
        (o0.stdout != exp.stdout || o0.status != exp.status)
            && check::check_gph(&st.gph, cfgs, file, &o0).is_none()
    })
}

fn first_error(msg: &str) -> String {
    msg.lines()
        .skip_while(|l| !l.contains("error"))
        .take(3)
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn corpus(seed: u64, count: u64, out: &Path, jobs: usize, oracle: &Path) {
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

/// Expected outputs of several programs from one GHC compilation: program
/// `S` becomes module `P<S>` (its text unchanged but for the module header:
/// `module P<S> (main) where` instead of `module Main (main) where`, which
/// is also the implicit header), and a `Main` runs `P<S>.main` when its
/// argument is `S`. A module's meaning does not depend on its name or on
/// the modules beside it, and each run is its own process, so each output
/// is the one the oracle gives for the program alone (its script compiles
/// with the same `ghc -O1 -threaded` and the same shim modules). Programs
/// that end in a run-time error go to the oracle one by one all the same:
/// which of two errors GHC raises may depend on its optimisation choices.
/// None for a program: ask the oracle (also when the compilation fails,
/// so that a program GHC rejects is found).
fn oracle_batch(
    st: &Settings,
    dir: &Path,
    seeds: &[u64],
    progs: &[(Program, String)],
) -> Vec<Option<Expected>> {
    let mut out: Vec<Option<Expected>> = seeds.iter().map(|_| None).collect();
    let members: Vec<usize> = (0..seeds.len())
        .filter(|k| !progs[*k].0.fails_at_run_time)
        .collect();
    if members.len() < 2 {
        return out;
    }
    let bdir = dir.join(format!("batch{}", seeds[0]));
    let _ = std::fs::remove_dir_all(&bdir);
    std::fs::create_dir_all(&bdir).expect("a batch directory");
    let mut main = String::from("import System.Environment (getArgs)\n");
    for k in &members {
        main.push_str(&format!("import qualified P{}\n", seeds[*k]));
        let text = &progs[*k].1;
        let body = text
            .strip_prefix("module Main (main) where\n")
            .unwrap_or(text);
        let module = format!("module P{} (main) where\n{body}", seeds[*k]);
        std::fs::write(bdir.join(format!("P{}.hs", seeds[*k])), module).expect("write a module");
    }
    main.push_str("\nmain :: IO ()\nmain = do\n  args <- getArgs\n  case args of\n");
    for k in &members {
        main.push_str(&format!("    [\"{0}\"] -> P{0}.main\n", seeds[*k]));
    }
    main.push_str("    _ -> error \"which program?\"\n");
    std::fs::write(bdir.join("Main.hs"), main).expect("write Main.hs");
    let compiled = check::run(
        check::ghc(&st.oracle)
            .arg("-O1")
            .arg("-threaded")
            .arg(format!("-i{}", bdir.display()))
            .arg("-outputdir")
            .arg(bdir.join("o"))
            .arg("-o")
            .arg(bdir.join("prog"))
            .arg(bdir.join("Main.hs")),
        check::ORACLE_LIMIT,
    );
    if compiled.status != Some(0) {
        let _ = std::fs::remove_dir_all(&bdir);
        return out;
    }
    for k in members {
        let r = check::run(
            Command::new(bdir.join("prog")).arg(seeds[k].to_string()),
            Duration::from_secs(60),
        );
        if let Some(s @ (0 | 1)) = r.status {
            if r.stdout.len() <= 64 * 1024 {
                out[k] = Some(Expected {
                    stdout: r.stdout,
                    status: s,
                });
            }
        }
    }
    let _ = std::fs::remove_dir_all(&bdir);
    out
}
