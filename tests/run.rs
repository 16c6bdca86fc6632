//! Golden tests of the machine, through the real `gph` binary: every program
//! in tests/programs prints exactly what GHC printed for it (the oracle's
//! `.stdout`) and exits with the oracle's status, in every configuration:
//! the normal run and a run with the garbage collector forced every few
//! allocations (so a missing GC root is a test failure, not a rare crash).
//! Run-time errors (tests/runtime-errors) give `gph: MESSAGE` and status 1.

mod common;

use common::{gph_with, programs_in, snapshot};
use std::path::{Path, PathBuf};

struct Case {
    file: PathBuf,
    args: Vec<String>,
    stdin: Vec<u8>,
    stdout: String,
    exit: i32,
}

fn case(file: &Path) -> Case {
    let read = |ext: &str| std::fs::read(file.with_extension(ext)).ok();
    let text = |ext: &str| read(ext).map(|b| String::from_utf8_lossy(&b).into_owned());
    Case {
        file: file.to_path_buf(),
        args: text("args")
            .map(|a| a.split_whitespace().map(String::from).collect())
            .unwrap_or_default(),
        stdin: read("stdin").unwrap_or_default(),
        stdout: text("stdout").unwrap_or_default(),
        exit: text("exitcode")
            .and_then(|c| c.trim().parse().ok())
            .unwrap_or(0),
    }
}

/// Runs every golden program with the extra `gph run` flags, two at a time.
fn run_all(extra: &[&str]) -> Vec<String> {
    let cases: Vec<Case> = programs_in("tests/programs")
        .iter()
        .map(|f| case(f))
        .collect();
    assert!(cases.len() >= 40, "expected the corpus in tests/programs");
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                let mut args = vec!["run"];
                args.extend_from_slice(extra);
                args.push(c.file.to_str().unwrap());
                args.push("--");
                args.extend(c.args.iter().map(String::as_str));
                let out = gph_with(&args, Some(&c.stdin), &[]);
                let mut problems = Vec::new();
                if out.status != Some(c.exit) {
                    problems.push(format!("exit {:?}, expected {}", out.status, c.exit));
                }
                if out.stdout != c.stdout {
                    problems.push(format!(
                        "stdout differs\n--- expected\n{}\n--- actual\n{}",
                        c.stdout, out.stdout
                    ));
                }
                if out.stderr.contains("panicked") {
                    problems.push("panic".into());
                }
                if !problems.is_empty() {
                    failures.lock().unwrap().push(format!(
                        "{} {}: {}\nstderr: {}",
                        c.file.display(),
                        extra.join(" "),
                        problems.join("; "),
                        out.stderr
                    ));
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

fn assert_none(failures: Vec<String>, what: &str) {
    assert!(
        failures.is_empty(),
        "{} golden programs failed {what}:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn golden_programs_print_what_ghc_prints() {
    assert_none(run_all(&[]), "on one PE");
}

#[test]
fn golden_programs_survive_gc_stress() {
    assert_none(
        run_all(&["--gc-stress"]),
        "with a collection every few allocations",
    );
}

/// Each program in tests/runtime-errors fails at run time: exit status 1 and
/// a `gph: ` message on stderr (snapshot `.stderr`), after printing the
/// output it printed before the failure (`.stdout`, when present).
#[test]
fn runtime_errors_are_reported() {
    let mut failures = Vec::new();
    for f in programs_in("tests/runtime-errors") {
        let c = case(&f);
        let mut args = vec!["run"];
        let flags = std::fs::read_to_string(f.with_extension("flags")).unwrap_or_default();
        args.extend(flags.split_whitespace());
        args.push(f.to_str().unwrap());
        let out = gph_with(&args, Some(&c.stdin), &[]);
        if out.status != Some(1) {
            failures.push(format!(
                "{}: exit {:?}\n{}",
                f.display(),
                out.status,
                out.stderr
            ));
            continue;
        }
        if !out.stderr.starts_with("gph: ") || out.stderr.contains("panicked") {
            failures.push(format!("{}: stderr {:?}", f.display(), out.stderr));
            continue;
        }
        if let Err(e) = snapshot(&f.with_extension("stderr"), &out.stderr) {
            failures.push(format!("{}: {e}", f.display()));
        }
        if out.stdout != c.stdout {
            failures.push(format!(
                "{}: stdout {:?}, expected {:?}",
                f.display(),
                out.stdout,
                c.stdout
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
