//! Running gph on MPI ranks in tests (tests/mpi.rs, tests/observe.rs):
//! Open MPI installed if need be, gph built with the feature `mpi`.

use super::{run_command, Output};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const PACKAGES: [&str; 3] = ["openmpi-bin", "libopenmpi-dev", "libclang-dev"];

fn has(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd} >/dev/null")])
        .status()
        .is_ok_and(|s| s.success())
}

fn root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"))
}

/// Open MPI and libclang, installed if need be; why not, if they cannot be.
fn install_mpi() -> Result<(), String> {
    if has("mpirun") && has("mpicc") {
        return Ok(());
    }
    if !root() || !has("apt-get") {
        return Err(format!(
            "no mpirun, and no apt-get as root to install {}",
            PACKAGES.join(" ")
        ));
    }
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "-q"])
            .args(PACKAGES)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let updated = || {
        Command::new("apt-get")
            .args(["update", "-q"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if install() || (updated() && install()) {
        Ok(())
    } else {
        Err(format!("apt-get could not install {}", PACKAGES.join(" ")))
    }
}

/// The gph binary built with MPI, or why there is none (the test then
/// passes, saying so).
pub fn mpi_gph() -> Option<&'static Path> {
    static GPH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let r = GPH.get_or_init(|| {
        install_mpi()?;
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let target = root.join("target/mpi");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "--quiet", "--features", "mpi", "--bin", "gph"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(root)
            .output()
            .map_err(|e| format!("cargo: {e}"))?;
        // MPI is there: a build that fails is a failure, not a skip.
        assert!(
            out.status.success(),
            "cargo build --features mpi failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(target.join("debug/gph"))
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
    run_command(cmd, Some(stdin))
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
    run_command(cmd, Some(stdin))
}
