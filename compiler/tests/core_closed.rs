//! Core Lint finds nothing on any program in the repository, at `-O0` and
//! optimised: every pass keeps the invariants the next one relies on
//! (`gph_compiler::core::lint`).

use gph_compiler::{compile_full, Options};
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
fn lint_finds_nothing_on_any_program() {
    let mut files = programs("tests/programs");
    files.extend(programs("programs"));
    files.extend(programs("tests/core"));
    files.extend(programs("tests/runtime-errors"));
    assert!(files.len() >= 40, "expected the corpus");
    // Two at a time: each compiles the Prelude with Lint after every pass.
    let jobs: Vec<(bool, &std::path::PathBuf)> = [true, false]
        .into_iter()
        .flat_map(|o| files.iter().map(move |f| (o, f)))
        .collect();
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some(&(optimise, f)) =
                    jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let opts = Options {
                        optimise,
                        lint: true,
                        interactive_from: None,
                    };
                    let text = std::fs::read_to_string(f).expect("readable program");
                    let file = SourceFile::new(f.to_string_lossy(), text);
                    let (compiled, _, diags) = compile_full(&file, "", &opts);
                    let mut out = failures.lock().unwrap();
                    if compiled.is_none() {
                        out.push(format!(
                            "{} (optimise {optimise}): not compiled ({} diagnostics, first: {:?})",
                            f.display(),
                            diags.len(),
                            diags.first().map(|d| &d.message)
                        ));
                    }
                    for d in diags
                        .iter()
                        .filter(|d| d.message.contains("internal error"))
                    {
                        out.push(format!(
                            "{} (optimise {optimise}): {}",
                            f.display(),
                            d.message
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
