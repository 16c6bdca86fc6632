//! The transport measured (`gph mpi-bench` under `mpirun -np 2`): the
//! engine's envelopes between two ranks (encoded, windowed, sent with
//! MPI_Isend, probed and decoded) against raw MPI (rsmpi's blocking send
//! and receive of the same bytes), for each message size: the latency
//! (half a round trip) and the throughput of a one-way stream.

use super::link::MpiLink;
use super::transport::Transport;
use crate::engine::Census;
use crate::parallel::ids::PeId;
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::MsgKind;
use mpi::collective::CommunicatorCollectives;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use std::time::Instant;

/// One message size's figures (rank 0's).
pub struct Row {
    pub bytes: usize,
    /// Microseconds, half a round trip.
    pub raw_latency: f64,
    pub engine_latency: f64,
    /// MB/s of a one-way stream.
    pub raw_throughput: f64,
    pub engine_throughput: f64,
}

const TAG: i32 = 77;

/// Raw MPI: `rounds` round trips of `bytes`, then a stream of `rounds`
/// messages one way and an acknowledgement: seconds for each.
fn raw(world: &SimpleCommunicator, bytes: usize, rounds: usize) -> (f64, f64) {
    let me = world.rank();
    let other = world.process_at_rank(1 - me);
    let msg = vec![7u8; bytes];
    let mut buf = vec![0u8; bytes];
    world.barrier();
    let t = Instant::now();
    for _ in 0..rounds {
        if me == 0 {
            other.send_with_tag(&msg[..], TAG);
            other.receive_into_with_tag(&mut buf[..], TAG);
        } else {
            other.receive_into_with_tag(&mut buf[..], TAG);
            other.send_with_tag(&msg[..], TAG);
        }
    }
    let ping = t.elapsed().as_secs_f64();
    world.barrier();
    let t = Instant::now();
    for _ in 0..rounds {
        if me == 0 {
            other.send_with_tag(&msg[..], TAG);
        } else {
            other.receive_into_with_tag(&mut buf[..], TAG);
        }
    }
    if me == 0 {
        other.receive_into_with_tag(&mut buf[..1.min(bytes)], TAG);
    } else {
        other.send_with_tag(&msg[..1.min(bytes)], TAG);
    }
    (ping, t.elapsed().as_secs_f64())
}

/// The engine's link: the same exchanges as envelopes of a HEAD whose
/// payload is `bytes` long.
fn engine(link: &mut MpiLink, bytes: usize, rounds: usize) -> (f64, f64) {
    let me = link.t.rank;
    let (mine, theirs) = (PeId(me as u16), PeId(1 - me as u16));
    let env = || Envelope::new(mine, theirs, MsgKind::Head, vec![7u8; bytes]);
    let recv = |link: &mut MpiLink| loop {
        if let Some(e) = link.next_envelope() {
            return e;
        }
    };
    SimpleCommunicator::world().barrier();
    let t = Instant::now();
    for _ in 0..rounds {
        if me == 0 {
            link.send_envelope(env());
            recv(link);
        } else {
            recv(link);
            link.send_envelope(env());
        }
    }
    let ping = t.elapsed().as_secs_f64();
    SimpleCommunicator::world().barrier();
    let t = Instant::now();
    if me == 0 {
        for _ in 0..rounds {
            link.send_envelope(env());
            link.pump();
        }
        recv(link);
    } else {
        for _ in 0..rounds {
            recv(link);
        }
        link.send_envelope(Envelope::new(mine, theirs, MsgKind::Head, vec![1]));
    }
    let stream = t.elapsed().as_secs_f64();
    link.t.drain();
    (ping, stream)
}

/// Measures every size on ranks 0 and 1 (others wait); rank 0's rows.
pub fn pingpong(sizes: &[usize], rounds: usize) -> Result<Vec<Row>, String> {
    let world = SimpleCommunicator::world();
    if world.size() != 2 {
        return Err("gph mpi-bench runs on two ranks: mpirun -np 2 gph mpi-bench".into());
    }
    let census = Census::distributed();
    let mut link = MpiLink::new(Transport::new(), &census, None);
    let mut rows = Vec::new();
    for &bytes in sizes {
        // Fewer rounds of large messages: each size takes about as long.
        let n = (rounds * 64 / (64 + bytes / 1024)).max(10);
        // A first pass to warm the connection and the allocator.
        raw(&world, bytes, n / 10);
        engine(&mut link, bytes, n / 10);
        let (raw_ping, raw_stream) = raw(&world, bytes, n);
        let (eng_ping, eng_stream) = engine(&mut link, bytes, n);
        let mbs = |s: f64| (bytes * n) as f64 / s / 1e6;
        rows.push(Row {
            bytes,
            raw_latency: raw_ping / n as f64 / 2.0 * 1e6,
            engine_latency: eng_ping / n as f64 / 2.0 * 1e6,
            raw_throughput: mbs(raw_stream),
            engine_throughput: mbs(eng_stream),
        });
    }
    link.t.drain();
    world.barrier();
    Ok(rows)
}
