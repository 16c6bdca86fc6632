//! The pretty-printer over every program of the repository: printing a
//! parsed module, parsing the printout and printing again gives the same
//! text (the printout is valid gph and means the same tree).

use gph_syntax::{pretty, SourceFile};
use std::path::{Path, PathBuf};

fn gph_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.expect("directory entry").path();
        if p.is_dir() {
            gph_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "gph") {
            out.push(p);
        }
    }
}

#[test]
fn printing_is_a_fixed_point_on_the_corpus() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in [
        "tests/programs",
        "tests/layout",
        "tests/errors",
        "prelude",
        "programs",
    ] {
        gph_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(
        files.len() > 50,
        "expected the test corpus under {}",
        root.display()
    );
    let mut printed = 0;
    let mut failures = Vec::new();
    for p in &files {
        let text = std::fs::read_to_string(p).expect("program");
        let (Some(m), diags) = gph_syntax::parse_file(&SourceFile::new("a.gph", text.clone()))
        else {
            continue; // a program with a syntax error on purpose
        };
        if diags.iter().any(|d| d.is_error()) {
            continue;
        }
        // The tree has no pragmas: the printout gets the file's extensions
        // back (with BangPatterns, `f !x` is a bang pattern, else `f ! x`).
        let pragmas: String = gph_syntax::lexer::language_extensions(&text)
            .map(|e| format!("{{-# LANGUAGE {e} #-}}\n"))
            .collect();
        let once = pretty::module(&m);
        let source = format!("{pragmas}{once}");
        match gph_syntax::parse_file(&SourceFile::new("printed.gph", source)) {
            (Some(m2), d) if d.iter().all(|d| !d.is_error()) => {
                let twice = pretty::module(&m2);
                if twice != once {
                    failures.push(format!("{}: not a fixed point", p.display()));
                }
            }
            (_, d) => failures.push(format!(
                "{}: the printout does not parse: {:?}",
                p.display(),
                d.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
            )),
        }
        printed += 1;
    }
    assert!(printed > 50);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
