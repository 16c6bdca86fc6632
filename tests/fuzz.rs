//! The fuzz targets (`fuzz/`, docs/reliability.md "Fuzzing") build and run
//! a short while each without finding a crash: the front end on the
//! tests' programs and their mutations, the grid parser on the grids,
//! the REPL on the REPL transcripts. Long runs are `fuzz/run.sh TARGET
//! SECONDS`. cargo-fuzz is installed when missing (from crates.io); the
//! targets build without a sanitizer, on the stable toolchain. Where it
//! cannot be installed, the test says so and passes.

use std::process::Command;

/// Seconds each target runs after it has gone through its seeds once
/// (which it always does), and which of the seeds it starts from (every
/// Nth file).
const SMOKE: [(&str, &str, &str); 3] = [
    ("frontend", "5", "25"),
    ("grid", "5", "1"),
    ("repl", "5", "8"),
];

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
    for (target, secs, sample) in SMOKE {
        // From the seeds alone: what long runs gathered in fuzz/corpus
        // made this test 12 minutes long.
        let corpus = tempfile::tempdir().expect("a folder for the corpus");
        let mut run = Command::new(format!("{root}/fuzz/run.sh"));
        run.args([target, secs])
            .env("GPH_FUZZ_CORPUS", corpus.path());
        // Every seed once took the front end 160 s and the REPL (tests/repl,
        // which tests/repl.rs runs anyway) a minute and a half: a sample.
        run.env("GPH_FUZZ_SAMPLE", sample);
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
