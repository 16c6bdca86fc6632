//! Measuring what the sim charges, on the machine this runs on (`gph
//! calibrate`, which adds the reduction rate and the contention between
//! cores by running programs): the message path, the collector and an
//! idle PE's waking up, each by running the runtime's own code on data of
//! known size, many times over, and taking the median.
//!
//! * A message's cost to its sender: packing a graph and writing it in
//!   the wire's form (`pack::pack`, `pack::write_graph`) and putting the
//!   envelope on a channel; to its receiver: taking it off, reading the
//!   graph back and unpacking it into the heap (`read_graph`, `unpack`).
//!   Each is fitted as a fixed cost plus a cost per byte of the message
//!   (the sim charges by the message's size), from lists of Ints of 1 to
//!   4,096 elements.
//! * The collector's cost per word copied: a live list copied from one
//!   semispace to the other (`Heap::begin`, `evacuate`, `scan`).
//! * Waking: a message sent to a thread waiting on its channel, as an
//!   idle PE waits (`os_threads`), until that thread has it: the one-way
//!   latency between two PEs.

use crate::machine::heap::{header, kind, Heap, HeapBudget, Ptr};
use crate::parallel::ga::GaTable;
use crate::parallel::ids::PeId;
use crate::parallel::pack;
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::MsgKind;
use std::time::{Duration, Instant};

/// What was measured, in seconds.
#[derive(Clone, Debug)]
pub struct MessageCosts {
    /// The sender's cost of a message, and per byte of it.
    pub send: f64,
    pub send_byte: f64,
    /// The receiver's.
    pub receive: f64,
    pub receive_byte: f64,
}

/// A heap whose static area holds one nullary constructor, as the tests
/// of `pack` build (the list's `[]`).
fn heap(words: usize) -> Heap {
    let mut statics = vec![0u64; 8];
    statics[0] = header(kind::CON, 0, crate::code::NIL.0);
    Heap::new(statics, words, HeapBudget::of_words(words.max(1 << 20) * 8))
}

/// A list of `n` Ints in `h`.
fn int_list(h: &mut Heap, n: usize) -> Ptr {
    let mut list = Ptr(0);
    for i in 0..n {
        let x = h
            .alloc_node(header(kind::INT, 1, 0), &[i as u64 * 7919])
            .expect("room");
        list = h
            .alloc_node(
                header(kind::CON, 2, crate::code::CONS.0),
                &[x.0 as u64, list.0 as u64],
            )
            .expect("room");
    }
    list
}

/// The median of `runs` timings of `f`, each of `reps` calls, per call.
fn median_time(runs: usize, reps: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_secs_f64() / reps as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Least squares: `y = a + b x`.
fn fit(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x, sy + y));
    let (mx, my) = (sx / n, sy / n);
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(sxy, sxx), &(x, y)| {
        (sxy + (x - mx) * (y - my), sxx + (x - mx) * (x - mx))
    });
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    ((my - b * mx).max(0.0), b.max(0.0))
}

/// The costs of a message to its sender and its receiver.
pub fn message_costs() -> MessageCosts {
    let (tx, rx) = crossbeam_channel::unbounded::<Envelope>();
    let mut send = Vec::new();
    let mut receive = Vec::new();
    for n in [1usize, 16, 256, 4096] {
        let mut from = heap(1 << 18);
        let root = int_list(&mut from, n);
        let mut ga = GaTable::new(PeId(0));
        // Packed once to know its size and its bytes.
        let g = pack::pack(&mut from, &mut ga, &[], root, pack::Moves::NONE, 1 << 20);
        let mut wire = Vec::new();
        pack::write_graph(&g, &mut wire);
        let bytes = wire.len() as f64;
        let reps = (20_000 / n).max(4);
        let t_send = median_time(9, reps, || {
            let g = pack::pack(&mut from, &mut ga, &[], root, pack::Moves::NONE, 1 << 20);
            let mut bytes = Vec::new();
            pack::write_graph(&g, &mut bytes);
            let env = Envelope::new(PeId(0), PeId(1), MsgKind::Resume, bytes);
            let _ = tx.send(env);
            let _ = rx.try_recv();
        });
        let mut to = heap(1 << 20);
        let mut ga_to = GaTable::new(PeId(1));
        let mut raised = Vec::new();
        let t_receive = median_time(9, reps, || {
            let env = Envelope::new(PeId(0), PeId(1), MsgKind::Resume, wire.clone());
            let _ = tx.send(env);
            let env = rx.try_recv().expect("a message");
            let mut rest = &env.payload[..];
            let g = pack::read_graph(&mut rest).expect("a graph");
            if to.hp + g.len() * 2 > to.mem.len() {
                to = heap(1 << 20);
            }
            let _ = pack::unpack(&mut to, &mut ga_to, &mut raised, &g);
        });
        send.push((bytes, t_send));
        receive.push((bytes, t_receive));
    }
    let (s0, s1) = fit(&send);
    let (r0, r1) = fit(&receive);
    MessageCosts {
        send: s0,
        send_byte: s1,
        receive: r0,
        receive_byte: r1,
    }
}

/// Seconds per word the collector copies.
pub fn gc_word_cost() -> f64 {
    let n = 50_000;
    let mut h = heap(1 << 20);
    let mut root = int_list(&mut h, n);
    let mut copied = 0usize;
    let t = median_time(7, 4, || {
        h.begin();
        root = h.evacuate(root);
        h.scan();
        let _ = h.finish(0);
        copied = h.live_words();
    });
    t / copied.max(1) as f64
}

/// The one-way latency of a message to a thread that polls its channel,
/// as a busy PE does between slices: what the message's crossing from
/// one core to another costs.
pub fn latency() -> f64 {
    let (tx, rx) = crossbeam_channel::unbounded::<Instant>();
    let (back_tx, back_rx) = crossbeam_channel::unbounded::<f64>();
    let poller = std::thread::spawn(move || {
        let start = Instant::now();
        let mut got = 0;
        while got < 400 && start.elapsed() < Duration::from_secs(2) {
            if let Ok(sent) = rx.try_recv() {
                let _ = back_tx.send(sent.elapsed().as_secs_f64());
                got += 1;
            }
        }
    });
    let mut lat = Vec::new();
    for _ in 0..400 {
        let _ = tx.send(Instant::now());
        match back_rx.recv_timeout(Duration::from_secs(1)) {
            Ok(l) => lat.push(l),
            Err(_) => break,
        }
    }
    let _ = poller.join();
    lat.sort_by(f64::total_cmp);
    lat.get(lat.len() / 2).copied().unwrap_or(0.0)
}

/// The one-way latency of a message to a thread that waits on its
/// channel, as an idle PE does.
pub fn wake_latency() -> f64 {
    let (tx, rx) = crossbeam_channel::unbounded::<Instant>();
    let (back_tx, back_rx) = crossbeam_channel::unbounded::<f64>();
    let waiter = std::thread::spawn(move || {
        while let Ok(sent) = rx.recv_timeout(Duration::from_secs(2)) {
            let _ = back_tx.send(sent.elapsed().as_secs_f64());
        }
    });
    let mut lat = Vec::new();
    for _ in 0..400 {
        // Long enough for the waiter to be asleep again.
        std::thread::sleep(Duration::from_micros(200));
        let _ = tx.send(Instant::now());
        if let Ok(l) = back_rx.recv() {
            lat.push(l);
        }
    }
    drop(tx);
    let _ = waiter.join();
    lat.sort_by(f64::total_cmp);
    lat.get(lat.len() / 2).copied().unwrap_or(0.0)
}
