//! Running gph on MPI ranks in tests (tests/mpi.rs, tests/observe.rs):
//! Open MPI installed if need be, gph built with the feature `mpi`.

use super::{apt_install, run_command, works, Output};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const PACKAGES: [&str; 3] = ["openmpi-bin", "libopenmpi-dev", "libclang-dev"];

/// Open MPI and libclang, installed if need be; why not, if they cannot be.
fn install_mpi() -> Result<(), String> {
    let have = || works("mpirun", &["--version"]) && works("mpicc", &["--version"]);
    if have() || (apt_install(&PACKAGES) && have()) {
        Ok(())
    } else {
        Err(format!(
            "no mpirun, and apt-get (as root) could not install {}",
            PACKAGES.join(" ")
        ))
    }
}

/// The gph binary built with MPI, or why there is none (the test then
/// passes, saying so).
pub fn mpi_gph() -> Option<&'static Path> {
    static GPH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let r = GPH.get_or_init(|| {
        install_mpi()?;
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        // Beside the gph under test, in the same target folder and profile:
        // the crates the mpi feature leaves alone are built once for both
        // (a target folder of its own built them all again, minutes on a
        // 2-core machine).
        let plain = Path::new(env!("CARGO_BIN_EXE_gph"));
        let release = plain
            .parent()
            .and_then(|d| d.file_name())
            .is_some_and(|d| d == "release");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "--features", "mpi", "--bin", "gph-mpi"]);
        if release {
            build.arg("--release");
        }
        let out = build
            .current_dir(root)
            .output()
            .map_err(|e| format!("cargo: {e}"))?;
        // MPI is there: a build that fails is a failure, not a skip.
        assert!(
            out.status.success(),
            "cargo build --features mpi failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(plain.with_file_name("gph-mpi"))
    });
    match r {
        Ok(p) => Some(p),
        Err(why) => {
            eprintln!("SKIPPED: the mpi engine is not tested here: {why}");
            None
        }
    }
}

/// `mpirun -np RANKS gph ARGS` (as root and on more ranks than cores,
/// as a test machine needs).
pub fn mpirun(gph: &Path, ranks: usize, args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = Command::new("mpirun");
    cmd.args(["--oversubscribe", "-np", &ranks.to_string()])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .arg(gph)
        .args(args);
    with_own_session_dir(cmd, stdin)
}

/// Runs an mpirun command with a session directory of its own. Open MPI
/// makes `/tmp/ompi.HOST.UID` for every job; two jobs started at once
/// (the tests run in parallel) can race on it and one fails with "A call
/// to mkdir was unable to create the desired directory ... File exists".
pub fn with_own_session_dir(mut cmd: Command, stdin: &[u8]) -> Output {
    let dir = own_session_dir();
    cmd.env("OMPI_MCA_orte_tmpdir_base", &dir);
    let out = run_command(cmd, Some(stdin));
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// A new, empty directory for one mpirun's session files.
pub fn own_session_dir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "gph-ompi-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// stderr without mpirun's own notes (each between lines of dashes).
pub fn without_mpirun_notes(stderr: &str) -> String {
    let mut inside = false;
    let mut ours = String::new();
    for l in stderr.lines() {
        if l.len() > 20 && l.chars().all(|c| c == '-') {
            inside = !inside;
        } else if !inside {
            ours.push_str(l);
            ours.push('\n');
        }
    }
    ours
}

/// Hosts made of network namespaces on this machine (bench/mpi/netns.sh),
/// `n` of them, or why not: they need root and `ip`.
pub fn tcp_hosts(n: usize) -> Result<(), String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/mpi/netns.sh");
    let out = Command::new(&script)
        .args(["up", &n.to_string()])
        .output()
        .map_err(|e| format!("{}: {e}", script.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "cannot make network namespaces: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// `mpirun -np RANKS gph ARGS` over TCP between the namespace hosts
/// (bench/mpi/mpirun-tcp).
pub fn mpirun_tcp(gph: &Path, ranks: usize, args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/mpi/mpirun-tcp"));
    cmd.args(["-np", &ranks.to_string()]).arg(gph).args(args);
    with_own_session_dir(cmd, stdin)
}
