//! `gph calibrate`: measures on this machine what the sim engine charges
//! and writes a machine file (a grid of one cluster with `[costs]`) that
//! `--engine sim --grid FILE [--pes N]` takes, so that the sim predicts
//! this machine (docs/parallel.md, "A simulator calibrated to its
//! machine").
//!
//! * The reduction rate: programs of `programs/` (built into gph) run on
//!   one PE, again and again for a while each; their reductions over their
//!   time less the collector's. The geometric mean of theirs is the rate.
//! * Contention: the same programs run on k OS threads at once, one PE
//!   each, for k = 1, 2, 4, ... up to the cores: how fast each runs then,
//!   against one alone (memory bandwidth, caches and hyperthreads that
//!   cores share; the operating system's other work).
//! * The message path, the collector, and the latency to a busy and to
//!   an idle PE: `gph_runtime::engine::calibrate`.

use gph_runtime::engine::calibrate;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The programs that measure the reduction rate: their source, arguments
/// small enough for a run of a few tens of milliseconds, and what they
/// stand for.
const KERNELS: &[(&str, &str, &[&str])] = &[
    ("nfib", include_str!("../programs/nfib.gph"), &["25", "30"]),
    (
        "sumEuler",
        include_str!("../programs/sumEuler.gph"),
        &["1", "600", "100"],
    ),
    ("queens", include_str!("../programs/queens.gph"), &["8"]),
    (
        "mandel",
        include_str!("../programs/mandel.gph"),
        &["60", "60"],
    ),
    ("matmult", include_str!("../programs/matmult.gph"), &["60"]),
];

/// How long each measurement of a rate runs.
const MEASURE: Duration = Duration::from_millis(300);

struct Kernel {
    name: &'static str,
    program: gph_runtime::code::Program,
    args: Vec<String>,
}

fn kernels() -> Result<Vec<Kernel>, String> {
    KERNELS
        .iter()
        .map(|&(name, src, args)| {
            let file = gph_syntax::SourceFile::new(format!("programs/{name}.gph"), src);
            let (program, _, _) = gph_compiler::compile(&file, &gph_compiler::Options::default());
            Ok(Kernel {
                name,
                program: program
                    .ok_or_else(|| format!("internal error: {name} does not compile"))?,
                args: args.iter().map(|a| a.to_string()).collect(),
            })
        })
        .collect()
}

/// Runs `k` on one PE again and again for `MEASURE`: reductions per
/// second of its time less the collector's (`gc_word` seconds a word).
fn rate(k: &Kernel, gc_word: f64) -> f64 {
    let config = gph_runtime::Config {
        args: k.args.clone(),
        prog_name: k.name.into(),
        pes: 1,
        ..Default::default()
    };
    let (mut reductions, mut seconds) = (0u64, 0f64);
    let start = Instant::now();
    while start.elapsed() < MEASURE {
        let (_, stats) = gph_runtime::run_main_with(
            &k.program,
            &config,
            &Default::default(),
            &mut std::io::sink(),
            false,
            &mut std::io::empty(),
        );
        reductions += stats.total.reductions;
        let gc = stats.total.copied_bytes as f64 / 8.0 * gc_word;
        seconds += (stats.time.as_secs_f64() - gc).max(1e-9);
    }
    reductions as f64 / seconds
}

/// The geometric mean.
fn geomean(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

/// How fast a PE runs while `n` run at once, relative to one alone: every
/// kernel on `n` threads together, each thread's rate against the rate of
/// the kernel alone.
fn contention(ks: &[Kernel], alone: &[f64], n: usize, gc_word: f64) -> f64 {
    let ratios: Vec<f64> = ks
        .iter()
        .zip(alone)
        .map(|(k, &one)| {
            let rates: Vec<f64> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..n)
                    .map(|_| {
                        std::thread::Builder::new()
                            .stack_size(64 << 20)
                            .spawn_scoped(s, || rate(k, gc_word))
                            .expect("a thread")
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap_or(0.0)).collect()
            });
            (rates.iter().sum::<f64>() / n as f64 / one).min(1.0)
        })
        .collect();
    geomean(&ratios)
}

/// Measures and returns the machine file's text.
pub fn calibrate(name: &str, cores: usize) -> Result<String, String> {
    let say = |s: &str| eprintln!("gph calibrate: {s}");
    let ks = kernels()?;
    say("the collector, the message path, the latencies");
    let gc_word = calibrate::gc_word_cost();
    let msg = calibrate::message_costs();
    let latency = calibrate::latency();
    let wake = calibrate::wake_latency();
    say("the reduction rate, one PE");
    let alone: Vec<f64> = ks.iter().map(|k| rate(k, gc_word)).collect();
    let rps = geomean(&alone);
    // Contention at 1, 2, 4, ... and the cores; between, a straight line.
    let mut counts: Vec<usize> = std::iter::successors(Some(2usize), |n| Some(n * 2))
        .take_while(|&n| n < cores)
        .collect();
    if cores > 1 {
        counts.push(cores);
    }
    let mut measured = vec![(1usize, 1.0f64)];
    for &n in &counts {
        say(&format!("contention, {n} PEs at once"));
        measured.push((n, contention(&ks, &alone, n, gc_word)));
    }
    let factors: Vec<f64> = (1..=cores)
        .map(|k| {
            let i = measured.iter().position(|&(n, _)| n >= k).unwrap_or(0);
            let (n1, f1) = measured[i];
            if n1 == k || i == 0 {
                return f1;
            }
            let (n0, f0) = measured[i - 1];
            f0 + (f1 - f0) * (k - n0) as f64 / (n1 - n0) as f64
        })
        .collect();

    let mut t = String::new();
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_default();
    let _ = writeln!(
        t,
        "# A machine as the sim sees it, measured by `gph calibrate` on {} ({cores} cores{}).",
        host.trim(),
        if cpu.is_empty() {
            String::new()
        } else {
            format!(", {cpu}")
        }
    );
    let _ = writeln!(
        t,
        "# `gph run --engine sim --grid FILE --pes N` predicts N PEs of it (docs/parallel.md,\n# \"A simulator calibrated to its machine\")."
    );
    let _ = writeln!(t, "name = \"{name}\"\n\n[costs]");
    // The keys of the file: its value and what it is.
    let keys = |t: &mut String, rows: &[(&str, String, &str)]| {
        for (k, v, what) in rows {
            let _ = writeln!(t, "{:<34} # {what}", format!("{k} = {v}"));
        }
    };
    let per: Vec<String> = ks
        .iter()
        .zip(&alone)
        .map(|(k, r)| format!("{} {:.1}", k.name, r / 1e6))
        .collect();
    let m_s = format!("M/s: {}", per.join(", "));
    keys(
        &mut t,
        &[
            ("reductions_per_second", format!("{rps:.4e}"), &m_s),
            (
                "message_us",
                format!("{:.3}", msg.receive * 1e6),
                "to take a message off the channel, read it and unpack it",
            ),
            (
                "message_word_ns",
                format!("{:.3}", msg.receive_byte * 8.0 * 1e9),
                "and per 8 bytes of it",
            ),
            (
                "gc_word_ns",
                format!("{:.3}", gc_word * 1e9),
                "per word the collector copies",
            ),
            (
                "wake_us",
                format!("{:.2}", ((wake - latency) * 1e6).max(0.0)),
                "a message to an idle PE, until it has it (less the latency below)",
            ),
        ],
    );
    let list: Vec<String> = factors.iter().map(|f| format!("{f:.3}")).collect();
    let _ = writeln!(
        t,
        "# how fast a PE runs while 1, 2, ... PEs run, against one alone"
    );
    let _ = writeln!(t, "contention = [{}]", list.join(", "));
    let _ = writeln!(t, "\n[[cluster]]\nname = \"cores\"\npes = {cores}");
    keys(
        &mut t,
        &[
            (
                "latency_ms",
                format!("{:.6}", latency * 1e3),
                "a message to a busy PE, from core to core",
            ),
            (
                "bandwidth_mbit",
                "1000000".into(),
                "a message moves from thread to thread: its bytes are made once, below",
            ),
            (
                "message_cost_us",
                format!("{:.3}", msg.send * 1e6),
                "to pack a message, write it and put it on the channel",
            ),
            (
                "word_cost_us",
                format!("{:.6}", msg.send_byte * 4.0 * 1e6),
                "and per 4 bytes of it",
            ),
        ],
    );
    Ok(t)
}
