//! Helpers shared by the golden tests: running the binary with a time-out,
//! finding test programs, reading error locations.
#![allow(dead_code)]

pub mod mpi;

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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gph"));
    cmd.args(args).envs(env.iter().copied());
    run_command(cmd, stdin)
}

/// Starts `cmd` with its standard input, output and error piped.
pub fn spawn_piped(cmd: &mut Command) -> std::process::Child {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command runs")
}

/// Runs `cmd` (from the project root unless it names a folder), feeding
/// `stdin`, killing it after `TIMEOUT`.
pub fn run_command(mut cmd: Command, stdin: Option<&[u8]>) -> Output {
    if cmd.get_current_dir().is_none() {
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    }
    let mut child = spawn_piped(&mut cmd);
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
    log_time(&cmd, start.elapsed());
    Output {
        status,
        stdout: String::from_utf8_lossy(&o.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&e.join().unwrap_or_default()).into_owned(),
    }
}

/// With `GPH_TEST_TIMES=FILE`, each command's seconds and words are
/// appended to FILE: how to find the runs that come near `TIMEOUT` on a
/// slow machine (a debug build's REPL session once did, on CI).
fn log_time(cmd: &Command, took: Duration) {
    let Some(file) = std::env::var_os("GPH_TEST_TIMES") else {
        return;
    };
    let words: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
    {
        // One write a line: tests run in parallel and append to one file.
        let line = format!("{:8.2} {}\n", took.as_secs_f64(), words.join(" "));
        let _ = f.write_all(line.as_bytes());
    }
}

/// Whether `cmd args` runs and succeeds.
pub fn works(cmd: &str, args: &[&str]) -> bool {
    Command::new(cmd)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Installs Debian packages if we may (as root, with apt-get), reading
/// the package lists first if they are not there yet.
pub fn apt_install(packages: &[&str]) -> bool {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root || !works("apt-get", &["--version"]) {
        return false;
    }
    let mut args = vec!["install", "-y", "-q", "--no-install-recommends"];
    args.extend_from_slice(packages);
    works("apt-get", &args) || (works("apt-get", &["update", "-q"]) && works("apt-get", &args))
}

/// The programs of a directory (relative to the project root), sorted:
/// its `.gph` and literate `.lhs` files, and for a program of several
/// modules, the `Main.gph`, `Main.hs` or `Main.lhs` of a sub-folder (its
/// other modules beside it, its expectations `Main.stdout` ...).
pub fn programs_in(dir: &str) -> Vec<PathBuf> {
    // Relative to the root, as a user would type them: paths appear in messages.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let is_program = |p: &Path| p.extension().is_some_and(|e| e == "gph" || e == "lhs");
    let mut v: Vec<PathBuf> = Vec::new();
    for e in std::fs::read_dir(root.join(dir))
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = Path::new(dir).join(e.file_name());
        if root.join(&p).is_dir() {
            let main = ["Main.gph", "Main.hs", "Main.lhs"]
                .iter()
                .map(|m| p.join(m))
                .find(|m| root.join(m).is_file());
            v.extend(main);
        } else if is_program(&p) {
            v.push(p);
        }
    }
    v.sort();
    v
}

/// Calls `f` on each item, two at a time, and gathers the failures it reports.
pub fn two_at_a_time<T: Sync>(items: &[T], f: impl Fn(&T) -> Vec<String> + Sync) -> Vec<String> {
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let found = f(item);
                failures.lock().unwrap().extend(found);
            });
        }
    });
    failures.into_inner().unwrap()
}

/// A golden program and what the oracle says it does: NAME.flags (its own
/// `gph run` flags, such as a heap limit), NAME.args, NAME.stdin,
/// NAME.stdout and NAME.exitcode beside NAME.gph, each optional.
pub struct Golden {
    pub file: PathBuf,
    pub flags: Vec<String>,
    pub args: Vec<String>,
    pub stdin: Vec<u8>,
    pub stdout: String,
    pub exit: i32,
    /// Whether the program may make parallel work: its text (or that of
    /// its modules) names `par...`, `rpar`, `using`, Control.Parallel,
    /// Eden, `process`, `spawn` or `#`. Generous on purpose: a word that
    /// only looks parallel (`parse`) costs more runs, never fewer.
    pub parallel: bool,
}

/// The words of [`Golden::parallel`].
fn may_be_parallel(text: &str) -> bool {
    let word_start = |i: usize| {
        i == 0 || !text.as_bytes()[i - 1].is_ascii_alphanumeric() && text.as_bytes()[i - 1] != b'_'
    };
    let starts = |w: &str| text.match_indices(w).any(|(i, _)| word_start(i));
    [
        "par",
        "rpar",
        "using",
        "process",
        "spawn",
        "Eden",
        "Control.Parallel",
    ]
    .iter()
    .any(|w| starts(w))
        || text.contains(" # ")
}

impl Golden {
    /// `file` relative to the project root, as `programs_in` gives it.
    pub fn read(file: &Path) -> Golden {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let read = |ext: &str| std::fs::read(path.with_extension(ext)).ok();
        let text = |ext: &str| read(ext).map(|b| String::from_utf8_lossy(&b).into_owned());
        let words = |ext: &str| {
            text(ext)
                .map(|a| a.split_whitespace().map(String::from).collect())
                .unwrap_or_default()
        };
        // A program of several modules is its folder's files.
        let sources: Vec<PathBuf> = if path.file_stem().is_some_and(|s| s == "Main") {
            std::fs::read_dir(path.parent().unwrap())
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.extension()
                        .is_some_and(|e| e == "gph" || e == "hs" || e == "lhs")
                })
                .collect()
        } else {
            vec![path.clone()]
        };
        let parallel = sources
            .iter()
            .any(|p| may_be_parallel(&std::fs::read_to_string(p).unwrap_or_default()));
        Golden {
            parallel,
            file: file.to_path_buf(),
            flags: words("flags"),
            args: words("args"),
            stdin: read("stdin").unwrap_or_default(),
            stdout: text("stdout").unwrap_or_default(),
            exit: text("exitcode")
                .and_then(|c| c.trim().parse().ok())
                .unwrap_or(0),
        }
    }
}

/// Runs each program as `gph run EXTRA FLAGS FILE -- ARGS`, two at a time:
/// what differs from the oracle (exit status, stdout) or panics, one message
/// a program. Under `-O0` a program's `--heap-limit` is left out: it is what
/// the optimiser promises (as GHC -O1 does); the straightest translation
/// promises the output.
pub fn run_golden(cases: &[Golden], extra: &[&str]) -> Vec<String> {
    let unoptimised = extra.contains(&"-O0");
    two_at_a_time(cases, |c| {
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        let mut flags = c.flags.iter().map(String::as_str);
        while let Some(f) = flags.next() {
            if unoptimised && f == "--heap-limit" {
                flags.next();
            } else {
                args.push(f);
            }
        }
        args.push(c.file.to_str().unwrap());
        args.push("--");
        args.extend(c.args.iter().map(String::as_str));
        let out = gph_with(&args, Some(&c.stdin), &[]);
        let mut problems = Vec::new();
        if out.status != Some(c.exit) {
            problems.push(format!("exit {:?}, expected {}", out.status, c.exit));
        }
        if out.stdout != c.stdout {
            problems.push(format!(
                "stdout differs\n--- expected\n{}\n--- actual\n{}",
                c.stdout, out.stdout
            ));
        }
        if out.stderr.contains("panicked") {
            problems.push("panic".into());
        }
        if problems.is_empty() {
            return vec![];
        }
        vec![format!(
            "{} {}: {}\nstderr: {}",
            c.file.display(),
            extra.join(" "),
            problems.join("; "),
            out.stderr
        )]
    })
}

/// Fails the test with every message, if there are any: "N `kind` programs
/// failed `what`".
pub fn assert_no_failures(failures: Vec<String>, kind: &str, what: &str) {
    assert!(
        failures.is_empty(),
        "{} {kind} programs failed {what}:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
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

/// `wrote F.dot and F.svg` as `wrote F.dot`: whether the REPL's `:graph`
/// could also draw SVG depends on Graphviz being installed, not on gph.
pub fn without_svg(text: &str) -> String {
    text.lines()
        .map(|l| match (l.strip_prefix("wrote "), l.find(".dot")) {
            (Some(_), Some(i)) => &l[..i + 4],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
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
