//! GUM's protocol between PEs driven by hand (no engine): the test moves
//! every message itself, from a PE's outbox (`take_outbox`) to the
//! destination's `receive` (docs/design.md "Many PEs").

mod common;
use common::*;

use gph_runtime::machine::heap::{h_info, h_size, header, kind, Heap, Ptr};
use gph_runtime::machine::io::Io;
use gph_runtime::machine::load::{load, Loaded};
use gph_runtime::machine::pe::Pe;
use gph_runtime::machine::scheduler::Step;
use gph_runtime::machine::thread::Thread;
use gph_runtime::parallel::ga::{GlobalAddr, Weight, WHOLE};
use gph_runtime::parallel::gum::message::{Fish, Message};
use gph_runtime::parallel::ids::PeId;
use gph_runtime::parallel::pack;
use gph_runtime::parallel::policy::gum::FISH_LIFE;
use gph_runtime::parallel::protocol::envelope::Envelope;
use gph_runtime::parallel::protocol::MsgKind;

/// A tiny program: a one-field constructor, a thunk supercombinator, and
/// a main that uses them.
struct Prog {
    p: Program,
    boxc: ConId,
    thunk: ScId,
}

fn program() -> Prog {
    let mut a = Asm::new();
    let boxc = a.con("Test.Box", 0, 1, 1);
    let thunk = a.thunk(
        "Test.t",
        1,
        1,
        0,
        vec![Eval { reg: r(0) }, Ret { reg: r(0) }],
    );
    a.main_printing(
        vec![
            ConstV { dst: v(0), bits: 7 },
            BoxInt {
                dst: r(2),
                src: v(0),
            },
            MkThunk {
                dst: r(1),
                sc: thunk,
                args: regs(&[2]),
            },
        ],
        4,
        1,
    );
    Prog {
        p: a.p,
        boxc,
        thunk,
    }
}

/// `n` PEs of one machine, numbered 0..n.
fn make_pes<'p>(l: &'p Loaded<'p>, n: usize) -> Vec<Pe<'p, 'static>> {
    (0..n)
        .map(|k| {
            let tuning = Tuning {
                initial_heap_words: 1 << 14,
                ..Tuning::default()
            };
            let mut pe = Pe::new(l, Io::elsewhere(), 64 << 20, false, None, tuning);
            pe.join(PeId(k as u16), n, 1.0, 42);
            pe.init_cafs().unwrap();
            pe
        })
        .collect()
}

/// A node with header `h` and payload `words` in `pe`'s heap.
fn alloc(pe: &mut Pe, h: u64, words: &[u64]) -> Ptr {
    pe.ensure(&mut Thread::empty(), Heap::node_words(h))
        .unwrap();
    pe.heap_mut().alloc_node(h, words).unwrap()
}

/// Unpacks `graph` in `pe`'s heap (after making room, as gum.rs does).
/// On `pe`: a thunk T (of 7) in a Box; (T, the Box).
fn boxed_thunk(prog: &Prog, l: &Loaded, pe: &mut Pe) -> (Ptr, Ptr) {
    let seven = l.int_box(7).unwrap();
    let t = alloc(pe, header(kind::THUNK, 1, prog.thunk.0), &[seven.0 as u64]);
    let c = alloc(pe, header(kind::CON, 1, prog.boxc.0), &[t.0 as u64]);
    (t, c)
}

fn unpack(pe: &mut Pe, graph: &[u64]) -> pack::Unpacked {
    pe.unpack_graph(graph).unwrap()
}

/// Packs the graph at `root` on `pe` (thunks stay home as FetchMes).
fn pack_here(pe: &mut Pe, root: Ptr) -> Vec<u64> {
    pe.pack_graph(root, pack::Moves::NONE)
}

/// A message in flight.
#[derive(Debug)]
struct Sent {
    from: usize,
    to: usize,
    msg: Message,
    env: Envelope,
}

/// Empties `pes[from]`'s outbox (decoding every message).
fn take(pes: &mut [Pe], from: usize) -> Vec<Sent> {
    pes[from]
        .take_outbox()
        .into_iter()
        .map(|env| Sent {
            from,
            to: env.to.0 as usize,
            msg: Message::decode(&env.payload).unwrap(),
            env,
        })
        .collect()
}

fn deliver(pes: &mut [Pe], s: &Sent) {
    pes[s.to].receive(&s.env).unwrap();
}

/// Delivers messages (oldest first) until no PE has any to send; the log
/// of what travelled.
fn pump(pes: &mut [Pe]) -> Vec<Sent> {
    let mut log = Vec::new();
    let mut queue: std::collections::VecDeque<Sent> = Default::default();
    for k in 0..pes.len() {
        queue.extend(take(pes, k));
    }
    while let Some(s) = queue.pop_front() {
        assert!(log.len() < 1000, "the messages never stop");
        deliver(pes, &s);
        queue.extend(take(pes, s.to));
        log.push(s);
    }
    log
}

fn kinds(sent: &[Sent]) -> Vec<MsgKind> {
    sent.iter().map(|s| s.msg.kind()).collect()
}

// ------------------------------------------------------------ 1. FISH

#[test]
fn a_fish_that_finds_no_work_comes_home_on_two_pes() {
    let prog = program();
    let l = load(&prog.p).unwrap();
    let mut pes = make_pes(&l, 2);
    assert_eq!(pes[1].step(None).unwrap(), Step::Idle);
    assert!(pes[1].fishing());
    assert_eq!(pes[1].stats().fish_sent, 1);
    let out = take(&mut pes, 1);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].to, 0);
    assert_eq!(
        out[0].msg,
        Message::Fish(Fish {
            origin: PeId(1),
            age: 0,
            threads: 0,
            early: false,
            serial: 1,
        })
    );
    // One FISH out at a time.
    assert_eq!(pes[1].step(None).unwrap(), Step::Idle);
    assert!(pes[1].take_outbox().is_empty());

    // PE0 has no sparks, and with two PEs there is nobody to forward to.
    deliver(&mut pes, &out[0]);
    let back = take(&mut pes, 0);
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].to, 1);
    assert!(matches!(
        back[0].msg,
        Message::Fish(Fish {
            origin: PeId(1),
            ..
        })
    ));
    assert_eq!(pes[0].stats().fish_forwarded, 0);

    deliver(&mut pes, &back[0]);
    assert!(!pes[1].fishing());
    assert_eq!(pes[1].stats().fish_failed, 1);
    assert!(pes[1].take_outbox().is_empty());
    assert!(pes[0].take_outbox().is_empty());
    // Idle again, PE1 fishes again.
    pes[1].step(None).unwrap();
    assert_eq!(kinds(&take(&mut pes, 1)), vec![MsgKind::Fish]);
    assert_eq!(pes[1].stats().fish_sent, 2);
    // A copy of the first fish (a network that duplicates) comes home:
    // the second is still out, and PE1 sends no third.
    deliver(&mut pes, &back[0]);
    assert!(pes[1].fishing());
    assert_eq!(pes[1].stats().fish_failed, 1);
    assert!(pes[1].take_outbox().is_empty());
}

#[test]
fn a_fish_is_forwarded_and_comes_home_after_its_life_on_three_pes() {
    let prog = program();
    let l = load(&prog.p).unwrap();
    let mut pes = make_pes(&l, 3);
    assert_eq!(pes[1].step(None).unwrap(), Step::Idle);
    let log = pump(&mut pes);
    // FISH_LIFE hops among the others (never to the origin), then home.
    assert_eq!(log.len(), FISH_LIFE as usize + 2, "{log:#?}");
    for (hop, s) in log.iter().enumerate() {
        let Message::Fish(Fish { origin, age, .. }) = s.msg else {
            panic!("not a FISH: {s:?}")
        };
        assert_eq!(origin, PeId(1));
        assert_eq!(age, (hop as u32).min(FISH_LIFE), "{log:#?}");
        assert_ne!(s.from, s.to);
        if hop <= FISH_LIFE as usize {
            assert_ne!(s.to, 1, "a young fish went home: {log:#?}");
        }
    }
    let last = log.last().unwrap();
    assert_eq!(last.to, 1);
    assert_ne!(last.from, 1);
    let forwarded = pes[0].stats().fish_forwarded + pes[2].stats().fish_forwarded;
    assert_eq!(forwarded, FISH_LIFE as u64);
    assert_eq!(pes[1].stats().fish_forwarded, 0);
    assert!(!pes[1].fishing());
    assert_eq!(pes[1].stats().fish_failed, 1);
    assert_eq!(pes[1].stats().fish_sent, 1);
    assert_eq!(pes[0].stats().fish_failed + pes[2].stats().fish_failed, 0);
}

// ------------------------------------------------------------ 2. FETCH

#[test]
fn a_fetch_that_finds_a_black_hole_waits_and_is_answered_on_update() {
    let prog = program();
    let l = load(&prog.p).unwrap();
    let mut pes = make_pes(&l, 2);

    // PE0: a black hole X (a thunk under evaluation) in a constructor,
    // sent to PE1: X stays home, PE1 gets a FetchMe for it.
    let x = alloc(&mut pes[0], header(kind::BLACKHOLE, 1, 0), &[0]);
    let c = alloc(
        &mut pes[0],
        header(kind::CON, 1, prog.boxc.0),
        &[x.0 as u64],
    );
    let graph = pack_here(&mut pes[0], c);
    assert_eq!(pes[0].ga().owned_count(), 1);
    let u = unpack(&mut pes[1], &graph);
    assert_eq!(pes[1].heap().kind(u.root), kind::CON);
    let fm = pes[1].heap().field(u.root, 0);
    assert_eq!(pes[1].heap().kind(fm), kind::FETCHME);
    let remote = pes[1].ga().remote(h_info(pes[1].heap().hdr(fm))).clone();
    assert_eq!(pes[0].ga().owned_node(remote.ga.slot), Some(x));

    // A thread on PE1 enters the FetchMe: it blocks, and PE1 sends a FETCH;
    // left without work, it also goes fishing.
    pes[1].spawn(l.spark_entry, &[fm]);
    assert!(matches!(pes[1].step(None).unwrap(), Step::Ran(_)));
    assert_eq!(pes[1].stats().fetches, 1);
    assert_eq!(pes[1].blocked_threads(), 1);
    let out = take(&mut pes, 1);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[1].msg.kind(), MsgKind::Fish, "{out:?}");
    assert_eq!(out[0].to, 0);
    let Message::Fetch { target, reply, .. } = out[0].msg else {
        panic!("not a FETCH: {:?}", out[0])
    };
    assert_eq!(target, remote.ga);
    assert_eq!(reply.pe, PeId(1));
    assert_eq!(pes[1].ga().owned_node(reply.slot), Some(fm));

    // PE0: the FETCH finds the black hole and waits, also across a round
    // of the scheduler and a GC on either side.
    deliver(&mut pes, &out[0]);
    assert!(pes[0].take_outbox().is_empty());
    assert_eq!(pes[0].step(None).unwrap(), Step::Idle);
    let quiet = take(&mut pes, 0);
    assert!(
        quiet.iter().all(|s| s.msg.kind() == MsgKind::Fish),
        "answered before the update: {quiet:?}"
    );
    pes[0].gc(&mut Thread::empty(), 0).unwrap();
    pes[1].gc(&mut Thread::empty(), 0).unwrap();
    assert!(pes[0].take_outbox().is_empty() && pes[1].take_outbox().is_empty());
    let x = pes[0].ga().owned_node(target.slot).unwrap();
    assert_eq!(pes[0].heap().kind(x), kind::BLACKHOLE);
    let fm = pes[1].ga().owned_node(reply.slot).unwrap();
    assert_eq!(pes[1].heap().kind(fm), kind::FETCHME);

    // The black hole is updated: the FETCH is answered in the next round.
    let val = alloc(&mut pes[0], header(kind::INT, 1, 0), &[1000]);
    pes[0].update(x, val);
    assert!(pes[0].take_outbox().is_empty());
    pes[0].step(None).unwrap();
    let out = take(&mut pes, 0);
    let resumes: Vec<&Sent> = out
        .iter()
        .filter(|s| s.msg.kind() == MsgKind::Resume)
        .collect();
    assert_eq!(resumes.len(), 1, "{out:?}");
    assert_eq!(resumes[0].to, 1);
    assert!(matches!(resumes[0].msg, Message::Resume { reply: r, .. } if r == reply.slot));

    // PE1: the FetchMe is now the Int, and its thread runs again.
    deliver(&mut pes, resumes[0]);
    let v = pes[1].heap().deref(fm);
    assert_eq!(pes[1].heap().kind(v), kind::INT);
    assert_eq!(pes[1].heap().word(v, 0), 1000);
    assert!((pes[1].blocked_threads() == 0));
    assert_eq!(pes[1].runnable_threads(), 1);
    assert_eq!(
        pes[1].ga().owned_count(),
        0,
        "the reply address got its weight back"
    );
    // The address now names the copy (so it resolves here if it arrives
    // again) until the copy dies: then its weight goes home, and X is no
    // longer global.
    assert_eq!(pes[1].ga().remote_count(), 1);
    let again = pes[1].ga_mut().arrive(target, Weight(0)).unwrap().unwrap();
    assert_eq!(pes[1].heap().word(pes[1].heap().deref(again), 0), 1000);
    assert!(take(&mut pes, 1).is_empty());
    assert!(matches!(pes[1].step(None).unwrap(), Step::Ran(_)));
    assert!((pes[1].runnable_threads() == 0) && (pes[1].blocked_threads() == 0));
    pes[1].gc(&mut Thread::empty(), 0).unwrap();
    assert_eq!(pes[1].ga().remote_count(), 0);
    let frees = take(&mut pes, 1);
    assert_eq!(kinds(&frees), vec![MsgKind::Free]);
    deliver(&mut pes, &frees[0]);
    assert_eq!(pes[0].ga().owned_count(), 0);
}

// ------------------------------------------------------------ 3. GC and FREE

#[test]
fn gc_collects_a_global_closure_once_no_remote_reference_is_left() {
    let prog = program();
    let l = load(&prog.p).unwrap();
    let mut pes = make_pes(&l, 2);

    // PE0 sends Box T to PE1, T a thunk: T stays home behind a global
    // address.
    let (t, c) = boxed_thunk(&prog, &l, &mut pes[0]);
    let t_words = 1 + h_size(pes[0].heap().hdr(t));
    let graph = pack_here(&mut pes[0], c);
    assert_eq!(pes[0].ga().owned_count(), 1);
    let u = unpack(&mut pes[1], &graph);
    let fm = pes[1].heap().field(u.root, 0);
    assert_eq!(pes[1].heap().kind(fm), kind::FETCHME);
    let ga = pes[1].ga().remote(h_info(pes[1].heap().hdr(fm))).ga;
    assert_eq!(ga.pe, PeId(0));
    assert_eq!(pes[0].ga().owned_node(ga.slot), Some(t));

    // While PE1 holds it, T is a root on PE0 (nothing else refers to it).
    pes[0].gc(&mut Thread::empty(), 0).unwrap();
    let t = pes[0].ga().owned_node(ga.slot).expect("T is still global");
    assert_eq!(pes[0].heap().kind(t), kind::THUNK);
    assert_eq!(h_info(pes[0].heap().hdr(t)), prog.thunk.0);
    let live = pes[0].heap().live_words();
    assert!(live >= t_words);
    assert!(pes[0].take_outbox().is_empty());

    // PE1 drops the Box: its GC sends the FetchMe's weight home.
    pes[1].gc(&mut Thread::empty(), 0).unwrap();
    assert_eq!(pes[1].ga().remote_count(), 0);
    let out = take(&mut pes, 1);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].to, 0);
    let Message::Free { weights } = &out[0].msg else {
        panic!("not a FREE: {:?}", out[0])
    };
    assert_eq!(weights.len(), 1);
    assert_eq!(weights[0].0, ga.slot);

    deliver(&mut pes, &out[0]);
    assert_eq!(pes[0].ga().owned_count(), 0);
    assert_eq!(pes[0].ga().owned_node(ga.slot), None);
    assert!(pes[0].take_outbox().is_empty());
    pes[0].gc(&mut Thread::empty(), 0).unwrap();
    assert_eq!(
        pes[0].heap().live_words(),
        live - t_words,
        "T survived the GC"
    );
}

// ------------------------------------------------------------ 4. weights

/// The weight of `ga` everywhere: at home, in the other PEs' FetchMes and
/// in the messages `flying`.
fn weight_everywhere(pes: &[Pe], ga: GlobalAddr, flying: &[Sent]) -> u64 {
    let home = pes[ga.pe.0 as usize]
        .ga()
        .owned_weight(ga.slot)
        .expect("the slot is live")
        .0;
    let held: u64 = pes
        .iter()
        .filter_map(|pe| pe.ga().remote_of(ga).map(|i| pe.ga().remote(i).weight.0))
        .sum();
    let in_flight: u64 = flying
        .iter()
        .filter(|s| s.to == ga.pe.0 as usize)
        .map(|s| match &s.msg {
            Message::Free { weights } => weights
                .iter()
                .filter(|(slot, _)| *slot == ga.slot)
                .map(|(_, w)| w.0)
                .sum::<u64>(),
            m => panic!("unexpected {m:?}"),
        })
        .sum();
    home + held + in_flight
}

#[test]
fn weight_is_conserved_through_a_round_trip() {
    let prog = program();
    let l = load(&prog.p).unwrap();
    let mut pes = make_pes(&l, 3);
    let (t, c) = boxed_thunk(&prog, &l, &mut pes[0]);

    // PE0 → PE1, twice (the second copy shares PE1's FetchMe).
    let p1 = pack_here(&mut pes[0], c);
    let u1 = unpack(&mut pes[1], &p1);
    let fm1 = pes[1].heap().field(u1.root, 0);
    let ga = pes[1].ga().remote(h_info(pes[1].heap().hdr(fm1))).ga;
    assert_eq!(pes[0].ga().owned_weight(ga.slot).unwrap().0, WHOLE.0 / 2);
    assert_eq!(weight_everywhere(&pes, ga, &[]), WHOLE.0);
    let p1b = pack_here(&mut pes[0], c);
    let u1b = unpack(&mut pes[1], &p1b);
    assert_eq!(pes[1].heap().field(u1b.root, 0), fm1);
    assert_eq!(pes[1].ga().remote_count(), 1);
    assert_eq!(weight_everywhere(&pes, ga, &[]), WHOLE.0);

    // PE1 → PE2: PE1 splits its weight.
    let p2 = pack_here(&mut pes[1], u1.root);
    let u2 = unpack(&mut pes[2], &p2);
    assert_eq!(
        pes[2].heap().kind(pes[2].heap().field(u2.root, 0)),
        kind::FETCHME
    );
    assert_eq!(weight_everywhere(&pes, ga, &[]), WHOLE.0);

    // PE2 → PE0: the FetchMe is T again at home, its weight with it.
    let p0 = pack_here(&mut pes[2], u2.root);
    let home_before = pes[0].ga().owned_weight(ga.slot).unwrap().0;
    let u0 = unpack(&mut pes[0], &p0);
    assert_eq!(pes[0].heap().field(u0.root, 0), t);
    assert!(pes[0].ga().owned_weight(ga.slot).unwrap().0 > home_before);
    assert_eq!(weight_everywhere(&pes, ga, &[]), WHOLE.0);
    assert_eq!(pes[0].ga().owned_count(), 1);

    // PE1 and PE2 drop everything: their GCs send FREEs (counted while
    // they fly).
    pes[1].gc(&mut Thread::empty(), 0).unwrap();
    let mut flying = take(&mut pes, 1);
    assert_eq!(weight_everywhere(&pes, ga, &flying), WHOLE.0);
    pes[2].gc(&mut Thread::empty(), 0).unwrap();
    flying.extend(take(&mut pes, 2));
    assert_eq!(kinds(&flying), vec![MsgKind::Free, MsgKind::Free]);
    assert_eq!(pes[1].ga().remote_count() + pes[2].ga().remote_count(), 0);
    assert_eq!(weight_everywhere(&pes, ga, &flying), WHOLE.0);

    let last = flying.pop().unwrap();
    deliver(&mut pes, &flying[0]);
    assert_eq!(
        weight_everywhere(&pes, ga, std::slice::from_ref(&last)),
        WHOLE.0
    );
    assert_eq!(pes[0].ga().owned_count(), 1);
    // The last piece home: the slot is whole, hence freed.
    deliver(&mut pes, &last);
    assert_eq!(pes[0].ga().owned_weight(ga.slot), None);
    assert_eq!(pes[0].ga().owned_count(), 0);
    assert!(pes.iter_mut().all(|pe| pe.take_outbox().is_empty()));
}
