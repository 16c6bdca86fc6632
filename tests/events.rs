//! The event stream (runtime/src/obs): every statistic of a run can be
//! counted again from the recorded events, and each PE's events are in
//! the order of its clock, on every engine.

use gph_runtime::obs::stats::PeStats;
use gph_runtime::obs::Recording;
use gph_runtime::{Config, EngineKind, Exit, Tuning};
use gph_syntax::SourceFile;

fn program(path: &str) -> gph_runtime::code::Program {
    let text = std::fs::read_to_string(path).unwrap();
    let (program, _, diagnostics) = gph_compiler::compile(
        &SourceFile::new(path, text),
        &gph_compiler::Options::default(),
    );
    program.unwrap_or_else(|| panic!("{path} does not compile: {diagnostics:?}"))
}

/// Runs `path` on `config` recording its events; the statistics the run
/// reported, and those counted again from the events.
fn recount(path: &str, config: Config) -> (Vec<PeStats>, Vec<PeStats>) {
    let p = program(path);
    let rec = Recording::default();
    let config = Config {
        record: Some(std::sync::Arc::new(rec.clone())),
        ..config
    };
    let (mut out, mut input) = (Vec::new(), std::io::empty());
    let (exit, stats) =
        gph_runtime::run_main_with(&p, &config, &Tuning::default(), &mut out, false, &mut input);
    assert_eq!(exit, Exit::Success, "{}", String::from_utf8_lossy(&out));
    let n = stats.per_pe.len();
    let mut again = vec![PeStats::default(); n];
    let mut last = vec![f64::NEG_INFINITY; n];
    for e in rec.events() {
        let k = e.pe.0 as usize;
        again[k].count(&e.event);
        assert!(e.t >= last[k], "PE {k}: {e:?} before {}", last[k]);
        last[k] = e.t;
    }
    // Times are the engine's, not events.
    let reported = stats
        .per_pe
        .into_iter()
        .map(|mut s| {
            (s.busy_s, s.idle_s, s.blocked_s) = (0.0, 0.0, 0.0);
            s
        })
        .collect();
    (reported, again)
}

#[test]
fn statistics_are_counted_from_the_events() {
    for (engine, pes) in [
        (EngineKind::Sim, 4),
        (EngineKind::Sim, 1),
        (EngineKind::Threads, 2),
    ] {
        let config = Config {
            engine,
            pes,
            seed: 3,
            ..Config::default()
        };
        let (reported, again) = recount("tests/programs/par_shared_lazy.gph", config);
        assert_eq!(reported, again, "{engine:?} on {pes} PEs");
        if pes > 1 {
            let sent: u64 = again.iter().map(|s| s.sent().0).sum();
            assert!(sent > 0, "{engine:?} on {pes} PEs: {again:?}");
        }
    }
}

/// `noPe` and `selfPe` are the run's PE count and the evaluating PE's
/// number from 1 (the main PE's, for `main`), as in Eden.
#[test]
fn no_pe_and_self_pe_are_the_real_ones() {
    let text = "import Control.Parallel.Eden (noPe, selfPe)\n\
                main :: IO ()\n\
                main = print (noPe, selfPe)\n";
    let (p, _, d) = gph_compiler::compile(
        &SourceFile::new("pes.gph", text),
        &gph_compiler::Options::default(),
    );
    let p = p.unwrap_or_else(|| panic!("{d:?}"));
    for (engine, pes) in [
        (EngineKind::Sim, 1),
        (EngineKind::Sim, 7),
        (EngineKind::Threads, 1),
        (EngineKind::Threads, 3),
    ] {
        let config = Config {
            engine,
            pes,
            ..Config::default()
        };
        let (mut out, mut input) = (Vec::new(), std::io::empty());
        let (exit, _) = gph_runtime::run_main_with(
            &p,
            &config,
            &Tuning::default(),
            &mut out,
            false,
            &mut input,
        );
        assert_eq!(exit, Exit::Success);
        assert_eq!(String::from_utf8(out).unwrap(), format!("({pes},1)\n"));
    }
}
