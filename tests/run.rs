//! Golden tests of the machine, through the real `gph` binary: every program
//! in tests/programs prints exactly what GHC printed for it (the oracle's
//! `.stdout`) and exits with the oracle's status, in every configuration:
//! one PE and several, on real threads and simulated (2, 7 and 16 PEs and a
//! heterogeneous grid), and with the garbage collector forced every few
//! allocations (so a missing GC root is a test failure, not a rare crash).
//! Sequential programs run on 1, 4 (threads) and 7 (simulated) PEs only
//! (`run_parallel` says why).
//! Run-time errors (tests/runtime-errors) give `gph: MESSAGE` and status 1,
//! on one PE and on several. Simulated runs are reproducible.

mod common;

use common::{assert_no_failures, gph_with, programs_in, run_golden, snapshot, Golden};
use std::path::Path;

/// Runs every golden program with the extra `gph run` flags, two at a time;
/// only the one named by `GPH_GOLDEN`, when it is set.
fn run_all(extra: &[&str]) -> Vec<String> {
    run_some(extra, false)
}

/// [`run_all`] in a configuration that only parallel programs need: the
/// sequential ones (`Golden::parallel`, about two thirds of the corpus)
/// already ran on one PE, on 4 threads PEs and on 7 simulated PEs, where
/// the other PEs fish and find nothing; more PEs, other engines and
/// policies change nothing for them. Skipping them halves this file's time
/// (658 s to about 350 on two cores).
fn run_parallel(extra: &[&str]) -> Vec<String> {
    run_some(extra, true)
}

fn run_some(extra: &[&str], parallel_only: bool) -> Vec<String> {
    // The space programs (`space_`, loops of a million elements, some
    // with a long chain of thunks live) are left to the other
    // configurations under GC stress. The whole programs (`prog_`) run:
    // since stress collects after a 32nd of the live heap at most
    // (heap.rs), the 26 of them take 15 s in all (before: up to 120 s each).
    let stress = extra.contains(&"--gc-stress");
    let mut files = programs_in("tests/programs");
    let only = std::env::var("GPH_GOLDEN").ok().filter(|n| !n.is_empty());
    if let Some(name) = &only {
        files.retain(|f| golden_name(f) == *name);
        assert!(
            !files.is_empty(),
            "GPH_GOLDEN={name}: no such program in tests/programs"
        );
    }
    let cases: Vec<Golden> = files
        .iter()
        .filter(|f| {
            let name = f.file_name().unwrap_or_default().to_string_lossy();
            !(stress && name.starts_with("space_"))
        })
        .map(|f| Golden::read(f))
        .filter(|g| !parallel_only || g.parallel)
        .collect();
    if only.is_none() {
        assert!(cases.len() >= 40, "expected the corpus in tests/programs");
    }
    run_golden(&cases, extra)
}

/// A golden program's name for `GPH_GOLDEN=NAME` (tests/README.md): the
/// file's stem, or the folder's name for a program of several modules
/// (`NAME/Main.gph`).
fn golden_name(file: &Path) -> String {
    let stem = file.file_stem().unwrap_or_default();
    let name = if stem == "Main" {
        file.parent().and_then(Path::file_name).unwrap_or(stem)
    } else {
        stem
    };
    name.to_string_lossy().into_owned()
}

fn assert_none(failures: Vec<String>, what: &str) {
    assert_no_failures(failures, "golden", what);
}

#[test]
fn golden_programs_print_what_ghc_prints() {
    assert_none(run_all(&[]), "on one PE");
}

#[test]
fn golden_programs_survive_gc_stress() {
    assert_none(
        run_all(&["--gc-stress", "--pes", "1"]),
        "with a collection every few allocations",
    );
}

/// Collections while global addresses, FetchMes and packed graphs are about.
#[test]
fn golden_programs_survive_gc_stress_on_simulated_pes() {
    assert_none(
        run_parallel(&["--gc-stress", "--engine", "sim", "--pes", "4"]),
        "with a collection every few allocations on 4 simulated PEs",
    );
}

/// `-O0` is the reference the optimiser is compared with: the same output
/// on one PE, on 4 threads PEs and on 7 simulated PEs.
#[test]
fn golden_programs_print_the_same_unoptimised() {
    let mut failures = Vec::new();
    for (pes, run) in [
        (&["--pes", "1"][..], run_all as fn(&[&str]) -> Vec<String>),
        (&["--pes", "4"], run_parallel),
        (&["--engine", "sim", "--pes", "7"], run_parallel),
    ] {
        let mut flags = vec!["-O0"];
        flags.extend_from_slice(pes);
        failures.extend(run(&flags));
    }
    assert_none(failures, "at -O0 on 1, 4 (threads) and 7 simulated PEs");
}

#[test]
fn golden_programs_print_the_same_on_threads() {
    let mut failures = Vec::new();
    // Every program on 4 PEs; on 1 PE the sequential ones already ran
    // (under GC stress and at -O0), so only the parallel ones here. Two
    // PEs: golden_programs_print_what_ghc_prints runs on as many as the
    // machine has cores, two on CI's.
    for n in ["1", "4", "8"] {
        let run = if n == "4" { run_all } else { run_parallel };
        failures.extend(run(&["--pes", n]));
    }
    assert_none(failures, "on 1, 4 and 8 PEs (threads)");
}

#[test]
fn golden_programs_print_the_same_simulated() {
    let mut failures = Vec::new();
    for n in ["2", "7", "16"] {
        let run = if n == "7" { run_all } else { run_parallel };
        failures.extend(run(&["--engine", "sim", "--pes", n]));
    }
    // A grid both heterogeneous and time-varying: the TIGER test-bed of
    // the divisible-load paper with other users' load on two sites
    // (hetero8, the other heterogeneous grid, runs under GUM below).
    failures.extend(run_parallel(&[
        "--engine",
        "sim",
        "--grid",
        "programs/grids/tiger16-loaded.toml",
    ]));
    assert_none(
        failures,
        "on 2, 7 and 16 simulated PEs and the tiger16-loaded grid",
    );
}

/// The golden runs above use the default policy, Grid-GUM2's. GUM's
/// random fishing moves work differently, never the output: on 7
/// identical simulated PEs, on the hetero8 grid and on 4 threads; nor
/// does Grid-GUM2's super-schedule (several sparks at once to the other
/// cluster) on the two-clusters grid.
#[test]
fn golden_programs_print_the_same_under_gum() {
    let mut failures = Vec::new();
    for place in [
        &["--sched", "gum", "--engine", "sim", "--pes", "7"][..],
        &[
            "--sched",
            "gum",
            "--engine",
            "sim",
            "--grid",
            "programs/grids/hetero8.toml",
        ],
        &["--sched", "gum", "--pes", "4"],
        &[
            "--super-schedule",
            "--engine",
            "sim",
            "--grid",
            "programs/grids/two-clusters.toml",
        ],
    ] {
        failures.extend(run_parallel(place));
    }
    assert_none(
        failures,
        "under gum on 7 simulated PEs, hetero8 and 4 threads, and gum2's \
         super-schedule on two-clusters",
    );
}

/// On the threads engine a grid is emulated (slow PEs paced, messages
/// between clusters delayed): the output is still the one-PE output.
#[test]
fn threads_emulate_a_grid_with_the_same_output() {
    let prog = "tests/programs/par_shared_lazy.gph";
    let one = gph_with(&["run", "--pes", "1", prog], None, &[]);
    assert_eq!(one.status, Some(0), "{}", one.stderr);
    for grid in [
        "programs/grids/hetero8.toml",
        "programs/grids/two-clusters.toml",
    ] {
        for sched in ["gum", "gum2"] {
            let out = gph_with(&["run", "--grid", grid, "--sched", sched, prog], None, &[]);
            assert_eq!(out.status, Some(0), "{grid} {sched}: {}", out.stderr);
            assert_eq!(out.stdout, one.stdout, "{grid} {sched}");
        }
    }
}

/// The main thread's last slice takes virtual time too: a program that
/// ends within its first slice took none before.
#[test]
fn a_run_of_one_slice_takes_virtual_time() {
    let (reductions, t) =
        sim_reductions_and_time("tests/programs/expr_operator_precedence.gph", "2");
    // The main PE makes 20 M reductions per second.
    assert!(
        reductions > 0 && t >= reductions as f64 / 20e6,
        "{t} s for {reductions} reductions"
    );
}

#[test]
fn big_integer_arithmetic_takes_virtual_time_by_its_size() {
    // 3000! has 9,131 digits: multiplying it up costs far more than its
    // reductions.
    let dir = std::env::temp_dir().join(format!("gph-big-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("fact.gph");
    std::fs::write(
        &src,
        "main :: IO ()\nmain = print (length (show (product [1 .. 3000 :: Integer])))\n",
    )
    .unwrap();
    let (reductions, t) = sim_reductions_and_time(src.to_str().unwrap(), "1");
    assert!(
        t > 5.0 * reductions as f64 / 20e6,
        "{t} s for {reductions} reductions"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gum2_sends_one_spark_per_fish_between_identical_pes() {
    // Several sparks go only to a fisher of another cluster. A latency
    // measured when the PE got round to a FISH, not when it arrived, once
    // made PEs of one LAN look remote (1 ms against 0.2 ms) and hoard 7
    // sparks each: sumEuler 1 8000 100 on 8 identical PEs 2.51 s virtual
    // against gum's 2.29.
    let v = sim_stats(
        &[
            "--grid",
            "programs/grids/homogeneous8.toml",
            "--sched",
            "gum2",
        ],
        "programs/sumEuler.gph",
        &["1", "4000", "40"],
    );
    for pe in v["per_pe"].as_array().unwrap() {
        let n = |k: &str| pe[k].as_u64().unwrap();
        assert!(
            n("sparks_imported") <= n("fish_sent") - n("fish_failed"),
            "PE {}: {} sparks for {} fish, {} failed",
            pe["pe"],
            n("sparks_imported"),
            n("fish_sent"),
            n("fish_failed")
        );
    }
}

#[test]
fn a_spark_is_made_before_the_work_that_follows_it() {
    // `let a = ..; b = .. in a `par` (b `pseq` a + b)` is strict in b:
    // the strict `let` of b (evaluated where it is bound) once came before
    // the spark of a, so a was sparked only when nothing else was left
    // (nested `let`s: no spark taken, 4 PEs no faster than one).
    let time = |v: &serde_json::Value| v["virtual_time_s"].as_f64().unwrap();
    let program = "tests/programs/par_let_sparks.gph";
    for form in ["let", "nested", "where"] {
        let one = sim_stats(&["--pes", "1"], program, &[form, "25"]);
        let four = sim_stats(&["--pes", "4"], program, &[form, "25"]);
        let taken: u64 = four["per_pe"]
            .as_array()
            .unwrap()
            .iter()
            .map(|pe| pe["sparks_converted"].as_u64().unwrap())
            .sum();
        assert!(taken > 0, "{form}: no spark taken on 4 PEs");
        assert!(
            time(&four) < 0.7 * time(&one),
            "{form}: {} s virtual on 4 PEs against {} s on one",
            time(&four),
            time(&one)
        );
    }
}

#[test]
fn a_thief_whose_threads_wait_takes_no_more_than_half_the_work() {
    // parsort's 8 chunks travel slowly: the thief's threads wait for them,
    // its PE is idle and fishes again. It once took all 7 sparks the main
    // PE could give, which then waited for their results (0.200 s virtual
    // on 2 PEs against 0.195 s on one).
    let time = |v: &serde_json::Value| v["virtual_time_s"].as_f64().unwrap();
    let args = ["40000", "8"];
    let one = sim_stats(&["--pes", "1"], "programs/parsort.gph", &args);
    let two = sim_stats(&["--pes", "2"], "programs/parsort.gph", &args);
    let exported = two["per_pe"][0]["sparks_exported"].as_u64().unwrap();
    assert!(
        exported <= 4,
        "the main PE gave away {exported} of 8 sparks"
    );
    assert!(
        time(&two) < 0.85 * time(&one),
        "2 PEs {} s, 1 PE {} s",
        time(&two),
        time(&one)
    );
}

#[test]
fn a_low_watermark_fishes_while_the_one_thread_runs() {
    // GUM's watermark. A thread that yielded at the end of its slice once
    // counted as a second runnable thread, and `--low-watermark` never
    // fired: PE 1 sat idle for a FISH round trip after every row.
    let idle = |lw: &str| {
        let v = sim_stats(
            &["--pes", "2", "--sched", "gum", "--low-watermark", lw],
            "programs/mandel.gph",
            &["120", "120"],
        );
        v["per_pe"][1]["idle_s"].as_f64().unwrap()
    };
    let (without, with) = (idle("0"), idle("1"));
    assert!(
        with < 0.6 * without,
        "PE 1 idle {with} s with the watermark, {without} s without"
    );
}

/// The main PE's reductions and the virtual time of `program` on `pes`
/// simulated PEs.
fn sim_reductions_and_time(program: &str, pes: &str) -> (u64, f64) {
    let v = sim_stats(&["--pes", pes], program, &[]);
    (
        v["per_pe"][0]["reductions"].as_u64().unwrap(),
        v["virtual_time_s"].as_f64().unwrap(),
    )
}

/// The `--stats-json` of `program` with `args` on the sim engine with
/// `flags` (which must succeed).
fn sim_stats(flags: &[&str], program: &str, args: &[&str]) -> serde_json::Value {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("gph-sim-stats-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("stats.json");
    let mut argv = vec!["run", "--engine", "sim"];
    argv.extend_from_slice(flags);
    argv.extend_from_slice(&["--stats-json", path.to_str().unwrap(), program]);
    if !args.is_empty() {
        argv.push("--");
        argv.extend_from_slice(args);
    }
    let out = gph_with(&argv, None, &[]);
    assert_eq!(out.status, Some(0), "{}", out.stderr);
    let v = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    v
}

/// Two simulated runs with the same arguments give the same statistics,
/// wall time aside.
#[test]
fn simulated_runs_are_reproducible() {
    let dir = std::env::temp_dir().join(format!("gph-repro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stats = |k: usize, grid: &[&str]| {
        let path = dir.join(format!("{k}.json"));
        let mut args = vec!["run", "--engine", "sim"];
        args.extend_from_slice(grid);
        args.extend(["--seed", "7", "--stats-json", path.to_str().unwrap()]);
        args.extend(["tests/programs/par_shared_lazy.gph"]);
        let out = gph_with(&args, None, &[]);
        assert_eq!(out.status, Some(0), "{}", out.stderr);
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("wall_time_s");
        v
    };
    for grid in [
        &["--pes", "16"][..],
        &["--grid", "programs/grids/hetero8.toml"],
        &["--grid", "programs/grids/hetero8.toml", "--sched", "gum"],
    ] {
        let (a, b) = (stats(1, grid), stats(2, grid));
        assert_eq!(a, b, "two runs on {grid:?} differ");
        assert!(a["virtual_time_s"].as_f64().unwrap() > 0.0);
        assert!(a["messages"]["SCHEDULE"]["count"].as_u64().unwrap() > 0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sparks on four PEs share one big lazy structure (fetches meet thunks
/// under evaluation): run again and again on real threads, never a hang or
/// a wrong answer.
#[test]
fn shared_lazy_structure_under_stress() {
    let file = Path::new("tests/programs/par_shared_lazy.gph");
    let expected = std::fs::read_to_string(file.with_extension("stdout")).unwrap();
    for round in 0..12 {
        let pes = ["2", "4", "8"][round % 3];
        // Half the rounds fish early too (more work moving while busy).
        let lw = if round % 2 == 0 { "0" } else { "2" };
        let out = gph_with(
            &[
                "run",
                "--pes",
                pes,
                "--low-watermark",
                lw,
                file.to_str().unwrap(),
            ],
            None,
            &[],
        );
        assert_eq!(out.status, Some(0), "round {round}: {}", out.stderr);
        assert_eq!(out.stdout, expected, "round {round} on {pes} PEs");
    }
}

/// Each program in tests/runtime-errors fails at run time: exit status 1 and
/// a `gph: ` message on stderr (snapshot `.stderr`), after printing the
/// output it printed before the failure (`.stdout`, when present).
#[test]
fn runtime_errors_are_reported() {
    let mut failures = Vec::new();
    let configs: [&[&str]; 3] = [
        &["--pes", "1"],
        &["--pes", "4"],
        &["--engine", "sim", "--pes", "4"],
    ];
    for f in programs_in("tests/runtime-errors") {
        for config in configs {
            let c = Golden::read(&f);
            let mut args = vec!["run"];
            args.extend_from_slice(config);
            args.extend(c.flags.iter().map(String::as_str));
            args.push(f.to_str().unwrap());
            let out = gph_with(&args, Some(&c.stdin), &[]);
            if out.status != Some(1) {
                failures.push(format!(
                    "{} {config:?}: exit {:?}\n{}",
                    f.display(),
                    out.status,
                    out.stderr
                ));
                continue;
            }
            if !out.stderr.starts_with("gph: ") || out.stderr.contains("panicked") {
                failures.push(format!(
                    "{} {config:?}: stderr {:?}",
                    f.display(),
                    out.stderr
                ));
                continue;
            }
            if let Err(e) = snapshot(&f.with_extension("stderr"), &out.stderr) {
                failures.push(format!("{} {config:?}: {e}", f.display()));
            }
            if out.stdout != c.stdout {
                failures.push(format!(
                    "{} {config:?}: stdout {:?}, expected {:?}",
                    f.display(),
                    out.stdout,
                    c.stdout
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What programs write to stderr, which the golden tests do not compare:
/// Debug.Trace's messages (GHC's, in GHC's order, also on several PEs) and
/// hPutStrLn stderr, and stdout before it when the program flushed stdout
/// first (stdout to a pipe is block-buffered, stderr unbuffered, as in
/// GHC).
#[test]
fn stderr_gets_traces_and_flushed_stdout_comes_first() {
    let trace = "(\"fact\",5)\n(\"fact\",4)\n(\"fact\",3)\n(\"fact\",2)\nfact: base case\n\
                 x is evaluated\n4\nin IO\n[1,2,3]\ntraced and returned\nin a Maybe\n";
    for config in [&["--pes", "1"][..], &["--engine", "sim", "--pes", "4"]] {
        let mut args = vec!["run"];
        args.extend_from_slice(config);
        args.push("tests/programs/lib_debug_trace.gph");
        let out = gph_with(&args, None, &[]);
        assert_eq!(out.status, Some(0), "{config:?}: {}", out.stderr);
        assert_eq!(out.stderr, trace, "{config:?}");
    }
    // stdout and stderr into one pipe: what was flushed comes first.
    let prog = "tests/programs/lib_system_io_handles";
    let stdin = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("{prog}.stdin")))
        .expect("stdin");
    let script = format!("exec \"$0\" run {prog}.gph 2>&1");
    let mut child = std::process::Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_gph")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sh runs");
    {
        use std::io::Write;
        let mut input = child.stdin.take().expect("stdin");
        input.write_all(&stdin).expect("write stdin");
    }
    let out = child.wait_with_output().expect("gph runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let before = text.find("chars\n").expect("stdout before the flush");
    let err = text.find("this goes to stderr\n").expect("the stderr line");
    let after = text.find("(3,4)\n").expect("stdout after it");
    assert!(before < err && err < after, "{text}");
    assert!(text.ends_with("gph: divide by zero\n"), "{text}");
}
