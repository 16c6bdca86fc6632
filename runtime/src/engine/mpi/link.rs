//! The MPI engine's link (`os_threads::Link`): envelopes between this
//! rank's PE and the others, with flow control; beside them the engine's
//! own traffic: census waves (the main rank tells a deadlock), recorded
//! events on their way to the main rank's files, and the end of the run.
//!
//! Flow control (`window`): envelopes beyond the window to a rank wait
//! here, in order, and leave as the receiver tells that it took some in
//! (a Window message). Acknowledgements come from the link, not from the
//! PE's handling, so a PE busy with a long slice still lets its senders on
//! once it polls.
//!
//! Census waves. The driver's census counts, on each rank, its PE's
//! messages that may bring work sent and handled, and whether the PE is
//! quiescent. When the main rank's PE is quiescent and waiting, it asks
//! every rank for that reading ([`Tag::Wave`]), at most once per
//! [`WAVE_EVERY`]. Two waves in a row in which every PE was quiescent,
//! every reading the same, and the messages handled add up to those sent,
//! mean that nothing happened between them and nothing is on its way:
//! a deadlock (the double count of Mattern's termination detection; a
//! quiescent PE wakes only by handling a message, which would change its
//! count).

use super::transport::{Arrival, Tag, Transport};
use super::window::Flight;
use crate::engine::os_threads::Link;
use crate::engine::Census;
use crate::machine::pe::Pe;
use crate::obs::{Replay, Sink, Stamped};
use crate::parallel::protocol::codec::{put_word, take_word};
use crate::parallel::protocol::envelope::Envelope;
use mpi::topology::{Communicator, SimpleCommunicator};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the main rank may ask for a census reading.
const WAVE_EVERY: Duration = Duration::from_millis(20);
/// How often another rank ships its recorded events.
const SHIP_EVERY: Duration = Duration::from_millis(50);
/// How long a waiting PE polls MPI before it sleeps between polls: MPI
/// itself busy-polls, and a message answered within microseconds is what
/// a FETCH's round trip needs.
const SPIN: Duration = Duration::from_micros(500);

/// A rank silent this long is lost: twelve heartbeats missed.
const LOST: Duration = Duration::from_secs(3);

/// How long a rank that found another lost waits in MPI_Abort before it
/// ends itself.
const ABORT_GRACE: Duration = Duration::from_secs(2);

/// A census reading: quiescent, sent, handled.
type Reading = (bool, u64, u64);

/// What arrived for the end of the run (`mpi::run_*`).
#[derive(Default)]
pub(crate) struct Ending {
    /// Each rank's report (main rank).
    pub reports: Vec<Option<Vec<u8>>>,
    /// The main rank's verdict (other ranks).
    pub verdict: Option<i32>,
}

pub(crate) struct MpiLink<'a> {
    pub t: Transport,
    census: &'a Census,
    /// Per rank: envelopes sent and not yet acknowledged, and those
    /// waiting for the window to open.
    in_flight: Vec<Flight>,
    queued: Vec<VecDeque<Envelope>>,
    /// Per rank: envelopes taken in since the last acknowledgement.
    taken: Vec<Flight>,
    /// Envelopes decoded, not yet handed out.
    inbox: VecDeque<Envelope>,
    /// Why the run cannot go on (a malformed message).
    pub broken: Option<String>,
    waves: Waves,
    /// Where this rank's PE records (another rank), and when it last
    /// shipped its events.
    record: Option<Arc<dyn Sink>>,
    shipped: Instant,
    /// The other ranks' events, replayed into the main rank's outputs.
    pub replays: Vec<Option<Replay>>,
    pub ending: Ending,
    /// When each rank was last heard from, and whether they beat
    /// (`transport::heartbeat`).
    heard: Vec<Instant>,
    pub beating: bool,
}

/// The main rank's waves.
#[derive(Default)]
struct Waves {
    /// The wave under way (its number) and its readings so far.
    current: u64,
    readings: Vec<Option<Reading>>,
    under_way: bool,
    started: Option<Instant>,
    /// The last complete wave's readings, if every PE was quiescent.
    last: Option<Vec<Reading>>,
    deadlock: bool,
}

impl<'a> MpiLink<'a> {
    pub fn new(t: Transport, census: &'a Census, record: Option<Arc<dyn Sink>>) -> Self {
        let n = t.size;
        MpiLink {
            t,
            census,
            in_flight: vec![Flight::default(); n],
            queued: vec![VecDeque::new(); n],
            taken: vec![Flight::default(); n],
            inbox: VecDeque::new(),
            broken: None,
            waves: Waves {
                readings: vec![None; n],
                ..Waves::default()
            },
            record,
            shipped: Instant::now(),
            replays: (0..n).map(|_| None).collect(),
            ending: Ending {
                reports: vec![None; n],
                verdict: None,
            },
            heard: vec![Instant::now(); n],
            beating: false,
        }
    }

    /// Takes in what has arrived: envelopes into the inbox, the engine's
    /// own messages handled here. Whether anything arrived.
    pub fn pump(&mut self) -> bool {
        let mut any = false;
        while let Some(a) = self.t.poll() {
            any = true;
            let from = match &a {
                Ok(a) => a.from,
                Err((from, _)) => *from,
            };
            if self.beating && from < self.heard.len() {
                self.heard[from] = Instant::now();
            }
            let taken = a.map_err(|(from, e)| format!("a malformed message from PE {from}: {e}"));
            if let Err(e) = taken.and_then(|a| self.take_in(a)) {
                self.broken.get_or_insert(e);
            }
        }
        if self.beating {
            self.check_alive();
        }
        if self.record.is_some() && self.t.rank != 0 && self.shipped.elapsed() >= SHIP_EVERY {
            self.ship_events();
        }
        any
    }

    fn take_in(&mut self, a: Arrival) -> Result<(), String> {
        let from = a.from;
        let bad = |what: String| format!("a malformed message from PE {from}: {what}");
        let mut rest = &a.bytes[..];
        let mut word = || take_word(&mut rest).ok_or_else(|| bad("cut short".into()));
        match a.tag {
            Some(Tag::Envelope) => {
                let env = Envelope::from_wire(a.bytes).map_err(bad)?;
                if env.from.0 as usize != from || env.to.0 as usize != self.t.rank {
                    return Err(bad(format!(
                        "an envelope from PE {} to PE {}",
                        env.from.0, env.to.0
                    )));
                }
                self.took(from, env);
            }
            Some(Tag::Window) => {
                let (k, bytes) = (word()? as usize, word()? as usize);
                let f = &mut self.in_flight[from];
                f.envelopes = f.envelopes.saturating_sub(k);
                f.bytes = f.bytes.saturating_sub(bytes);
                self.send_queued(from);
            }
            Some(Tag::Wave) => {
                let n = word()?;
                let (q, s, h) = self.census.reading();
                let mut b = Vec::new();
                for w in [n, q as u64, s, h] {
                    put_word(&mut b, w);
                }
                self.t.send(from, Tag::Reading, b);
            }
            Some(Tag::Reading) => {
                let (n, q, s, h) = (word()?, word()?, word()?, word()?);
                if n == self.waves.current && self.waves.under_way {
                    self.waves.readings[from] = Some((q != 0, s, h));
                }
            }
            Some(Tag::Events) => {
                let events: Vec<Stamped> =
                    postcard::from_bytes(&a.bytes).map_err(|e| bad(format!("events: {e}")))?;
                if let Some(r) = self.replays.get_mut(from).and_then(Option::as_mut) {
                    for s in &events {
                        r.record(s.t, &s.event);
                    }
                }
            }
            Some(Tag::Report) => self.ending.reports[from] = Some(a.bytes),
            Some(Tag::Verdict) => self.ending.verdict = Some(word()? as i32),
            Some(Tag::Alive) => {}
            Some(Tag::Clock) | None => return Err(bad("of an unknown kind".into())),
        }
        Ok(())
    }

    /// Ends the whole run when a rank that should beat has been silent
    /// for [`LOST`]: rank 0 watches every other rank until it has its
    /// report, the others watch rank 0 until its verdict.
    fn check_alive(&self) {
        let silent = |k: usize| self.heard[k].elapsed() > LOST;
        let lost = if self.t.rank == 0 {
            (1..self.t.size).find(|&k| self.ending.reports[k].is_none() && silent(k))
        } else {
            (self.ending.verdict.is_none() && silent(0)).then_some(0)
        };
        if let Some(k) = lost {
            eprintln!("gph: PE {k} lost");
            // MPI_Abort asks mpirun, through PMIx, to end the job. Under
            // load that request was once refused (PMIX BAD-PARAM) and the
            // rank stayed in MPI_Abort, so the run hung (1 run in 9 of
            // tests/mpi.rs's killed rank): this process ends regardless
            // (`_exit`: no exit handlers of MPI's that could wait too).
            std::thread::spawn(|| {
                std::thread::sleep(ABORT_GRACE);
                // SAFETY: _exit ends the process at once; nothing of this
                // process runs after it.
                unsafe { libc::_exit(1) }
            });
            // MPI cannot go on without it: every rank ends, status 1.
            SimpleCommunicator::world().abort(1);
        }
    }

    /// An envelope from `from` arrived: into the inbox; the sender's
    /// window opens by what came once that is a quarter of it.
    fn took(&mut self, from: usize, env: Envelope) {
        let t = &mut self.taken[from];
        t.envelopes += 1;
        t.bytes += env.size();
        self.inbox.push_back(env);
        if t.due() {
            let mut b = Vec::new();
            put_word(&mut b, t.envelopes as u64);
            put_word(&mut b, t.bytes as u64);
            *t = Flight::default();
            self.t.send(from, Tag::Window, b);
        }
    }

    /// Sends what waits for rank `to` while its window is open.
    fn send_queued(&mut self, to: usize) {
        loop {
            let f = &mut self.in_flight[to];
            let Some(size) = self.queued[to].front().map(Envelope::size) else {
                break;
            };
            if !f.may_send(size) {
                break;
            }
            f.envelopes += 1;
            f.bytes += size;
            let env = self.queued[to].pop_front().expect("a queued envelope");
            self.t.send(to, Tag::Envelope, env.into_wire());
        }
    }

    /// An envelope that has arrived, if any.
    pub fn next_envelope(&mut self) -> Option<Envelope> {
        if self.inbox.is_empty() {
            self.pump();
        }
        self.inbox.pop_front()
    }

    /// Puts an envelope on its way (when the window lets it).
    pub fn send_envelope(&mut self, env: Envelope) {
        let to = env.to.0 as usize;
        self.queued[to].push_back(env);
        self.send_queued(to);
    }

    /// Sends this rank's recorded events to the main rank.
    pub fn ship_events(&mut self) {
        self.shipped = Instant::now();
        let Some(r) = &self.record else { return };
        let events = r.drain();
        if !events.is_empty() {
            let bytes = postcard::to_stdvec(&events).expect("events serialise");
            self.t.send(0, Tag::Events, bytes);
        }
    }

    /// The main rank's side of a wave, when its PE is quiescent: asks, or
    /// reads what was answered. Whether a deadlock is certain.
    fn wave(&mut self, pe: &Pe) -> bool {
        let mine = self.census.reading();
        if !mine.0 {
            self.waves.last = None;
            return false;
        }
        let w = &mut self.waves;
        if w.under_way {
            w.readings[0] = Some(mine);
            if w.readings.iter().any(Option::is_none) {
                return false;
            }
            w.under_way = false;
            let readings: Vec<Reading> = w.readings.iter().map(|r| r.unwrap()).collect();
            let quiet = readings.iter().all(|r| r.0)
                && readings.iter().map(|r| r.1).sum::<u64>()
                    == readings.iter().map(|r| r.2).sum::<u64>();
            if quiet && w.last.as_ref() == Some(&readings) {
                w.deadlock = true;
            }
            w.last = quiet.then_some(readings);
            return w.deadlock;
        }
        if w.started.is_some_and(|t| t.elapsed() < WAVE_EVERY) || pe.has_mail() {
            return false;
        }
        w.current += 1;
        w.under_way = true;
        w.started = Some(Instant::now());
        w.readings.iter_mut().for_each(|r| *r = None);
        let n = w.current;
        for k in 1..self.t.size {
            let mut b = Vec::new();
            put_word(&mut b, n);
            self.t.send(k, Tag::Wave, b);
        }
        false
    }
}

impl Link for MpiLink<'_> {
    fn try_recv(&mut self, _: &Pe) -> Option<Envelope> {
        self.next_envelope()
    }

    fn recv_timeout(&mut self, pe: &Pe, d: Duration) -> Option<Envelope> {
        let start = Instant::now();
        loop {
            if let Some(env) = self.try_recv(pe) {
                return Some(env);
            }
            if self.broken.is_some() || self.t.rank == 0 && self.wave(pe) {
                return None;
            }
            let waited = start.elapsed();
            if waited >= d {
                return None;
            }
            if waited < SPIN {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(50).min(d - waited));
            }
        }
    }

    fn send(&mut self, env: Envelope) {
        self.send_envelope(env)
    }

    fn deadlocked(&mut self, pe: &Pe) -> bool {
        self.t.rank == 0 && self.wave(pe)
    }

    fn broken(&mut self) -> Option<String> {
        self.broken.take()
    }
}
