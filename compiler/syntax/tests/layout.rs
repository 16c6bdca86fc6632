//! Snapshot tests of the layout pass over `tests/layout/*.gph`: one small
//! program per layout case of LANGUAGE.md, each with `NAME.layout`, the output
//! of `gph dump --stage layout NAME.gph` (virtual tokens `v{ v; v}`).
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p gph-syntax --test layout` rewrites the
//! snapshots; review every change by eye: the virtual braces must be where
//! Haskell 2010 puts them. Every program is also valid Haskell that GHC runs
//! (`NAME.stdout` is its output under the oracle).

use gph_syntax::{layout, lexer, pretty, SourceFile};
use std::path::PathBuf;

fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/layout");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "gph"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 15,
        "expected the layout corpus in {}",
        dir.display()
    );
    files
}

fn name(p: &std::path::Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

/// What `gph dump --stage layout` prints.
fn laid_out(text: &str) -> String {
    let (tokens, diags) = lexer::lex(text, 0);
    assert!(diags.is_empty(), "lexical errors: {diags:?}");
    let laid = layout::layout(text, 0, &tokens);
    layout::show_tokens(text, 0, &laid)
}

#[test]
fn layout_snapshots() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for p in programs() {
        let text = std::fs::read_to_string(&p).expect("program");
        let got = laid_out(&text);
        let snap = p.with_extension("layout");
        if update {
            std::fs::write(&snap, &got).expect("write snapshot");
            continue;
        }
        match std::fs::read_to_string(&snap) {
            Ok(want) if want == got => {}
            Ok(want) => failures.push(format!(
                "{}: layout differs from the snapshot\n--- expected\n{want}--- got\n{got}",
                name(&p)
            )),
            Err(_) => failures.push(format!("{}: no snapshot {}", name(&p), snap.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(run with UPDATE_SNAPSHOTS=1 to accept the new output)",
        failures.join("\n")
    );
}

#[test]
fn layout_programs_parse() {
    let mut failures = Vec::new();
    for p in programs() {
        let text = std::fs::read_to_string(&p).expect("program");
        let file = SourceFile::new(p.display().to_string(), text);
        let (m, diags) = gph_syntax::parse_file(&file);
        let errors: Vec<String> = diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{}: {}", file.locate(d.span), d.message))
            .collect();
        if m.is_none() || !errors.is_empty() {
            failures.push(format!("{}: {errors:?}", name(&p)));
            continue;
        }
        // The pretty-printed program parses to the same tree: printing it
        // again gives the same text.
        let once = pretty::module(&m.unwrap());
        let again = SourceFile::new("printed.gph", once.clone());
        match gph_syntax::parse_file(&again) {
            (Some(m2), d) if d.iter().all(|d| !d.is_error()) => {
                let twice = pretty::module(&m2);
                if twice != once {
                    failures.push(format!(
                        "{}: printing is not a fixed point\n{once}\n---\n{twice}",
                        name(&p)
                    ));
                }
            }
            (_, d) => failures.push(format!(
                "{}: the printed program does not parse: {:?}\n{once}",
                name(&p),
                d.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
