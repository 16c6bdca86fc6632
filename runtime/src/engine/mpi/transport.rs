//! Bytes between ranks: MPI's point-to-point messages, each of a kind
//! ([`Tag`]). Sends never block: each is an `MPI_Isend` whose buffer is
//! kept until MPI is done with it, so that two ranks sending each other
//! large messages (past the eager limit, which waits for the receiver)
//! cannot wait for each other.
//!
//! Receives are posted before the messages come. A message of up to
//! [`SMALL`] bytes travels whole, its kind in its last byte, under one
//! MPI tag (`WIRE_SMALL`), and lands in a buffer this rank has posted a
//! receive for: MPI moves it there as it arrives, and a poll tests one
//! request. A larger message is announced by a small one (its kind, with
//! [`BIG`] set) and follows under another tag (`WIRE_BULK`), received
//! into a buffer of its size, which becomes the message's bytes without a
//! copy. The announcement keeps the order: a sender's small messages are
//! received in the order it sent them (MPI matches one sender's messages
//! to one receive in order), and its large ones too, each when its
//! announcement is taken. The first form, a probe for any message and a
//! receive posted for what it found, cost two searches of MPI's queues a
//! message and, while waiting, a probe a poll: 16-byte round trips took
//! 2.8x raw MPI's.
//!
//! The safe `mpi` crate (rsmpi) runs the heartbeat and the bulk's probe;
//! the rest is its raw binding: its requests borrow their buffers for a
//! scope, and ours outlive the call that makes them; its receives
//! allocate zeroed buffers or match in a way that is slow for large
//! messages.

use mpi::datatype::Equivalence;
use mpi::ffi;
use mpi::point_to_point::Source;
use mpi::topology::{Communicator, SimpleCommunicator};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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

/// The MPI tags of the wire: whole small messages and announcements;
/// the bytes of large messages.
const WIRE_SMALL: c_int = 101;
const WIRE_BULK: c_int = 102;

/// The largest message that travels whole, its kind's byte included: the
/// posted receives' buffers, out of which it is copied. Open MPI's shared
/// memory sends up to 4 KiB eagerly; a larger message received into its
/// own buffer, which becomes its payload, saves a copy.
pub(crate) const SMALL: usize = 4096;

/// Receives posted ahead: a burst of small messages lands in them as it
/// comes, instead of in MPI's queue of unexpected messages and then,
/// copied again, in the one posted receive.
const POSTED: usize = 8;

/// Set in a small message's last byte: the message is large and follows.
const BIG: u8 = 0x80;

/// A message that arrived.
pub(crate) struct Arrival {
    pub from: usize,
    /// None: a kind gph does not send (a foreign or garbled message).
    pub tag: Option<Tag>,
    pub bytes: Vec<u8>,
}

/// This rank's end of the transport.
pub(crate) struct Transport {
    pub rank: usize,
    pub size: usize,
    /// Sends under way: their buffers and requests, side by side.
    buffers: Vec<Vec<u8>>,
    requests: Vec<ffi::MPI_Request>,
    /// MPI_Testsome's answer, kept to save an allocation a poll.
    done: Vec<c_int>,
    /// The posted receives of small messages and their buffers (unmoved
    /// on the heap while posted), a ring: MPI fills them in the order they
    /// were posted, `next` first. Its request is shared with `mail`, which
    /// asks whether it is complete without taking the message.
    posted: Vec<ffi::MPI_Request>,
    small: Vec<Vec<u8>>,
    next: usize,
    shared: Arc<AtomicUsize>,
}

impl Transport {
    pub fn new() -> Transport {
        let world = SimpleCommunicator::world();
        let mut t = Transport {
            rank: world.rank() as usize,
            size: world.size() as usize,
            buffers: Vec::new(),
            requests: Vec::new(),
            done: Vec::new(),
            // SAFETY: reading MPI's constant.
            posted: vec![unsafe { ffi::RSMPI_REQUEST_NULL }; POSTED],
            small: (0..POSTED).map(|_| Vec::with_capacity(SMALL)).collect(),
            next: 0,
            shared: Arc::new(AtomicUsize::new(0)),
        };
        for k in 0..POSTED {
            t.post(k);
        }
        t.share_next();
        t
    }

    /// Posts receive `k` of the ring again, for a small message from any
    /// rank.
    fn post(&mut self, k: usize) {
        let buffer = &mut self.small[k];
        buffer.clear();
        // SAFETY: the buffer (its capacity, SMALL bytes) stays allocated
        // and untouched until the request completes (`poll`) or is
        // cancelled (`drop`).
        unsafe {
            ffi::MPI_Irecv(
                buffer.as_mut_ptr() as *mut _,
                SMALL as c_int,
                ffi::RSMPI_UINT8_T,
                ffi::RSMPI_ANY_SOURCE,
                WIRE_SMALL,
                ffi::RSMPI_COMM_WORLD,
                &mut self.posted[k],
            );
        }
    }

    fn share_next(&self) {
        self.shared
            .store(self.posted[self.next].0 as usize, Ordering::Relaxed);
    }

    /// Starts sending `bytes` to `to`.
    pub fn send(&mut self, to: usize, tag: Tag, mut bytes: Vec<u8>) {
        if bytes.len() < SMALL {
            bytes.push(tag as u8);
            self.isend(to, WIRE_SMALL, bytes);
        } else {
            self.isend(to, WIRE_SMALL, vec![tag as u8 | BIG]);
            self.isend(to, WIRE_BULK, bytes);
        }
    }

    fn isend(&mut self, to: usize, wire: c_int, bytes: Vec<u8>) {
        let mut request = unsafe { ffi::RSMPI_REQUEST_NULL };
        // SAFETY: the buffer stays in `buffers`, unmoved on the heap and
        // unchanged, until MPI says this request is complete.
        unsafe {
            ffi::MPI_Isend(
                bytes.as_ptr() as *const _,
                bytes.len() as c_int,
                ffi::RSMPI_UINT8_T,
                to as c_int,
                wire,
                ffi::RSMPI_COMM_WORLD,
                &mut request,
            );
        }
        // A small message leaves at once (MPI's eager protocol copies it
        // out): its buffer goes now, and later polls have one request
        // fewer to test.
        let mut done: c_int = 0;
        // SAFETY: the request is live; MPI_Test frees it when complete.
        unsafe { ffi::MPI_Test(&mut request, &mut done, ffi::RSMPI_STATUS_IGNORE) };
        if done == 0 {
            self.buffers.push(bytes);
            self.requests.push(request);
        }
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

    /// A message that has arrived, if any (and sends move on); an error
    /// names the sender of a malformed one.
    pub fn poll(&mut self) -> Option<Result<Arrival, (usize, String)>> {
        self.progress();
        let mut done: c_int = 0;
        // SAFETY: zeroed is a valid MPI_Status (plain integers).
        let mut status: ffi::MPI_Status = unsafe { std::mem::zeroed() };
        let k = self.next;
        // SAFETY: the request is live (posted again at once after each
        // message); MPI_Test frees it when complete.
        unsafe { ffi::MPI_Test(&mut self.posted[k], &mut done, &mut status) };
        if done == 0 {
            return None;
        }
        self.next = (k + 1) % POSTED;
        let from = status.MPI_SOURCE;
        let mut n: c_int = 0;
        // SAFETY: the status of a completed receive.
        unsafe { ffi::MPI_Get_count(&status, ffi::RSMPI_UINT8_T, &mut n) };
        let n = (n.max(0) as usize).min(SMALL);
        // SAFETY: MPI wrote the n bytes of the message received.
        unsafe { self.small[k].set_len(n) };
        // The kind is the last byte; a small message's body is copied out
        // before its buffer is posted again.
        let last = self.small[k].last().copied();
        let body = match last {
            Some(b) if b & BIG == 0 => self.small[k][..n - 1].to_vec(),
            _ => Vec::new(),
        };
        self.post(k);
        self.share_next();
        Some(match last {
            None => Err((from as usize, "an empty message".to_string())),
            Some(b) if b & BIG != 0 => self.bulk(from, b & !BIG),
            Some(b) => Ok(Arrival {
                from: from as usize,
                tag: Tag::from_raw(b as c_int),
                bytes: body,
            }),
        })
    }

    /// The large message of kind `tag` that `from` announced: it was sent
    /// right after the announcement, so it has come or is coming.
    fn bulk(&mut self, from: c_int, tag: u8) -> Result<Arrival, (usize, String)> {
        let world = SimpleCommunicator::world();
        let source = world.process_at_rank(from);
        let waited = std::time::Instant::now();
        let status = loop {
            if let Some(s) = source.immediate_probe_with_tag(WIRE_BULK) {
                break s;
            }
            // A garbled announcement: nothing follows.
            if waited.elapsed() > BULK_WAIT {
                return Err((from as usize, "a large message that never came".into()));
            }
            std::hint::spin_loop();
        };
        let n = status.count(u8::equivalent_datatype()).max(0) as usize;
        let mut bytes: Vec<u8> = Vec::with_capacity(n);
        // SAFETY: MPI writes the n bytes of the message probed into the
        // buffer before MPI_Recv returns; only then is its length set.
        // Only this thread receives, so the message probed is the one
        // received.
        unsafe {
            ffi::MPI_Recv(
                bytes.as_mut_ptr() as *mut _,
                n as c_int,
                ffi::RSMPI_UINT8_T,
                from,
                WIRE_BULK,
                ffi::RSMPI_COMM_WORLD,
                ffi::RSMPI_STATUS_IGNORE,
            );
            bytes.set_len(n);
        }
        Ok(Arrival {
            from: from as usize,
            tag: Tag::from_raw(tag as c_int),
            bytes,
        })
    }

    /// Says whether a message waits to be received, without receiving it
    /// (the reducer's look at its mail, `Pe::poll_mail`), on this thread.
    pub fn mail(&self) -> impl Fn() -> bool + Send + 'static {
        let shared = Arc::clone(&self.shared);
        move || {
            let request = ffi::MPI_Request(shared.load(Ordering::Relaxed) as *mut _);
            if request.0.is_null() {
                return false;
            }
            let mut flag: c_int = 0;
            // SAFETY: the request posted last, live until `poll` takes
            // it, which runs on the same thread as this; MPI_Request_get_
            // status does not free it.
            unsafe {
                ffi::MPI_Request_get_status(request, &mut flag, ffi::RSMPI_STATUS_IGNORE);
            }
            flag != 0
        }
    }

    /// Waits until every send is done.
    pub fn drain(&mut self) {
        while !self.requests.is_empty() {
            self.progress();
            std::thread::yield_now();
        }
    }
}

/// How long a receiver waits for the large message an announcement
/// promised before it calls the announcement malformed.
const BULK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// The posted receive is cancelled before MPI ends.
impl Drop for Transport {
    fn drop(&mut self) {
        self.shared.store(0, Ordering::Relaxed);
        for r in &mut self.posted {
            // SAFETY: the request is live; MPI_Wait frees it once
            // cancelled (or complete, if a message came first: it is
            // dropped).
            unsafe {
                if *r != ffi::RSMPI_REQUEST_NULL {
                    ffi::MPI_Cancel(r);
                    ffi::MPI_Wait(r, ffi::RSMPI_STATUS_IGNORE);
                }
            }
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
                    .send_with_tag(&[Tag::Alive as u8][..], WIRE_SMALL);
            }
            if stop.recv_timeout(HEARTBEAT) != Err(RecvTimeoutError::Timeout) {
                break;
            }
        }
    })
    .expect("a thread for the heartbeat")
}
