//! What `gph run --eventlog/--trace/--profile` writes (docs/observe.md),
//! checked by the tools people open it with:
//!
//! * the eventlog is read by ghc-events, the library ThreadScope reads
//!   with, through a small reader (tests/eventlog/ReadLog.hs) built here
//!   with GHC; its events per capability agree with `--stats-json`;
//! * the trace is well-formed JSON of the expected structure;
//! * the profile renders in headless Chromium to a picture that is not
//!   blank;
//! * a run killed half way leaves files the readers accept;
//! * a file that cannot be written is a clear error.
//!
//! GHC, ghc-events and Chromium come from Debian; when they are missing
//! the setup installs them with apt-get (as root), and if that fails the
//! test that needs them says so and passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

mod common;

use common::{apt_install, works};

const GPH: &str = env!("CARGO_BIN_EXE_gph");

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("observe");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn succeeds(args: &[&str]) {
    let out = common::gph(args, None);
    assert_eq!(out.status, Some(0), "gph {args:?}: {}", out.stderr);
}

/// The eventlog reader, built once; None (and why) if it cannot be.
fn reader() -> Result<&'static Path, &'static str> {
    static READER: OnceLock<Result<PathBuf, &'static str>> = OnceLock::new();
    READER
        .get_or_init(|| {
            let have = || works("ghc-pkg", &["field", "ghc-events", "name"]);
            let installed = have() || (apt_install(&["ghc", "libghc-ghc-events-dev"]) && have());
            if !installed {
                return Err(
                    "GHC with ghc-events is not installed and apt-get could not install it",
                );
            }
            let exe = tmp("readlog");
            let build = tmp("readlog-build");
            let ok = Command::new("ghc")
                .args(["-O0", "-v0", "-outputdir"])
                .arg(&build)
                .arg("-o")
                .arg(&exe)
                .arg(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/eventlog/ReadLog.hs"
                ))
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                Ok(exe)
            } else {
                Err("tests/eventlog/ReadLog.hs does not build against ghc-events")
            }
        })
        .as_ref()
        .map(PathBuf::as_path)
        .map_err(|e| *e)
}

/// What the reader says of a log: (capability, what) -> number, and its
/// last line (complete, or why not).
fn read_log(reader: &Path, log: &Path) -> (BTreeMap<(String, String), String>, String) {
    let out = Command::new(reader).arg(log).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "ghc-events cannot read {}: {}{text}",
        log.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut counts = BTreeMap::new();
    let mut last = String::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["cap", cap, what, n] => {
                counts.insert((cap.to_string(), what.to_string()), n.to_string());
            }
            _ => last = line.to_string(),
        }
    }
    (counts, last)
}

/// The events of `what` (an exact name, or a prefix ending in '/') on
/// capability `cap`.
fn count(counts: &BTreeMap<(String, String), String>, cap: usize, what: &str) -> u64 {
    counts
        .iter()
        .filter(|((c, w), _)| {
            *c == cap.to_string()
                && if what.ends_with('/') {
                    w.starts_with(what)
                } else {
                    w == what
                }
        })
        .map(|(_, n)| n.parse::<u64>().unwrap_or(0))
        .sum()
}

/// Runs `program` with `flags` writing an eventlog and the statistics,
/// and checks that both tell the same, capability by capability.
fn eventlog_agrees_with_stats(name: &str, program: &str, flags: &[&str], args: &[&str]) {
    eventlog_agrees_with_stats_run(name, program, flags, args, &succeeds)
}

/// The same, each run by `run` (`gph` with these arguments).
fn eventlog_agrees_with_stats_run(
    name: &str,
    program: &str,
    flags: &[&str],
    args: &[&str],
    run: &dyn Fn(&[&str]),
) {
    let reader = match reader() {
        Ok(r) => r,
        Err(why) => {
            eprintln!("SKIPPED: {why}");
            return;
        }
    };
    let log = tmp(&format!("{name}.eventlog"));
    let json = tmp(&format!("{name}.stats.json"));
    let mut cmd = vec!["run", program];
    cmd.extend_from_slice(flags);
    let (log_s, json_s) = (log.to_str().unwrap(), json.to_str().unwrap());
    cmd.extend_from_slice(&["--eventlog", log_s, "--stats-json", json_s, "--"]);
    cmd.extend_from_slice(args);
    run(&cmd);
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let (counts, last) = read_log(reader, &log);
    assert_eq!(last, "complete", "{name}");
    let per_pe = stats["per_pe"].as_array().unwrap();
    let mut messages = 0;
    for (pe, s) in per_pe.iter().enumerate() {
        let stat = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("no {k} in {s}"));
        let n = |what: &str| count(&counts, pe, what);
        let at = format!("{name}, PE {pe}");
        // The events in the log, the statistic they make.
        let agree = [
            (n("CreateThread"), "threads"),
            (n("SparkCreate"), "sparks_created"),
            (n("SparkRun") + n("SparkSteal"), "sparks_converted"),
            (n("SparkSteal"), "sparks_imported"),
            (n("SparkFizzle") + n("SparkGC"), "sparks_fizzled"),
            (n("SparkOverflow"), "sparks_overflowed"),
            (n("EndGC"), "gcs"),
            (
                n("StopThread/BlockedOnBlackHoleOwnedBy") + n("StopThread/BlockedOnMsgGlobalise"),
                "blocked",
            ),
            (n("SendMessage/"), "messages_sent"),
            (n("CreateProcess"), "processes"),
            // SCHEDULE (kind 1) carries a spark away.
            (n("SendMessage/1"), "sparks_exported"),
        ];
        for (events, key) in agree {
            assert_eq!(events, stat(key), "{at}: {key}");
        }
        assert_eq!(n("overlaps"), 0, "{at}: runs and collections overlap");
        assert_eq!(
            counts
                .get(&(pe.to_string(), "in-order".into()))
                .map(String::as_str),
            Some("True"),
            "{at}: events out of time order"
        );
        messages += n("SendMessage/");
    }
    let by_kind: u64 = stats["messages"]
        .as_object()
        .unwrap()
        .values()
        .map(|k| k["count"].as_u64().unwrap())
        .sum();
    assert_eq!(messages, by_kind, "{name}: messages in all");
    if per_pe.len() > 1 {
        assert!(messages > 0, "{name}: a parallel run sends messages");
    }
}

#[test]
fn eventlog_agrees_with_stats_on_the_sim_engine() {
    eventlog_agrees_with_stats(
        "sim4",
        "programs/sumEuler.gph",
        &["--engine", "sim", "--pes", "4", "--seed", "3"],
        &["1", "1200", "40"],
    );
}

#[test]
fn eventlog_agrees_with_stats_on_threads() {
    eventlog_agrees_with_stats(
        "threads3",
        "programs/sumEuler.gph",
        &["--pes", "3"],
        &["1", "1200", "40"],
    );
}

/// Eden's processes (CREATE_PROCESS) and channel messages.
#[test]
fn eventlog_agrees_with_stats_for_eden() {
    eventlog_agrees_with_stats(
        "eden3",
        "tests/programs/par_eden_farm.gph",
        &["--engine", "sim", "--pes", "3"],
        &[],
    );
}

/// On MPI ranks every rank's events reach rank 0's eventlog, in order on
/// one clock, and agree with the statistics gathered there.
#[test]
fn eventlog_agrees_with_stats_on_mpi_ranks() {
    let Some(gph) = common::mpi::mpi_gph() else {
        return;
    };
    let on_ranks = |args: &[&str]| {
        let out = common::mpi::mpirun(gph, 3, args, b"");
        assert_eq!(out.status, Some(0), "mpirun gph {args:?}: {}", out.stderr);
    };
    for (name, program, args) in [
        ("mpi3", "programs/sumEuler.gph", &["1", "1200", "40"][..]),
        ("mpi3eden", "tests/programs/par_eden_farm.gph", &[]),
    ] {
        eventlog_agrees_with_stats_run(name, program, &["--engine", "mpi"], args, &on_ranks);
    }
}

#[test]
fn eventlog_of_one_pe() {
    eventlog_agrees_with_stats("one", "programs/nfib.gph", &["--pes", "1"], &["18", "10"]);
}

type Json = serde_json::Value;

fn load_trace(path: &Path) -> Vec<Json> {
    let text = std::fs::read_to_string(path).unwrap();
    let v: Json = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    v.as_array().expect("a JSON array of events").clone()
}

/// raytracer 40 30 on the simulated hetero8 grid, writing `file` as `flag`
/// asks.
fn raytracer_on_hetero8(flag: &str, file: &std::path::Path) {
    succeeds(&[
        "run",
        "programs/raytracer.gph",
        "--engine",
        "sim",
        "--grid",
        "programs/grids/hetero8.toml",
        flag,
        file.to_str().unwrap(),
        "--",
        "40",
        "30",
    ]);
}

#[test]
fn trace_is_well_formed() {
    let path = tmp("trace.json");
    raytracer_on_hetero8("--trace", &path);
    let events = load_trace(&path);
    let ph = |e: &Json| e["ph"].as_str().unwrap_or("").to_string();
    // A named process per PE, with its cluster.
    let names: Vec<&str> = events
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 8, "{names:?}");
    assert_eq!(names[0], "PE 0 (fast, speed 1.00)");
    assert!(names[7].starts_with("PE 7 (slow"), "{names:?}");
    // Every event has a known phase and its fields; slices are not
    // negative; every thread track has a name.
    let mut tracks = std::collections::BTreeSet::new();
    let mut named = std::collections::BTreeSet::new();
    for e in &events {
        let p = ph(e);
        assert!(["M", "X", "C", "s", "f"].contains(&p.as_str()), "{e}");
        assert!(e["pid"].as_u64().is_some_and(|p| p < 8), "{e}");
        if p != "M" {
            assert!(e["ts"].as_f64().is_some_and(|t| t >= 0.0), "{e}");
        }
        if p == "X" {
            assert!(e["dur"].as_f64().is_some_and(|d| d >= 0.0), "{e}");
            tracks.insert((e["pid"].as_u64(), e["tid"].as_u64()));
        }
        if e["name"] == "thread_name" {
            named.insert((e["pid"].as_u64(), e["tid"].as_u64()));
        }
    }
    assert!(tracks.is_subset(&named), "unnamed tracks");
    let slices = |name: &str| {
        events
            .iter()
            .filter(|e| ph(e) == "X" && e["name"].as_str().unwrap().starts_with(name))
            .count()
    };
    assert!(slices("running") > 0);
    assert!(slices("GC") > 0);
    assert!(slices("send ") > 0 && slices("receive ") > 0);
    // Every arrow starts at one sending and ends at one receipt.
    let ids = |p: &str| {
        let mut v: Vec<u64> = events
            .iter()
            .filter(|e| ph(e) == p)
            .map(|e| e["id"].as_u64().unwrap())
            .collect();
        v.sort();
        v
    };
    let (starts, ends) = (ids("s"), ids("f"));
    assert!(!starts.is_empty());
    assert!(
        starts.windows(2).all(|w| w[0] != w[1]),
        "an arrow starts twice"
    );
    assert!(
        ends.iter().all(|f| starts.binary_search(f).is_ok()),
        "an arrow from nowhere"
    );
    assert_eq!(starts.len(), slices("send "));
    // Counters of threads and sparks.
    for c in ["threads", "spark pool"] {
        assert!(events.iter().any(|e| ph(e) == "C" && e["name"] == c), "{c}");
    }
}

/// A run killed half way (SIGKILL: nothing is flushed at the end) leaves
/// an eventlog ghc-events reads and a trace that is JSON once closed.
#[test]
fn a_killed_run_leaves_readable_files() {
    let (log, trace) = (tmp("killed.eventlog"), tmp("killed.json"));
    let mut child = Command::new(GPH)
        .args(["run", "programs/nfib.gph", "--engine", "sim", "--pes", "4"])
        .arg("--eventlog")
        .arg(&log)
        .arg("--trace")
        .arg(&trace)
        .args(["--", "45", "12"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for a few blocks to be written.
    let start = std::time::Instant::now();
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    while (size(&log) < 300_000 || size(&trace) < 300_000)
        && start.elapsed() < std::time::Duration::from_secs(60)
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(!text.trim_end().ends_with(']'), "the run was not killed");
    let closed: Json = serde_json::from_str(&format!("{text}\n]"))
        .unwrap_or_else(|e| panic!("the trace of a killed run, closed, is not JSON: {e}"));
    assert!(closed.as_array().unwrap().len() > 100);
    match reader() {
        Ok(r) => {
            let (counts, _) = read_log(r, &log);
            assert!(count(&counts, 0, "RunThread") > 0, "{counts:?}");
            assert!(count(&counts, 1, "SparkSteal") > 0, "{counts:?}");
        }
        Err(why) => eprintln!("SKIPPED (eventlog): {why}"),
    }
}

#[test]
fn unwritable_files_are_clear_errors() {
    for flag in ["--eventlog", "--trace", "--profile"] {
        let out = common::gph(
            &["run", "programs/nfib.gph", flag, "/nonexistent-dir/out"],
            None,
        );
        let err = &out.stderr;
        assert_eq!(out.status, Some(1), "{flag}: {err}");
        assert!(
            err.starts_with("gph: cannot write /nonexistent-dir/out: "),
            "{flag}: {err}"
        );
        assert!(!err.contains("panicked") && !err.contains("internal error"));
        assert!(out.stdout.is_empty(), "{flag}: the program ran");
    }
}

/// The pixels of a PNG (8-bit RGB or RGBA, not interlaced): width,
/// height, and the RGB of each pixel.
fn decode_png(bytes: &[u8]) -> (usize, usize, Vec<[u8; 3]>) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut pos, mut idat) = (8, Vec::new());
    let (mut w, mut h, mut channels) = (0, 0, 0);
    while pos + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        let kind = &bytes[pos + 4..pos + 8];
        let data = &bytes[pos + 8..pos + 8 + len];
        match kind {
            b"IHDR" => {
                w = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                h = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!(data[8], 8, "bit depth");
                assert_eq!(data[12], 0, "interlaced");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    c => panic!("colour type {c}"),
                };
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        pos += 12 + len;
    }
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&idat).expect("zlib data");
    let stride = w * channels;
    let mut prev = vec![0u8; stride];
    let mut pixels = Vec::with_capacity(w * h);
    for y in 0..h {
        let row = &raw[y * (stride + 1)..(y + 1) * (stride + 1)];
        let (filter, src) = (row[0], &row[1..]);
        let mut cur = vec![0u8; stride];
        for i in 0..stride {
            let a = if i >= channels { cur[i - channels] } else { 0 };
            let b = prev[i];
            let c = if i >= channels { prev[i - channels] } else { 0 };
            let pred = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((a as u16 + b as u16) / 2) as u8,
                4 => {
                    let p = a as i16 + b as i16 - c as i16;
                    let (pa, pb, pc) = (
                        (p - a as i16).abs(),
                        (p - b as i16).abs(),
                        (p - c as i16).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("filter {f}"),
            };
            cur[i] = src[i].wrapping_add(pred);
        }
        pixels.extend(cur.chunks(channels).map(|p| [p[0], p[1], p[2]]));
        prev = cur;
    }
    (w, h, pixels)
}

fn chromium() -> Option<&'static str> {
    let find = || {
        ["chromium", "chromium-browser", "google-chrome"]
            .into_iter()
            .find(|c| works(c, &["--version"]))
    };
    find().or_else(|| apt_install(&["chromium"]).then(find).flatten())
}

#[test]
fn profile_renders_in_chromium() {
    let svg = tmp("profile.svg");
    raytracer_on_hetero8("--profile", &svg);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg ") && text.ends_with("</svg>\n"));
    assert!(text.contains("raytracer 40 30"), "the title");
    assert!(text.contains("grid hetero8"), "the grid in the title");
    assert!(text.contains("PE 7 (slow"), "a line per PE");
    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED (rendering): Chromium is not installed and apt-get could not install it"
        );
        return;
    };
    let png = tmp("profile.png");
    let _ = std::fs::remove_file(&png);
    let ok = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1100,520",
        ])
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", svg.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok && png.exists(), "{browser} made no screenshot");
    let (w, h, pixels) = decode_png(&std::fs::read(&png).unwrap());
    assert!(w >= 1000 && h >= 400, "{w}x{h}");
    let white = pixels.iter().filter(|p| **p == [255, 255, 255]).count();
    let ink = pixels.len() - white;
    assert!(
        ink * 100 > pixels.len(),
        "the screenshot is (nearly) blank: {ink} pixels"
    );
    // The running green (#2e7d32) is there, give or take colour handling.
    let green = pixels
        .iter()
        .filter(|p| p[1] as i32 > p[0] as i32 + 40 && p[1] as i32 > p[2] as i32 + 40)
        .count();
    assert!(
        green > 1000,
        "no running threads drawn: {green} green pixels"
    );
}
