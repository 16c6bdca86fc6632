//! The fuzz targets (`fuzz/`, docs/reliability.md "Fuzzing") build and run
//! a short while each without finding a crash: the front end on the
//! tests' programs and their mutations, the grid parser on the grids,
//! the REPL on the REPL transcripts. Long runs are `fuzz/run.sh TARGET
//! SECONDS`. cargo-fuzz is installed when missing (from crates.io); the
//! targets build without a sanitizer, on the stable toolchain. Where it
//! cannot be installed, the test says so and passes.

use std::process::Command;

/// Seconds each target runs after it has gone through its seeds once
/// (which it always does).
const SMOKE: [(&str, &str); 3] = [("frontend", "5"), ("grid", "5"), ("repl", "5")];

#[test]
fn fuzz_targets_find_nothing_in_a_short_run() {
    let root = env!("CARGO_MANIFEST_DIR");
    let have = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        let installed = Command::new("cargo")
            .args(["install", "cargo-fuzz", "--locked"])
            .status()
            .is_ok_and(|s| s.success());
        if !installed {
            eprintln!("cargo-fuzz cannot be installed here: the fuzz targets were not run");
            return;
        }
    }
    for (target, secs) in SMOKE {
        // From the seeds alone: what long runs gathered in fuzz/corpus
        // made this test 12 minutes long.
        let corpus = tempfile::tempdir().expect("a folder for the corpus");
        let mut run = Command::new(format!("{root}/fuzz/run.sh"));
        run.args([target, secs])
            .env("GPH_FUZZ_CORPUS", corpus.path());
        // The REPL's seeds, every transcript of tests/repl, took a minute
        // and a half (each input compiled with the Prelude), and
        // tests/repl.rs runs them all anyway: four here.
        let seeds = tempfile::tempdir().expect("a folder for the seeds");
        if target == "repl" {
            for name in ["basics.in", "commands.in", "errors.in", "parallel.in"] {
                let from = format!("{root}/tests/repl/{name}");
                if std::path::Path::new(&from).exists() {
                    std::fs::copy(&from, seeds.path().join(name)).expect("a seed copied");
                }
            }
            run.env("GPH_FUZZ_SEEDS", seeds.path());
        }
        let out = run.output().expect("fuzz/run.sh runs");
        let log = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = log.lines().rev().take(40).collect();
        assert!(
            out.status.success(),
            "fuzz target {target} failed:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
}
