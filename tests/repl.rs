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
    use std::process::Command;
    let home = std::env::temp_dir().join("gph-repl-test-home-ctrl-c");
    let _ = std::fs::create_dir_all(&home);
    let mut child = common::spawn_piped(
        Command::new(env!("CARGO_BIN_EXE_gph"))
            .arg("repl")
            .env("HOME", &home),
    );
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
    assert!(err.contains("Interrupted."), "stderr:\n{err}");
    assert!(out.trim_end().ends_with('2'), "stdout:\n{out}");
}

/// Ctrl-C typed on a real terminal (a pseudo-terminal made by util-linux's
/// `script`, which passes the typed bytes to it): the terminal driver turns
/// it into SIGINT while an evaluation runs. On 1 PE, 2 threads PEs and the
/// simulator, an evaluation and a `:steps` of an infinite list stop with
/// GHCi's `Interrupted.` and the REPL goes on.
#[test]
fn ctrl_c_on_a_terminal_interrupts_like_ghci() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no `script` (util-linux) to make a terminal");
        return;
    }
    for machine in ["--pes 1", "--pes 2", "--engine sim --pes 2"] {
        let cmd = format!("{} repl {machine}", env!("CARGO_BIN_EXE_gph"));
        let mut child = Command::new("script")
            .args(["-qfc", &cmd, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("script runs");
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = stdout.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        });
        let pause = |ms| std::thread::sleep(std::time::Duration::from_millis(ms));
        pause(1000);
        stdin.write_all(b":set steps 100000000\r").unwrap();
        pause(500);
        for input in ["length [1 ..]\r", ":steps length [1 ..]\r"] {
            stdin.write_all(input.as_bytes()).unwrap();
            stdin.flush().unwrap();
            pause(1500);
            stdin.write_all(b"\x03").unwrap();
            stdin.flush().unwrap();
            pause(500);
        }
        stdin.write_all(b"6 * 7\r").unwrap();
        pause(700);
        stdin.write_all(b":quit\r").unwrap();
        pause(700);
        drop(stdin);
        let _ = child.wait();
        let out = reader.join().unwrap();
        assert!(out.contains("Interrupted."), "{machine}:\n{out}");
        assert!(out.contains("(interrupted after"), "{machine}:\n{out}");
        assert!(out.contains("42"), "{machine}:\n{out}");
    }
}
