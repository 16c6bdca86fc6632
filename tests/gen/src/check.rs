//! Running programs under the GHC oracle and under gph, and classifying
//! the differences.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Outcome {
    /// None: killed by the time-out (or a signal).
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub secs: f64,
}

/// Runs a command in its own process group, killing the group after `limit`.
pub fn run(cmd: &mut Command, limit: Duration) -> Outcome {
    use std::os::unix::process::CommandExt;
    let start = Instant::now();
    let mut child = match cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                status: None,
                stdout: String::new(),
                stderr: format!("cannot run {cmd:?}: {e}"),
                timed_out: false,
                secs: 0.0,
            }
        }
    };
    let read = |p: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut p) = p {
                // at most 1 MB is kept; the rest is read and dropped
                let mut buf = [0u8; 65536];
                while let Ok(n) = p.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if v.len() < 1 << 20 {
                        v.extend_from_slice(&buf[..n]);
                    }
                }
            }
            v
        })
    };
    let o = read(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let e = read(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let mut timed_out = false;
    let status = loop {
        if let Ok(Some(s)) = child.try_wait() {
            break s.code();
        }
        if start.elapsed() > limit {
            timed_out = true;
            // the whole group: the oracle's script starts GHC
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Outcome {
        status,
        stdout: String::from_utf8_lossy(&o.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&e.join().unwrap_or_default()).into_owned(),
        timed_out,
        secs: start.elapsed().as_secs_f64(),
    }
}

/// `gph ARGS...` under a 4 GB address-space limit: a compiler that loops
/// while allocating must not take the machine's memory from other jobs.
pub fn gph_command(gph: &Path) -> Command {
    let mut c = Command::new("sh");
    c.args(["-c", "ulimit -v 4000000; exec \"$0\" \"$@\""])
        .arg(gph);
    c
}

/// A configuration of `gph run`.
#[derive(Clone, Debug)]
pub struct Config {
    pub name: &'static str,
    pub flags: Vec<&'static str>,
}

pub fn configs(with_o0: bool) -> Vec<Config> {
    // One PE with Core Lint after every pass (release builds skip it): a
    // deforestation bug that duplicated binders ran right in release and
    // was seen only by the debug test suite. A gph that knows -O0 knows
    // --lint.
    let mut v = vec![Config {
        name: "pes1",
        flags: if with_o0 {
            vec!["--pes", "1", "--lint"]
        } else {
            vec!["--pes", "1"]
        },
    }];
    if with_o0 {
        v.push(Config {
            name: "O0",
            flags: vec!["-O0", "--pes", "1"],
        });
    }
    v.push(Config {
        name: "sim7",
        flags: vec!["--engine", "sim", "--pes", "7"],
    });
    v.push(Config {
        name: "threads4",
        flags: vec!["--pes", "4"],
    });
    v
}

/// Does this gph know `-O0`?
pub fn supports_o0(gph: &Path) -> bool {
    let out = run(
        Command::new(gph).args(["run", "--help"]),
        Duration::from_secs(30),
    );
    out.stdout.contains("-O0") || out.stdout.contains("-O <")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Failure {
    /// gph's `check` rejects a program GHC accepts.
    Rejected,
    /// gph ran past the time limit (compiler or machine).
    Timeout,
    Panic,
    InternalError,
    ExitStatus,
    Mismatch,
}

impl Failure {
    pub fn name(self) -> &'static str {
        match self {
            Failure::Rejected => "rejected",
            Failure::Timeout => "timeout",
            Failure::Panic => "panic",
            Failure::InternalError => "internal error",
            Failure::ExitStatus => "exit status",
            Failure::Mismatch => "output mismatch",
        }
    }
}

pub struct Expected {
    pub stdout: String,
    pub status: i32,
}

pub enum OracleResult {
    Ok(Expected),
    /// GHC rejected the program: a generator bug.
    Rejected(String),
    /// Compilation or the run took too long, or the output is too big: discarded.
    TooSlow(String),
}

pub const ORACLE_LIMIT: Duration = Duration::from_secs(600);
pub const GPH_LIMIT: Duration = Duration::from_secs(20);

pub fn oracle(oracle: &Path, file: &Path) -> OracleResult {
    let out = run(Command::new(oracle).arg(file), ORACLE_LIMIT);
    match out.status {
        None => OracleResult::TooSlow(format!("oracle timed out after {:.0}s", out.secs)),
        Some(2) => OracleResult::Rejected(out.stderr),
        Some(s) if s == 0 || s == 1 => {
            if out.stdout.len() > 64 * 1024 {
                OracleResult::TooSlow(format!("{} bytes of output", out.stdout.len()))
            } else {
                OracleResult::Ok(Expected {
                    stdout: out.stdout,
                    status: s,
                })
            }
        }
        Some(s) => OracleResult::TooSlow(format!("oracle exit status {s}: {}", out.stderr)),
    }
}

/// A `ghc` command with the gph-only modules the oracle gives GHC (its
/// `../ghc-shim`) on the search path.
pub fn ghc(oracle: &Path) -> Command {
    let shim = oracle
        .parent()
        .map(|d| d.join("../ghc-shim"))
        .unwrap_or_default();
    let mut c = Command::new("ghc");
    c.arg(format!("-i{}", shim.display()));
    c
}

/// The program as `scratch/Main.hs`, for GHC.
fn main_hs(file: &Path, scratch: &Path) -> Option<PathBuf> {
    let _ = std::fs::create_dir_all(scratch);
    let main = scratch.join("Main.hs");
    std::fs::copy(file, &main).ok().map(|_| main)
}

/// Does GHC type-check the program? (`ghc -fno-code`, with the oracle's
/// shim modules: a second, not a compilation.) Used while shrinking.
pub fn ghc_typechecks(oracle: &Path, file: &Path, scratch: &Path) -> bool {
    let Some(main) = main_hs(file, scratch) else {
        return false;
    };
    let out = run(
        ghc(oracle)
            .arg("-fno-code")
            .arg("-outputdir")
            .arg(scratch.join("o"))
            .arg(&main),
        Duration::from_secs(120),
    );
    out.status == Some(0)
}

/// What the program does compiled by GHC *without* optimisation (the
/// oracle compiles with -O1). Where the two differ, the output depends on
/// GHC's optimiser, not on Haskell: GHC 9.0 folds `0.0 * x` to `0.0` and
/// `0.0 + x` to `x` at -O1, which IEEE arithmetic (GHC -O0, GHCi, gph)
/// does not (`product [0, 0.1, -9]` is `-0.0`; found at seed 1002720).
pub fn ghc_unoptimised(oracle: &Path, file: &Path, scratch: &Path) -> Option<Expected> {
    let main = main_hs(file, scratch)?;
    let prog = scratch.join("prog");
    let built = run(
        ghc(oracle)
            .args(["-O0", "-threaded", "-outputdir"])
            .arg(scratch.join("o"))
            .arg("-o")
            .arg(&prog)
            .arg(&main),
        ORACLE_LIMIT,
    );
    if built.status != Some(0) {
        return None;
    }
    let out = run(&mut Command::new(&prog), Duration::from_secs(60));
    match out.status {
        Some(s @ (0 | 1)) => Some(Expected {
            stdout: out.stdout,
            status: s,
        }),
        _ => None,
    }
}

/// Runs gph in one configuration and says what went wrong, if anything.
pub fn gph_run(gph: &Path, cfg: &Config, file: &Path, exp: &Expected) -> Option<(Failure, String)> {
    let mut cmd = gph_command(gph);
    cmd.arg("run").args(&cfg.flags).arg(file);
    let out = run(&mut cmd, GPH_LIMIT);
    classify(&out, exp)
}

pub fn classify(out: &Outcome, exp: &Expected) -> Option<(Failure, String)> {
    let tail = |s: &str| {
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(8)..].join("\n")
    };
    if out.timed_out {
        return Some((Failure::Timeout, format!("killed after {:.0}s", out.secs)));
    }
    if out.stderr.contains("panicked") {
        return Some((Failure::Panic, tail(&out.stderr)));
    }
    if out.stderr.to_lowercase().contains("internal error") {
        return Some((Failure::InternalError, tail(&out.stderr)));
    }
    if out.status != Some(exp.status) {
        return Some((
            Failure::ExitStatus,
            format!(
                "exit {:?}, expected {}: {}",
                out.status,
                exp.status,
                tail(&out.stderr)
            ),
        ));
    }
    if out.stdout != exp.stdout {
        return Some((
            Failure::Mismatch,
            first_difference(&exp.stdout, &out.stdout),
        ));
    }
    None
}

fn first_difference(exp: &str, got: &str) -> String {
    let e: Vec<&str> = exp.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    for i in 0..e.len().max(g.len()) {
        if e.get(i) != g.get(i) {
            return format!(
                "line {}: expected {:?}, got {:?}",
                i + 1,
                e.get(i).unwrap_or(&"<end>"),
                g.get(i).unwrap_or(&"<end>")
            );
        }
    }
    "a difference in the final newline".into()
}

/// `gph check FILE` must accept what GHC accepts.
pub fn gph_check(gph: &Path, file: &Path) -> Option<(Failure, String)> {
    let out = run(gph_command(gph).arg("check").arg(file), GPH_LIMIT);
    if out.timed_out {
        return Some((Failure::Timeout, "gph check timed out".into()));
    }
    if out.stderr.contains("panicked") {
        return Some((Failure::Panic, out.stderr));
    }
    if out.stderr.to_lowercase().contains("internal error") {
        return Some((Failure::InternalError, out.stderr));
    }
    if out.status != Some(0) {
        let lines: Vec<&str> = out.stderr.lines().take(12).collect();
        return Some((Failure::Rejected, lines.join("\n")));
    }
    None
}

/// The first failure of a program in the configurations, in order: the
/// front end, then each `gph run` configuration.
pub fn check_gph(
    gph: &Path,
    cfgs: &[Config],
    file: &Path,
    exp: &Expected,
) -> Option<(Failure, String, String)> {
    if let Some((f, d)) = gph_check(gph, file) {
        return Some((f, "check".into(), d));
    }
    for c in cfgs {
        if let Some((f, d)) = gph_run(gph, c, file, exp) {
            return Some((f, c.name.to_string(), d));
        }
    }
    None
}

/// Finds `gph`: beside this binary (same target directory), else on PATH.
pub fn default_gph() -> PathBuf {
    if let Ok(me) = std::env::current_exe() {
        if let Some(dir) = me.parent() {
            let p = dir.join("gph");
            if p.exists() {
                return p;
            }
        }
    }
    PathBuf::from("gph")
}

/// The oracle: $ORACLE, else ../shared/tools/oracle beside the repository.
pub fn default_oracle() -> PathBuf {
    if let Some(p) = std::env::var_os("ORACLE") {
        return PathBuf::from(p);
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let p = repo.join("../shared/tools/oracle");
    if p.exists() {
        return p;
    }
    PathBuf::from("/work/shared/tools/oracle")
}

/// What must stay the same while a failure is shrunk: for a rejection, a
/// panic or an internal error, its message without file names, positions
/// and numbers; for the other kinds, nothing more than the kind.
pub fn signature(f: Failure, detail: &str) -> String {
    if !matches!(
        f,
        Failure::Rejected | Failure::Panic | Failure::InternalError
    ) {
        return String::new();
    }
    let line = detail
        .lines()
        .map(str::trim)
        .find(|l| {
            let l = l.to_lowercase();
            l.contains("error") || l.contains("panicked") || l.starts_with('\u{d7}')
        })
        .unwrap_or("");
    let line = match line.rfind(".gph:") {
        Some(i) => &line[i + 5..],
        None => line,
    };
    let mut out = String::new();
    let mut digits = false;
    for c in line.chars() {
        if c.is_ascii_digit() {
            if !digits {
                out.push('N');
            }
            digits = true;
        } else {
            digits = false;
            out.push(c);
        }
    }
    out
}
