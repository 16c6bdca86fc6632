//! The `mpi` engine (docs/mpi.md): one PE per MPI rank, so that a program
//! runs across machines the way HPC programs are started:
//! `mpirun -np 4 gph run --engine mpi prog.gph -- ARGS`. PE k is rank k;
//! rank 0 is the main PE and owns stdin and stdout. It is a transport
//! under the threads engine's per-PE engine (`os_threads::OsThread` over
//! an [`link::MpiLink`]) and the one driver (`engine::drive`), not a
//! second runtime: every message is an envelope, serialised
//! (`Envelope::encode`) and sent with MPI (`transport`).
//!
//! A run, on every rank:
//!
//! 1. Every rank compiles and loads the program (the compiled-program
//!    cache makes that one compilation on a shared file system).
//! 2. Start-up aligns the clocks: a barrier, then each rank measures its
//!    offset from rank 0's clock in a few round trips (the one with the
//!    shortest round trip counts), so that events and message times from
//!    every rank are on rank 0's clock.
//! 3. The driver runs each rank's PE; start-up messages (Grid-GUM2's
//!    speeds) and everything after are the PEs' own messages.
//! 4. Rank 0's main thread ends (or an error, or a deadlock told by the
//!    census waves of `link`): rank 0 sends every PE a FINISH; each rank
//!    answers with a report (its clock, its statistics) after the last of
//!    its recorded events, and rank 0 answers each with the verdict, the
//!    exit status every rank ends with. An error on another rank reaches
//!    rank 0 as a FAIL, as on the threads engine, and rank 0 prints it.
//!
//! Without the cargo feature `mpi` the engine is named but not built:
//! [`Session::start`] says how to build it.

#[cfg(feature = "mpi")]
pub mod bench;
#[cfg(feature = "mpi")]
mod link;
#[cfg(feature = "mpi")]
mod transport;
// Without the feature only its test uses it.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
mod window;

#[cfg(feature = "mpi")]
pub(crate) use running::{run_main, run_other};

/// What a gph built without the engine says.
pub const NOT_BUILT: &str = "this gph was built without MPI: build it with \
    `cargo build --release --features mpi` (docs/mpi.md)";

/// MPI, started for this process: ended (MPI_Finalize) when dropped.
pub struct Session {
    #[cfg(feature = "mpi")]
    universe: mpi::environment::Universe,
    /// This process's rank: its PE.
    pub rank: usize,
    /// How many ranks: the run's PEs.
    pub size: usize,
}

impl Session {
    /// Starts MPI (once per process).
    pub fn start() -> Result<Session, String> {
        #[cfg(feature = "mpi")]
        {
            use mpi::topology::Communicator;
            // Full thread support, for the heartbeat's thread; without it
            // a lost rank is mpirun's to notice.
            let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Multiple)
                .ok_or("MPI was started twice")?;
            let world = universe.world();
            let (rank, size) = (world.rank() as usize, world.size() as usize);
            keep_freed_memory();
            if size > 1 << 16 {
                return Err(format!("{size} ranks: gph runs on at most 65,536 PEs"));
            }
            Ok(Session {
                universe,
                rank,
                size,
            })
        }
        #[cfg(not(feature = "mpi"))]
        Err(NOT_BUILT.into())
    }
}

/// Messages arrive into fresh buffers (they become the envelopes'
/// payloads, without a copy) that are freed once handled. glibc gave the
/// memory of each back to the kernel (trimming the top of the heap, or
/// unmapping a buffer past its mmap threshold) and the next message
/// faulted it in again, page by page: a stream of 64 KiB messages spent
/// more time in page faults than in MPI. Keeping up to 64 MiB freed and
/// allocating buffers below 32 MiB from the heap lets each buffer reuse
/// the last one's pages.
#[cfg(feature = "mpi")]
fn keep_freed_memory() {
    // SAFETY: mallopt only sets the allocator's tunables; it is called
    // before this process's threads start allocating concurrently.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
    }
}

/// Every rank waits for the others before MPI ends, so that rank 0 has
/// printed its message before a rank with a bad status makes mpirun end
/// the job.
impl Drop for Session {
    fn drop(&mut self) {
        #[cfg(feature = "mpi")]
        {
            use mpi::collective::CommunicatorCollectives;
            self.universe.world().barrier();
        }
    }
}

#[cfg(feature = "mpi")]
mod running {
    use super::link::MpiLink;
    use super::transport::{heartbeat, Tag, Transport};
    use crate::engine::os_threads::OsThread;
    use crate::engine::{drive, Census, Engine, Setup};
    use crate::machine::heap::Ptr;
    use crate::machine::io::Io;
    use crate::machine::pe::{Pe, Stop};
    use crate::obs::stats::PeStats;
    use crate::obs::Replay;
    use crate::parallel::ids::PeId;
    use crate::parallel::protocol::codec::{put_word, take_word};
    use crate::parallel::protocol::control::Control;
    use crate::parallel::protocol::envelope::Envelope;
    use mpi::collective::CommunicatorCollectives;
    use mpi::point_to_point::{Destination, Source};
    use mpi::topology::{Communicator, SimpleCommunicator};
    use std::sync::mpsc::Sender;
    use std::time::{Duration, Instant};

    /// Round trips that measure a rank's clock offset.
    const CLOCK_ROUNDS: usize = 8;

    /// The barrier that starts every rank's clock, then the offset of
    /// this rank's clock from rank 0's (seconds to add to it).
    fn align_clocks(t: &Transport) -> (Instant, f64) {
        let world = SimpleCommunicator::world();
        world.barrier();
        let start = Instant::now();
        let now = || start.elapsed().as_secs_f64();
        let tag = Tag::Clock as i32;
        if t.rank == 0 {
            for k in 1..t.size {
                let p = world.process_at_rank(k as i32);
                for _ in 0..CLOCK_ROUNDS {
                    let _ = p.receive_vec_with_tag::<u64>(tag);
                    p.send_with_tag(&[now().to_bits()][..], tag);
                }
            }
            return (start, 0.0);
        }
        let p = world.process_at_rank(0);
        let mut best = (f64::INFINITY, 0.0);
        for _ in 0..CLOCK_ROUNDS {
            let t0 = now();
            p.send_with_tag(&[t0.to_bits()][..], tag);
            let (theirs, _) = p.receive_vec_with_tag::<u64>(tag);
            let t1 = now();
            let at0 = theirs.first().map_or(t0, |&b| f64::from_bits(b));
            if t1 - t0 < best.0 {
                best = (t1 - t0, at0 - (t0 + t1) / 2.0);
            }
        }
        (start, best.1)
    }

    /// The heartbeat's thread, if MPI allows it: what stops it, and its
    /// handle.
    struct Beat(Option<(Sender<()>, std::thread::JoinHandle<()>)>);

    impl Beat {
        fn start(link: &mut MpiLink, to: Vec<usize>) -> Beat {
            if mpi::environment::threading_support() != mpi::Threading::Multiple {
                return Beat(None);
            }
            link.beating = true;
            let (stop, stopped) = std::sync::mpsc::channel();
            Beat(Some((stop, heartbeat(to, stopped))))
        }

        fn stop(self) {
            if let Some((stop, h)) = self.0 {
                drop(stop);
                let _ = h.join();
            }
        }
    }

    /// Waits (polling) until `done` says the link has what it waits for.
    fn await_link(link: &mut MpiLink, done: impl Fn(&MpiLink) -> bool) {
        while !done(link) {
            if !link.pump() {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    /// Rank 0: runs the main PE `pe0` with the others, ends the run on
    /// every rank. The main thread's value (or why the run stopped) and
    /// every PE's statistics (`report` makes rank 0's).
    pub(crate) fn run_main(
        setup: &Setup,
        pe0: &mut Pe,
        report: impl Fn(&mut Pe, crate::engine::PeTimes, f64) -> PeStats,
    ) -> (Result<Ptr, Stop>, Vec<PeStats>) {
        let t = Transport::new();
        let n = t.size;
        let (start, _) = align_clocks(&t);
        let census = Census::distributed();
        let mut link = MpiLink::new(t, &census, None);
        let beat = Beat::start(&mut link, (1..n).collect());
        if let Some(rec) = &setup.config.record {
            for k in 1..n {
                link.replays[k] = Some(Replay::new(rec.for_pe(PeId(k as u16))));
            }
        }
        let mail = link.t.mail();
        let mut eng = OsThread::new(PeId(0), link, start, setup.config.grid.as_ref());
        pe0.poll_mail(Box::new(mail));
        let r = setup.start_main(pe0).and_then(|id| {
            drive(&mut eng, std::slice::from_mut(pe0), &census, Some((0, id)))?
                .ok_or_else(|| Stop::Error("internal error: the main PE finished".into()))
        });
        for k in 1..n {
            let m = Control::Finish;
            eng.post(Envelope::new(PeId(0), PeId(k as u16), m.kind(), m.encode()));
        }
        let mut all = vec![report(pe0, eng.times, eng.now(0))];
        let link = &mut eng.link;
        await_link(link, |l| l.ending.reports[1..].iter().all(Option::is_some));
        let mut broken = None;
        for k in 1..n {
            let bytes = link.ending.reports[k].take().unwrap_or_default();
            let mut rest = &bytes[..];
            let end = take_word(&mut rest).map(f64::from_bits);
            match (end, PeStats::from_wire(rest)) {
                (Some(end), Ok(s)) => {
                    if let Some(r) = &mut link.replays[k] {
                        r.finish(end);
                    }
                    all.push(s);
                }
                _ => {
                    broken.get_or_insert(format!("a malformed report from PE {k}"));
                    all.push(PeStats::default());
                }
            }
        }
        let r = match (r, broken) {
            (Ok(_), Some(why)) => Err(Stop::Error(why)),
            (r, _) => r,
        };
        let code = match &r {
            Ok(_) => 0,
            Err(Stop::Exit(c)) => *c,
            Err(Stop::Error(_)) => 1,
        };
        for k in 1..n {
            let mut b = Vec::new();
            put_word(&mut b, code as u32 as u64);
            link.t.send(k, Tag::Verdict, b);
        }
        link.t.drain();
        beat.stop();
        (r, all)
    }

    /// Another rank: runs its PE until rank 0 ends the run; the exit
    /// status rank 0 gave.
    pub(crate) fn run_other(
        setup: &Setup,
        rank: usize,
        report: impl Fn(&mut Pe, crate::engine::PeTimes, f64) -> PeStats,
    ) -> i32 {
        let mut pe = setup.new_pe(Io::elsewhere(), rank as u16);
        let t = Transport::new();
        let (start, offset) = align_clocks(&t);
        let census = Census::distributed();
        let mut link = MpiLink::new(t, &census, setup.config.record.clone());
        let beat = Beat::start(&mut link, vec![0]);
        let mail = link.t.mail();
        let mut eng = OsThread::new(PeId(rank as u16), link, start, setup.config.grid.as_ref());
        eng.offset = offset;
        pe.poll_mail(Box::new(mail));
        if pe.init_cafs().is_ok() {
            let _ = drive(&mut eng, std::slice::from_mut(&mut pe), &census, None);
        }
        let end = eng.now(0);
        let stats = report(&mut pe, eng.times, end);
        let link = &mut eng.link;
        link.ship_events();
        let mut b = Vec::new();
        put_word(&mut b, end.to_bits());
        b.extend(stats.to_wire());
        link.t.send(0, Tag::Report, b);
        await_link(link, |l| l.ending.verdict.is_some());
        link.t.drain();
        beat.stop();
        link.ending.verdict.unwrap_or(1)
    }
}
