//! Programs written by gph-gen (tests/gen), not by the people who wrote the
//! compiler: every program in tests/generated prints what GHC printed for it
//! (NAME.stdout, NAME.exitcode from the oracle) on one PE, on 4 threads
//! PEs and on 7 simulated PEs, and every other one at -O0. A bug
//! one of them finds is fixed, and kept shrunk as a golden test in
//! tests/programs; the corpus is never edited to pass.
//!
//! `gph_gen_check_agrees_with_ghc` runs the whole loop once, as
//! `gph-gen check` does: 30 fresh programs of a fixed seed through the
//! oracle (which installs GHC on first use) and gph.

mod common;

use common::{assert_no_failures, programs_in, run_golden, Golden};

const DIR: &str = "tests/generated";
/// The seeds of the check run (`gph-gen check --seed 900000 --count 30`).
const CHECK_SEED: u64 = 900_000;
const CHECK_COUNT: u64 = 30;

/// Runs every corpus program with the extra `gph run` flags, two at a time.
fn run_corpus(extra: &[&str]) -> Vec<String> {
    run_every(1, extra)
}

/// Runs every `step`-th corpus program (in name order) with the extra
/// flags.
fn run_every(step: usize, extra: &[&str]) -> Vec<String> {
    let files = programs_in(DIR);
    assert!(files.len() >= 100, "expected the generated corpus in {DIR}");
    let cases: Vec<Golden> = files
        .iter()
        .step_by(step)
        .map(|f| Golden::read(f))
        .collect();
    run_golden(&cases, extra)
}

fn assert_none(failures: Vec<String>, what: &str) {
    assert_no_failures(failures, "generated", what);
}

#[test]
fn generated_programs_on_one_pe() {
    assert_none(run_corpus(&["--pes", "1"]), "on one PE");
}

/// Half the corpus (every other program): -O0 checks the unoptimised
/// path, which the golden suite also runs whole, and the whole corpus at
/// -O0 cost CI a minute and a half.
#[test]
fn generated_programs_at_o0() {
    assert_none(run_every(2, &["-O0", "--pes", "1"]), "at -O0 on one PE");
}

#[test]
fn generated_programs_on_four_threads() {
    assert_none(run_corpus(&["--pes", "4"]), "on 4 PEs (threads)");
}

#[test]
fn generated_programs_on_seven_simulated_pes() {
    assert_none(
        run_corpus(&["--engine", "sim", "--pes", "7"]),
        "on 7 simulated PEs",
    );
}

/// `gph-gen check --seed 900000 --count 30` with this build of gph, without
/// shrinking: GHC must accept every program and gph must agree with it.
#[test]
fn gph_gen_check_agrees_with_ghc() {
    use gph_gen::driver::{run_check, Settings};
    let oracle = gph_gen::check::default_oracle();
    // The oracle installs GHC the first time it runs: once, here, before
    // two jobs would both try (and one fail on the package manager's lock).
    let hello = std::env::temp_dir().join("gph-oracle-warm-up.gph");
    std::fs::write(&hello, "main :: IO ()\nmain = print (1 :: Int)\n").unwrap();
    let _ = std::process::Command::new(&oracle)
        .arg(&hello)
        .stdout(std::process::Stdio::null())
        .status();
    let ok = run_check(&Settings {
        seed: CHECK_SEED,
        count: CHECK_COUNT,
        jobs: 2,
        gph: env!("CARGO_BIN_EXE_gph").into(),
        oracle,
        keep: None,
        shrink_budget: 0,
        shrink_max: 0,
        batch: 8,
    });
    assert!(ok, "gph-gen check found failures (see the summary above)");
}
