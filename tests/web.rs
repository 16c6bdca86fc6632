//! The browser playground (web/, docs/web.md), end to end: `web/build.sh`
//! builds the page (installing Debian's Rust for the web and the npm
//! packages it needs), and `web/test/e2e.mjs` drives it in headless
//! Chromium: sumEuler on 1 and 4 simulated PEs prints what `gph run`
//! prints with the same virtual times, the profile appears, a type error is
//! marked in the editor, the stepper's Next advances, Stop interrupts
//! `length [1..]` and the REPL's session survives it. Screenshots go to
//! target/web/ for a reviewer. Where the toolchain or Chromium cannot be
//! installed, the test says so and passes.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Debian's Chromium, installed if it is missing; None if it cannot be.
fn chromium() -> Option<&'static str> {
    let path = "/usr/bin/chromium";
    if !Path::new(path).exists() {
        let _ = Command::new("apt-get").args(["update", "-qq"]).status();
        let _ = Command::new("apt-get")
            .args(["install", "-y", "-qq", "chromium"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status();
    }
    Path::new(path).exists().then_some(path)
}

/// `gph run --engine sim --pes N` of sumEuler 1 2000 100: stdout and the
/// virtual time of `--stats-json`.
fn native(pes: &str, dir: &Path) -> (String, serde_json::Value) {
    let json = dir.join(format!("stats{pes}.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_gph"))
        .args(["run", "--engine", "sim", "--pes", pes, "--stats-json"])
        .arg(&json)
        .args(["programs/sumEuler.gph", "--", "1", "2000", "100"])
        .current_dir(root())
        .output()
        .expect("gph runs");
    assert!(out.status.success(), "gph run failed");
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        stats["virtual_time_s"].clone(),
    )
}

#[test]
fn the_playground_runs_programs_and_the_repl_in_chromium() {
    let build = Command::new(root().join("web/build.sh"))
        .output()
        .expect("web/build.sh starts");
    let log = String::from_utf8_lossy(&build.stderr);
    if !build.status.success() {
        if !Path::new("/usr/bin/wasm-ld-22").exists() || !Path::new("/usr/bin/npm").exists() {
            eprintln!(
                "the web toolchain cannot be installed here: the playground was not tested\n{log}"
            );
            return;
        }
        panic!("web/build.sh failed:\n{log}");
    }
    let Some(chromium) = chromium() else {
        eprintln!("Chromium cannot be installed here: the playground was not tested");
        return;
    };
    let out = root().join("target/web");
    std::fs::create_dir_all(&out).unwrap();
    let (stdout, virtual1) = native("1", &out);
    let (stdout4, virtual4) = native("4", &out);
    assert_eq!(stdout, stdout4);
    let config = serde_json::json!({
        "dist": root().join("web/dist"),
        "chromium": chromium,
        "screenshot": out.join("playground.png"),
        "expect": { "stdout": stdout, "virtual1": virtual1, "virtual4": virtual4 },
    });
    let config_file = out.join("e2e.json");
    std::fs::write(&config_file, config.to_string()).unwrap();
    let e2e = Command::new("node")
        .arg(root().join("web/test/e2e.mjs"))
        .arg(&config_file)
        .current_dir(root().join("web"))
        .output()
        .expect("node runs");
    let measured = String::from_utf8_lossy(&e2e.stdout);
    eprintln!("measured: {measured}");
    assert!(
        e2e.status.success(),
        "the page failed:\n{}",
        String::from_utf8_lossy(&e2e.stderr)
    );
}
