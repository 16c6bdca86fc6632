//! Bytes between ranks: MPI's point-to-point messages, each with a tag
//! that says what it is ([`Tag`]). Sends never block: each is an
//! `MPI_Isend` whose buffer is kept until MPI is done with it, so that two
//! ranks sending each other large messages (past the eager limit, which
//! waits for the receiver) cannot wait for each other. Receives take
//! whatever has arrived, from any rank, in the order each sender sent it
//! (MPI keeps the order of one sender's messages on one communicator when
//! the receive names no tag).
//!
//! The safe `mpi` crate (rsmpi) probes; sends and receives are its raw
//! binding: its requests borrow their buffers for a scope, and ours
//! outlive the call that makes them; its receives allocate zeroed
//! buffers or match in a way that is slow for large messages (`poll`).

use mpi::datatype::Equivalence;
use mpi::ffi;
use mpi::point_to_point::Source;
use mpi::topology::{Communicator, SimpleCommunicator};
use std::os::raw::c_int;

/// What a message between ranks is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tag {
    /// An envelope between PEs (`Envelope::encode`).
    Envelope = 1,
    /// The receiver took in this many envelopes: the sender's window
    /// opens as far (flow control, `link`).
    Window = 2,
    /// The main rank asks for a census reading (wave number).
    Wave = 3,
    /// A census reading: wave, quiescent, sent, handled.
    Reading = 4,
    /// Recorded events, for the main rank's files.
    Events = 5,
    /// A rank's end: its clock, times and statistics.
    Report = 6,
    /// The main rank's verdict: the exit status of every rank.
    Verdict = 7,
    /// Clock alignment at start-up.
    Clock = 8,
    /// A rank is alive (`heartbeat`).
    Alive = 9,
}

impl Tag {
    const ALL: [Tag; 9] = [
        Tag::Envelope,
        Tag::Window,
        Tag::Wave,
        Tag::Reading,
        Tag::Events,
        Tag::Report,
        Tag::Verdict,
        Tag::Clock,
        Tag::Alive,
    ];

    fn from_raw(t: c_int) -> Option<Tag> {
        Tag::ALL.into_iter().find(|&x| x as c_int == t)
    }
}

/// A message that arrived.
pub(crate) struct Arrival {
    pub from: usize,
    /// None: a tag gph does not send (a foreign or garbled message).
    pub tag: Option<Tag>,
    pub bytes: Vec<u8>,
}

/// This rank's end of the transport.
pub(crate) struct Transport {
    world: SimpleCommunicator,
    pub rank: usize,
    pub size: usize,
    /// Sends under way: their buffers and requests, side by side.
    buffers: Vec<Vec<u8>>,
    requests: Vec<ffi::MPI_Request>,
    /// MPI_Testsome's answer, kept to save an allocation a poll.
    done: Vec<c_int>,
}

impl Transport {
    pub fn new() -> Transport {
        let world = SimpleCommunicator::world();
        Transport {
            rank: world.rank() as usize,
            size: world.size() as usize,
            world,
            buffers: Vec::new(),
            requests: Vec::new(),
            done: Vec::new(),
        }
    }

    /// Starts sending `bytes` to `to`.
    pub fn send(&mut self, to: usize, tag: Tag, bytes: Vec<u8>) {
        let mut request = unsafe { ffi::RSMPI_REQUEST_NULL };
        // SAFETY: the buffer stays in `buffers`, unmoved on the heap and
        // unchanged, until MPI_Testsome says this request is complete.
        unsafe {
            ffi::MPI_Isend(
                bytes.as_ptr() as *const _,
                bytes.len() as c_int,
                ffi::RSMPI_UINT8_T,
                to as c_int,
                tag as c_int,
                ffi::RSMPI_COMM_WORLD,
                &mut request,
            );
        }
        self.buffers.push(bytes);
        self.requests.push(request);
    }

    /// Lets go of the buffers of the sends that are done.
    fn progress(&mut self) {
        if self.requests.is_empty() {
            return;
        }
        let mut done: c_int = 0;
        self.done.resize(self.requests.len(), 0);
        // SAFETY: the arrays are as long as the count given; finished
        // requests are set to MPI_REQUEST_NULL.
        unsafe {
            ffi::MPI_Testsome(
                self.requests.len() as c_int,
                self.requests.as_mut_ptr(),
                &mut done,
                self.done.as_mut_ptr(),
                ffi::RSMPI_STATUSES_IGNORE,
            );
        }
        if done > 0 {
            let null = unsafe { ffi::RSMPI_REQUEST_NULL };
            let mut k = 0;
            self.buffers.retain(|_| {
                let keep = self.requests[k] != null;
                k += 1;
                keep
            });
            self.requests.retain(|r| *r != null);
        }
    }

    /// A message that has arrived, if any (and sends move on).
    pub fn poll(&mut self) -> Option<Arrival> {
        self.progress();
        // A probe, then a receive posted for what it found: Open MPI moves
        // a large message with one copy between the processes into a
        // posted receive, where a matched probe's receive (MPI_Mrecv) took
        // five times as long at 64 KiB. Only this thread receives, so the
        // message probed is the one received.
        let status = self.world.any_process().immediate_probe()?;
        let (from, tag) = (status.source_rank(), status.tag());
        let n = status.count(u8::equivalent_datatype()) as usize;
        let mut bytes: Vec<u8> = Vec::with_capacity(n);
        // SAFETY: MPI writes the n bytes of the message probed into the
        // buffer before MPI_Recv returns; only then is its length set.
        unsafe {
            ffi::MPI_Recv(
                bytes.as_mut_ptr() as *mut _,
                n as c_int,
                ffi::RSMPI_UINT8_T,
                from,
                tag,
                ffi::RSMPI_COMM_WORLD,
                ffi::RSMPI_STATUS_IGNORE,
            );
            bytes.set_len(n);
        }
        Some(Arrival {
            from: from as usize,
            tag: Tag::from_raw(tag),
            bytes,
        })
    }

    /// Whether a message waits to be received.
    pub fn waiting() -> bool {
        SimpleCommunicator::world()
            .any_process()
            .immediate_probe()
            .is_some()
    }

    /// Waits until every send is done.
    pub fn drain(&mut self) {
        while !self.requests.is_empty() {
            self.progress();
            std::thread::yield_now();
        }
    }
}

/// How often a rank tells it is alive.
pub(crate) const HEARTBEAT: std::time::Duration = std::time::Duration::from_millis(250);

/// A thread that tells `to` every [`HEARTBEAT`] that this rank is alive,
/// whatever its PE is doing (rank 0's may wait for stdin for minutes),
/// until `stop` is dropped (at once: a sleep ending the run cost every run
/// up to a quarter of a second). It needs MPI's full thread support
/// (MPI_THREAD_MULTIPLE; `Session::start` asks for it); the link's polls
/// receive the beats.
pub(crate) fn heartbeat(
    to: Vec<usize>,
    stop: std::sync::mpsc::Receiver<()>,
) -> std::thread::JoinHandle<()> {
    // Named, so that a rank's heartbeat can be seen from outside
    // (tests/mpi.rs waits for it before it kills a rank).
    let beat = std::thread::Builder::new().name("gph-heartbeat".into());
    beat.spawn(move || {
        use mpi::point_to_point::Destination;
        use std::sync::mpsc::RecvTimeoutError;
        let world = SimpleCommunicator::world();
        loop {
            for &k in &to {
                world
                    .process_at_rank(k as i32)
                    .send_with_tag(&[0u8][..], Tag::Alive as i32);
            }
            if stop.recv_timeout(HEARTBEAT) != Err(RecvTimeoutError::Timeout) {
                break;
            }
        }
    })
    .expect("a thread for the heartbeat")
}
