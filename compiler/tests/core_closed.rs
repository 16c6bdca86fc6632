//! The Core of every corpus program (tests/programs, programs) is closed
//! and well scoped: what the back end relies on (`core::Program::check_scopes`).

use gph_compiler::to_core;
use gph_syntax::SourceFile;
use std::path::Path;

fn programs(dir: &str) -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut v: Vec<_> = std::fs::read_dir(&root)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "gph"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn core_of_every_program_is_closed() {
    let mut files = programs("tests/programs");
    files.extend(programs("programs"));
    files.extend(programs("tests/core"));
    files.extend(programs("tests/runtime-errors"));
    assert!(files.len() >= 40, "expected the corpus");
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable program");
        let file = SourceFile::new(f.to_string_lossy(), text);
        let (core, _, diags) = to_core(&file);
        let Some(core) = core else {
            failures.push(format!(
                "{}: no Core ({} diagnostics, first: {:?})",
                f.display(),
                diags.len(),
                diags.first().map(|d| &d.message)
            ));
            continue;
        };
        if let Err(e) = core.check_scopes() {
            failures.push(format!("{}: {e}", f.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
