//! REPL transcripts: each tests/repl/NAME.in is typed into `gph repl` (with
//! the file named in NAME.file loaded first, if any); what it prints on
//! stdout and stderr is compared with the snapshot NAME.out.

mod common;

use common::{gph_with, snapshot};
use std::path::Path;

#[test]
fn repl_transcripts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<_> = std::fs::read_dir(root.join("tests/repl"))
        .expect("tests/repl")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "in"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    // History goes to a scratch home, not the developer's.
    let home = std::env::temp_dir().join("gph-repl-test-home");
    let _ = std::fs::create_dir_all(&home);
    let mut failures = Vec::new();
    for input in inputs {
        let script = std::fs::read(&input).unwrap();
        let file = std::fs::read_to_string(input.with_extension("file")).unwrap_or_default();
        let mut args = vec!["repl"];
        args.extend(file.split_whitespace());
        // `:edit` runs an editor that does nothing.
        let env = [
            ("HOME", home.to_str().unwrap()),
            ("EDITOR", "true"),
            ("VISUAL", "true"),
        ];
        let out = gph_with(&args, Some(&script), &env);
        if out.status != Some(0) {
            failures.push(format!("{}: exit {:?}", input.display(), out.status));
        }
        let transcript = format!("{}--- stderr\n{}", out.stdout, out.stderr);
        if let Err(e) = snapshot(&input.with_extension("out"), &transcript) {
            failures.push(format!("{}: {e}", input.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
