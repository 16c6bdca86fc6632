//! REPL transcripts: each tests/repl/NAME.in is typed into `gph repl` (with
//! the file named in NAME.file loaded first, if any); what it prints on
//! stdout and stderr is compared with the snapshot NAME.out.

mod common;

use common::{gph_with, snapshot, without_svg};
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
        let transcript = without_svg(&format!("{}--- stderr\n{}", out.stdout, out.stderr));
        if let Err(e) = snapshot(&input.with_extension("out"), &transcript) {
            failures.push(format!("{}: {e}", input.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Ctrl-C (SIGINT) during `:steps` and during an evaluation stops it; the
/// session goes on.
#[test]
fn ctrl_c_stops_steps_and_evaluations_but_not_the_repl() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let home = std::env::temp_dir().join("gph-repl-test-home-ctrl-c");
    let _ = std::fs::create_dir_all(&home);
    let mut child = Command::new(env!("CARGO_BIN_EXE_gph"))
        .arg("repl")
        .env("HOME", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gph runs");
    let mut stdin = child.stdin.take().unwrap();
    // Read as it comes: a full pipe would stop the REPL.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out_reader = drain(Box::new(child.stdout.take().unwrap()));
    let err_reader = drain(Box::new(child.stderr.take().unwrap()));
    let interrupt = |what: &str, stdin: &mut std::process::ChildStdin| {
        stdin.write_all(what.as_bytes()).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        // The shell's own `kill` (a minimal Debian has no /bin/kill).
        let ok = Command::new("sh")
            .arg("-c")
            .arg(format!("kill -INT {}", child.id()))
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill -INT");
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    interrupt(":set steps 100000000\n:steps length [1 ..]\n", &mut stdin);
    interrupt("length [1 ..]\n", &mut stdin);
    stdin.write_all(b"1 + 1\n:quit\n").unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    let out = out_reader.join().unwrap();
    let err = err_reader.join().unwrap();
    assert!(status.success(), "exit {status:?}\n{out}\n{err}");
    assert!(out.contains("(interrupted after"), "stdout:\n{out}");
    assert!(err.contains("interrupted"), "stderr:\n{err}");
    assert!(out.trim_end().ends_with('2'), "stdout:\n{out}");
}
