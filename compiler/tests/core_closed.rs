//! Core Lint finds nothing on any program in the repository, at `-O0` and
//! optimised: every pass keeps the invariants the next one relies on
//! (`gph_compiler::core::lint`); and the machine's validator accepts the
//! code of each (`gph_code::validate`).

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

/// Every module of the library (prelude/), by its name.
fn library_modules() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../prelude");
    let mut found = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let module_like = p.file_name().is_some_and(|n| {
                n.to_string_lossy()
                    .starts_with(|c: char| c.is_ascii_uppercase())
            });
            if !module_like {
                // ghc-check/ and the like: not modules of the library.
            } else if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "gph") {
                let rel = p.strip_prefix(&root).unwrap().with_extension("");
                let name: Vec<_> = rel.iter().map(|c| c.to_string_lossy()).collect();
                found.push(name.join("."));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn lint_finds_nothing_on_any_program() {
    let mut files = programs("tests/programs");
    files.extend(programs("programs"));
    files.extend(programs("tests/core"));
    files.extend(programs("tests/runtime-errors"));
    assert!(files.len() >= 40, "expected the corpus");
    // Each program as `gph run` compiles it: only what `main` reaches goes
    // through the passes. The whole library, once: a program that imports
    // every module, compiled with nothing left out (entry ""). Before, each
    // program took the whole library through Lint: 445 s on two cores.
    let modules = library_modules();
    assert!(modules.len() >= 40, "expected the library in prelude/");
    let everything = std::env::temp_dir().join(format!("gph-lint-all-{}.gph", std::process::id()));
    // The Prelude comes in unqualified, as always.
    let text: String = modules
        .iter()
        .filter(|m| *m != "Prelude")
        .map(|m| format!("import qualified {m}\n"))
        .collect();
    std::fs::write(&everything, text + "main :: IO ()\nmain = return ()\n").unwrap();
    files.push(everything.clone());
    // Two at a time.
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
                    let entry = if *f == everything { "" } else { "main" };
                    let (mut compiled, _, mut diags) = compile_full(&file, entry, &opts);
                    let mut with_main = !entry.is_empty();
                    if diags.iter().any(|d| d.message.contains("has no `main`")) {
                        // A module without main: all of it.
                        (compiled, _, diags) = compile_full(&file, "", &opts);
                        with_main = false;
                    }
                    let mut out = failures.lock().unwrap();
                    // The machine's validator accepts the code (of a
                    // program: it needs a main).
                    if let Some((c, _)) = compiled.as_ref().filter(|_| with_main) {
                        if let Err(es) = gph_code::validate::validate(&c.code) {
                            out.push(format!(
                                "{} (optimise {optimise}): invalid code: {:?}",
                                f.display(),
                                &es[..es.len().min(5)]
                            ));
                        }
                    }
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
    let _ = std::fs::remove_file(&everything);
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
