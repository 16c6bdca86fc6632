//! Helpers shared by the golden tests: running the binary with a time-out,
//! finding test programs, reading error locations.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Output {
    /// None when the program was killed by the time-out or a signal.
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `gph ARGS` from the project root, feeding `stdin`, killing it after `TIMEOUT`.
pub fn gph(args: &[&str], stdin: Option<&[u8]>) -> Output {
    gph_with(args, stdin, &[])
}

/// `gph` with extra environment variables.
pub fn gph_with(args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gph"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gph binary runs");
    let input = stdin.unwrap_or_default().to_vec();
    let mut pipe = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out_pipe = child.stdout.take().expect("stdout");
    let err_pipe = child.stderr.take().expect("stderr");
    let read = |mut p: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = p.read_to_end(&mut v);
            v
        })
    };
    let (o, e) = (read(Box::new(out_pipe)), read(Box::new(err_pipe)));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s.code();
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    Output {
        status,
        stdout: String::from_utf8_lossy(&o.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&e.join().unwrap_or_default()).into_owned(),
    }
}

/// The `.gph` files of a directory (relative to the project root), sorted.
pub fn programs_in(dir: &str) -> Vec<PathBuf> {
    // Relative to the root, as a user would type them: paths appear in messages.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|rd| {
            rd.flatten()
                .map(|e| Path::new(dir).join(e.file_name()))
                .filter(|p| p.extension().is_some_and(|e| e == "gph"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Lines named by GHC's `Main.hs:LINE:COL: error:` headers.
pub fn lines_of_ghc_errors(path: &Path) -> Vec<usize> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut v: Vec<usize> = text
        .lines()
        .filter_map(|l| l.strip_prefix("Main.hs:"))
        .filter(|l| l.contains(": error"))
        .filter_map(|l| l.split(':').next()?.parse().ok())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Lines named by gph's `× file:LINE:COL: message` headers.
pub fn lines_of_gph_errors(stderr: &str) -> Vec<usize> {
    let mut v: Vec<usize> = stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("× "))
        .filter_map(|l| {
            let mut parts = l.split(':');
            parts.next()?;
            parts.next()?.parse().ok()
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Compares `actual` with the snapshot file, or writes it when the
/// environment variable UPDATE_SNAPSHOTS is set (review the diff, then commit).
pub fn snapshot(path: &Path, actual: &str) -> Result<(), String> {
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(path, actual)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        return Ok(());
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => Ok(()),
        Ok(expected) => Err(format!(
            "output differs from {} (run with UPDATE_SNAPSHOTS=1 to accept)\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        )),
        Err(_) => Err(format!("missing snapshot {} (run with UPDATE_SNAPSHOTS=1 to create it)\n{actual}", path.display())),
    }
}
