//! The fuzz targets' bodies (`gph::fuzz`, the targets of `fuzz/`,
//! docs/reliability.md "Fuzzing") on a sample of their seeds, with the
//! ordinary build: the front end on the tests' programs, the grid parser
//! on the grids, the REPL on the REPL transcripts; none may panic. The
//! mutations are libFuzzer's, in long runs: `fuzz/run.sh TARGET SECONDS`
//! (cargo-fuzz, installed when missing; its instrumented build of the
//! whole tree cost CI four to five minutes, so the suite runs the bodies
//! here instead).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a panic happened, in any thread (the bodies run the compiler
/// and the REPL on threads of their own, whose panics they drop, as
/// libFuzzer's panic hook would not).
static PANICKED: AtomicBool = AtomicBool::new(false);

/// The seeds of each target (as fuzz/run.sh has them) and which of them
/// the test takes: every Nth file in name order. Every seed once took the
/// front end 160 s and the REPL (tests/repl, which tests/repl.rs runs
/// anyway) a minute and a half.
const SEEDS: [(&str, &[&str], usize); 3] = [
    (
        "frontend",
        &[
            "tests/programs",
            "tests/errors",
            "tests/layout",
            "tests/runtime-errors",
            "programs",
            "prelude",
        ],
        25,
    ),
    ("grid", &["programs/grids"], 1),
    ("repl", &["tests/repl"], 8),
];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every `every`th file under the folders, in name order, as
/// `GPH_FUZZ_SAMPLE` samples them.
fn sample(dirs: &[&str], every: usize) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in dirs {
        files_under(&root.join(d), &mut files);
    }
    files.sort();
    files.into_iter().step_by(every).collect()
}

#[test]
fn fuzz_targets_take_their_seeds_without_a_crash() {
    let inputs: Vec<(&str, Vec<PathBuf>)> = SEEDS
        .iter()
        .map(|(target, dirs, every)| (*target, sample(dirs, *every)))
        .collect();
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICKED.store(true, Ordering::SeqCst);
        report(info);
    }));
    for (target, files) in inputs {
        assert!(!files.is_empty(), "no seeds for {target}");
        if target == "repl" {
            gph::fuzz::repl_init();
        }
        for f in files {
            let data = std::fs::read(&f).expect("a seed");
            let run = || match target {
                "frontend" => gph::fuzz::frontend(&data),
                "grid" => gph::fuzz::grid(&data),
                _ => gph::fuzz::repl(&data),
            };
            let crashed = std::panic::catch_unwind(run).is_err();
            if crashed || PANICKED.load(Ordering::SeqCst) {
                panic!("fuzz target {target} crashed on {}", f.display());
            }
        }
    }
}
