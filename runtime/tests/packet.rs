//! The packet layer (parallel::protocol::packet) under the driver, on the
//! sim engine: a HEAD that a busy PE holds leaves when its timeout is due,
//! and nothing is left in a send buffer when the run ends. (Eden does not
//! send HEADs yet: the test sends one by hand.)

mod common;
use common::*;

use gph_runtime::engine::grid::Grid;
use gph_runtime::engine::{sim, Setup};
use gph_runtime::machine::io::Io;
use gph_runtime::machine::load::load;
use gph_runtime::parallel::ids::PeId;
use gph_runtime::parallel::policy::Sched;
use gph_runtime::parallel::protocol::envelope::Envelope;
use gph_runtime::parallel::protocol::{codec, MsgKind};
use gph_runtime::PeStats;
use std::time::Duration;

/// Runs nfib 15 as main on PE 0 of two simulated PEs, while PE 1 runs
/// nfib 25 in slices of 100 reductions (so it has a runnable thread all
/// along) and has sent a HEAD to PE 0 before it starts. Each PE's
/// statistics, and whether a PE still held a message at the end.
fn run_holding_a_head(chunk_timeout: Duration) -> (Vec<PeStats>, bool) {
    let main_program = nfib_program(15);
    let busy_program = nfib_program(25);
    let config = Config::default();
    let mut tuning = Tuning::default();
    tuning.chunking.timeout = chunk_timeout;
    // GUM's policy: Grid-GUM2's PESTATIC at start-up is urgent and would
    // take the HEAD along at once.
    tuning.sched = Sched::Gum;
    let (main_loaded, busy_loaded) = (load(&main_program).unwrap(), load(&busy_program).unwrap());
    let main_setup = Setup {
        program: &main_program,
        loaded: &main_loaded,
        config: &config,
        tuning: tuning.clone(),
        npes: 2,
        session: None,
    };
    let busy_setup = Setup {
        program: &busy_program,
        loaded: &busy_loaded,
        tuning: Tuning {
            slice: 100,
            ..tuning
        },
        ..main_setup
    };
    // (The output stays in PE 0's buffer: nobody flushes it.)
    let (mut out, mut input) = (std::io::sink(), std::io::empty());
    let io = Io::new(&mut out, false, &mut input, Vec::new(), "main".into());
    let mut pes = vec![
        main_setup.new_pe(io, 0),
        busy_setup.new_pe(Io::elsewhere(), 1),
    ];
    let main = main_setup.start_main(&mut pes[0]).unwrap();
    busy_setup.start_main(&mut pes[1]).unwrap();
    let head = Envelope::new(
        PeId(1),
        PeId(0),
        MsgKind::Head,
        codec::Writer::new(MsgKind::Head).word(7).finish(),
    );
    pes[1].send_envelope(head);
    let (r, _) = sim::run(&mut pes, &Grid::uniform(2).unwrap(), main, None);
    assert!(r.is_ok(), "{r:?}");
    let held = pes.iter().any(|pe| pe.holds_messages());
    let stats = pes.iter().map(|pe| pe.stats().clone()).collect();
    (stats, held)
}

#[test]
fn packet_a_held_head_leaves_when_the_run_ends() {
    let (stats, held) = run_holding_a_head(Duration::from_secs(60));
    assert!(!held, "a message was left in a send buffer");
    let p = &stats[1].packets;
    assert_eq!((p.sent, p.messages, p.idle), (1, 1, 1), "{p:?}");
    assert_eq!(stats[1].messages.get("HEAD"), Some(&(1, 2)));
}

#[test]
fn packet_a_held_head_leaves_when_its_timeout_is_due() {
    // PE 1 looks at its buffers after each of its slices: with a timeout
    // of 0 the HEAD leaves after the first. (It arrives after the run:
    // PE 0 is done in 0.1 ms, the network takes 0.2.)
    let (stats, held) = run_holding_a_head(Duration::ZERO);
    assert!(!held);
    let p = &stats[1].packets;
    assert_eq!((p.sent, p.messages, p.timeout), (1, 1, 1), "{p:?}");
}
