//! The mpi engine (docs/mpi.md) under a real `mpirun`: the golden suite's
//! parallel programs on 2 and 4 ranks print what GHC printed; run-time
//! errors on any rank give rank 0's message and status 1; a long Eden
//! stream between two ranks gets through the flow control; the events of
//! every rank reach one eventlog.
//!
//! The default build has no MPI, so this test builds gph with the feature
//! `mpi` into `target/mpi` (a few minutes, once). It needs Open MPI and
//! libclang: where they are missing it installs them with apt-get (as
//! root, as in CI); where it cannot, it says so and passes.

mod common;

use common::{programs_in, run_command, snapshot, two_at_a_time, Golden, Output};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const PACKAGES: [&str; 3] = ["openmpi-bin", "libopenmpi-dev", "libclang-dev"];

fn has(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd} >/dev/null")])
        .status()
        .is_ok_and(|s| s.success())
}

fn root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"))
}

/// Open MPI and libclang, installed if need be; why not, if they cannot be.
fn install_mpi() -> Result<(), String> {
    if has("mpirun") && has("mpicc") {
        return Ok(());
    }
    if !root() || !has("apt-get") {
        return Err(format!(
            "no mpirun, and no apt-get as root to install {}",
            PACKAGES.join(" ")
        ));
    }
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "-q"])
            .args(PACKAGES)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let updated = || {
        Command::new("apt-get")
            .args(["update", "-q"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if install() || (updated() && install()) {
        Ok(())
    } else {
        Err(format!("apt-get could not install {}", PACKAGES.join(" ")))
    }
}

/// The gph binary built with MPI, or why there is none (the test then
/// passes, saying so).
fn mpi_gph() -> Option<&'static Path> {
    static GPH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let r = GPH.get_or_init(|| {
        install_mpi()?;
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let target = root.join("target/mpi");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "--quiet", "--features", "mpi", "--bin", "gph"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(root)
            .output()
            .map_err(|e| format!("cargo: {e}"))?;
        // MPI is there: a build that fails is a failure, not a skip.
        assert!(
            out.status.success(),
            "cargo build --features mpi failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(target.join("debug/gph"))
    });
    match r {
        Ok(p) => Some(p),
        Err(why) => {
            eprintln!("SKIPPED: the mpi engine is not tested here: {why}");
            None
        }
    }
}

/// `mpirun -np RANKS gph ARGS` (as root and on more ranks than cores,
/// as a test machine needs).
fn mpirun(gph: &Path, ranks: usize, args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = Command::new("mpirun");
    cmd.args(["--oversubscribe", "-np", &ranks.to_string()])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .arg(gph)
        .args(args);
    run_command(cmd, Some(stdin))
}

/// The golden programs that run in parallel: those that import GpH's or
/// Eden's modules.
fn parallel_programs() -> Vec<Golden> {
    programs_in("tests/programs")
        .into_iter()
        .filter(|f| {
            std::fs::read_to_string(f).is_ok_and(|s| {
                s.lines().any(|l| {
                    l.starts_with("import Control.Parallel") || l.starts_with("import Eden")
                })
            })
        })
        .map(|f| Golden::read(&f))
        .collect()
}

fn run_args<'a>(c: &'a Golden, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "--engine", "mpi"];
    args.extend_from_slice(extra);
    args.extend(c.flags.iter().map(String::as_str));
    args.push(c.file.to_str().unwrap());
    args.push("--");
    args.extend(c.args.iter().map(String::as_str));
    args
}

#[test]
fn golden_parallel_programs_print_what_ghc_prints_on_mpi_ranks() {
    let Some(gph) = mpi_gph() else { return };
    let cases = parallel_programs();
    assert!(cases.len() >= 30, "expected the parallel golden programs");
    let mut failures = Vec::new();
    for ranks in [2, 4] {
        for sched in ["gum2", "gum"] {
            failures.extend(two_at_a_time(&cases, |c| {
                let out = mpirun(gph, ranks, &run_args(c, &["--sched", sched]), &c.stdin);
                if out.status == Some(c.exit) && out.stdout == c.stdout {
                    return vec![];
                }
                vec![format!(
                    "{} on {ranks} ranks, {sched}: exit {:?} (expected {})\n--- stdout\n{}\n--- stderr\n{}",
                    c.file.display(),
                    out.status,
                    c.exit,
                    out.stdout,
                    out.stderr
                )]
            }));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// stderr without mpirun's own notes (each between lines of dashes).
fn without_mpirun_notes(stderr: &str) -> String {
    let mut inside = false;
    let mut ours = String::new();
    for l in stderr.lines() {
        if l.len() > 20 && l.chars().all(|c| c == '-') {
            inside = !inside;
        } else if !inside {
            ours.push_str(l);
            ours.push('\n');
        }
    }
    ours
}

/// A run-time error, on whichever rank it happens, is rank 0's message
/// and status 1 (mpirun's own account of a rank's status follows it).
#[test]
fn runtime_errors_on_mpi_ranks_are_rank_0s_message() {
    let Some(gph) = mpi_gph() else { return };
    let cases: Vec<(PathBuf, Golden)> = programs_in("tests/runtime-errors")
        .into_iter()
        .map(|f| (f.clone(), Golden::read(&f)))
        .collect();
    let failures = two_at_a_time(&cases, |(f, c)| {
        let mut args = vec!["run", "--engine", "mpi"];
        args.extend(c.flags.iter().map(String::as_str));
        args.push(f.to_str().unwrap());
        let out = mpirun(gph, 2, &args, &c.stdin);
        let ours = without_mpirun_notes(&out.stderr);
        let mut problems = Vec::new();
        if out.status != Some(1) {
            problems.push(format!("exit {:?}", out.status));
        }
        if let Err(e) = snapshot(&f.with_extension("stderr"), &ours) {
            problems.push(e);
        }
        if out.stdout != c.stdout {
            problems.push(format!("stdout {:?}, expected {:?}", out.stdout, c.stdout));
        }
        if problems.is_empty() {
            vec![]
        } else {
            vec![format!(
                "{}: {}\nstderr: {}",
                f.display(),
                problems.join("; "),
                out.stderr
            )]
        }
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
