//! Golden tests of the front end, through the real `gph` binary: every good
//! program is accepted by `gph check`; every bad program is rejected with a
//! diagnostic at each line where GHC reports an error (see tests/README.md).

mod common;

use common::{gph, lines_of_ghc_errors, lines_of_gph_errors, programs_in, snapshot};

#[test]
fn good_programs_are_accepted() {
    let mut failures = Vec::new();
    let files = programs_in("tests/programs");
    assert!(files.len() >= 40, "expected the corpus in tests/programs");
    for f in &files {
        let out = gph(&["check", f.to_str().unwrap()], None);
        if out.status != Some(0) {
            failures.push(failed(f, &out));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} good programs rejected:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Which error categories the front end checks (all of them).
/// A failure's line: the file, its exit status and what it printed.
fn failed(f: &std::path::Path, out: &common::Output) -> String {
    format!("{}: exit {:?}\n{}", f.display(), out.status, out.stderr)
}

fn checked(name: &str) -> bool {
    ["scope_", "syntax_", "fixity_", "type_", "multi_"]
        .iter()
        .any(|p| name.starts_with(p))
}

#[test]
fn bad_programs_are_rejected_where_ghc_rejects_them() {
    let mut failures = Vec::new();
    let files = programs_in("tests/errors");
    assert!(files.len() >= 25, "expected the corpus in tests/errors");
    let mut n = 0;
    for f in &files {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        if !checked(&name) {
            continue;
        }
        n += 1;
        let out = gph(&["check", f.to_str().unwrap()], None);
        if out.status != Some(1) {
            failures.push(format!(
                "{name}: expected exit 1, got {:?}\n{}",
                out.status, out.stderr
            ));
            continue;
        }
        if out.stderr.contains("panicked") {
            failures.push(format!("{name}: panic\n{}", out.stderr));
            continue;
        }
        if let Err(e) = snapshot(&f.with_extension("stderr"), &out.stderr) {
            failures.push(format!("{name}: {e}"));
        }
        // Syntax errors may be noticed a token earlier or later than GHC does.
        if name.starts_with("syntax_") {
            continue;
        }
        let ghc = lines_of_ghc_errors(&f.with_extension("ghc"));
        let ours = lines_of_gph_errors(&out.stderr);
        let missing: Vec<_> = ghc.iter().filter(|l| !ours.contains(l)).collect();
        if !missing.is_empty() {
            failures.push(format!(
                "{name}: GHC reports lines {ghc:?}, gph {ours:?}\n{}",
                out.stderr
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} bad programs not rejected as GHC does:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `gph dump --stage core` is stable: snapshots in tests/core.
#[test]
fn core_dumps_are_stable() {
    let files = programs_in("tests/core");
    assert!(!files.is_empty(), "expected programs in tests/core");
    let mut failures = Vec::new();
    for f in &files {
        let out = gph(&["dump", "--stage", "core", f.to_str().unwrap()], None);
        if out.status != Some(0) {
            failures.push(failed(f, &out));
            continue;
        }
        if let Err(e) = snapshot(&f.with_extension("core"), &out.stdout) {
            failures.push(format!("{}: {e}", f.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `gph dump --stage simplified` prints the main module's Core as lambda
/// lifting takes it: optimised at `-O1` (no dictionary left in sumEuler),
/// the desugarer's at `-O0` but renamed apart.
#[test]
fn simplified_core_is_what_the_optimiser_left() {
    let file = "tests/core/sumEuler.gph";
    let dump = |flags: &[&str]| {
        let mut args = vec!["dump"];
        args.extend_from_slice(flags);
        args.push(file);
        let out = gph(&args, None);
        assert_eq!(out.status, Some(0), "{}", out.stderr);
        out.stdout
    };
    let core = dump(&["--stage", "core"]);
    let o1 = dump(&["--stage", "simplified"]);
    let o0 = dump(&["-O0", "--stage", "simplified"]);
    assert!(core.contains("Prelude.$fNumInt"), "{core}");
    assert!(
        o1.starts_with("Main.") && !o1.contains("Prelude.$fNumInt"),
        "{o1}"
    );
    assert!(o0.contains("Prelude.$fNumInt") && o0 != core, "{o0}");
}

/// User modules that import each other are rejected, naming the cycle (a
/// cycle takes more than one file, so it is not in tests/errors/).
#[test]
fn module_import_cycles_are_rejected() {
    let dir = std::env::temp_dir().join(format!("gph-cycle-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("Cyc")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write(
        "Cyc/A.hs",
        "module Cyc.A where\nimport Cyc.B\na :: Int\na = 1\n",
    );
    write(
        "Cyc/B.hs",
        "module Cyc.B where\nimport Cyc.A\nb :: Int\nb = 2\n",
    );
    write("Main.hs", "import Cyc.A\n\nmain :: IO ()\nmain = print a\n");
    let main = dir.join("Main.hs");
    let out = gph(&["check", main.to_str().unwrap()], None);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status, Some(1), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("module imports form a cycle: Cyc.B imports Cyc.A"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}
