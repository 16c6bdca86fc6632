//! The wire's decoders against garbage (issue: a message from another
//! process, malformed or cut short, is an error, never a panic): a
//! million and more inputs, random bytes and valid envelopes mutated,
//! through everything a receiver decodes before a protocol acts: the
//! envelope, a packet's messages, each message's fields and packed
//! graphs, and a graph's entries and its unpacking into a heap.
//!
//! `GPH_FUZZ_INPUTS=N cargo test -p gph-runtime --release wire_decoders`
//! runs N inputs (default 1,200,000).

use crate::machine::heap::{header, kind, Heap, HeapBudget};
use crate::parallel::eden::{self, Chan};
use crate::parallel::ga::{GaTable, GlobalAddr, Weight};
use crate::parallel::gum::message::{Fish, Message};
use crate::parallel::ids::PeId;
use crate::parallel::pack::tests::Rng;
use crate::parallel::pack::{self, sample_graph, PackedGraph};
use crate::parallel::protocol::codec::Reader;
use crate::parallel::protocol::control::Control;
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::{packet, MsgKind, Protocol};

/// One of each kind of message, in envelopes, and a packet of several.
fn corpus() -> Vec<Vec<u8>> {
    let (a, b) = (PeId(1), PeId(0));
    let ga = GlobalAddr { pe: a, slot: 7 };
    let chan = Chan {
        pe: b,
        owner: a,
        n: 3,
        comp: 1,
    };
    let gum = [
        Message::Fish(Fish {
            origin: a,
            age: 2,
            threads: 1,
            early: true,
            serial: 4,
        }),
        Message::Schedule {
            graph: sample_graph(),
            more: vec![sample_graph()],
        },
        Message::Fetch {
            target: ga,
            reply: GlobalAddr { pe: b, slot: 2 },
            weight: Weight(1 << 20),
        },
        Message::Resume {
            reply: 4,
            weight: Weight(16),
            graph: sample_graph(),
        },
        Message::Ack {
            moved: vec![(3, ga, Weight(8))],
        },
        Message::Free {
            weights: vec![(1, Weight(2)), (5, Weight(9))],
        },
    ];
    let eden = [
        eden::message::Message::Create {
            input: chan,
            graph: sample_graph(),
        },
        eden::message::Message::Head {
            chan,
            thread: 2,
            graph: sample_graph(),
        },
        eden::message::Message::Split {
            chan,
            thread: 1,
            con: 0,
            arity: 2,
        },
        eden::message::Message::Credit {
            chan,
            thread: 1,
            n: 64,
        },
    ];
    let control = [
        Control::Finish,
        Control::Fail {
            message: "Prelude.head: empty list".into(),
        },
        Control::PeStatic {
            speed_millionths: 500_000,
        },
    ];
    let mut envs: Vec<Envelope> = gum
        .iter()
        .map(|m| Envelope::new(a, b, m.kind(), m.encode()))
        .chain(
            eden.iter()
                .map(|m| Envelope::new(a, b, m.kind(), m.encode())),
        )
        .chain(
            control
                .iter()
                .map(|m| Envelope::new(a, b, m.kind(), m.encode())),
        )
        .collect();
    envs[0].piggyback = vec![1, 0, 3, 9, 1, 0, 4, 2];
    let heads: Vec<Envelope> = envs
        .iter()
        .filter(|e| e.kind == MsgKind::Head)
        .cloned()
        .collect();
    let mut packet = packet::bundle(&[heads[0].clone(), heads[0].clone(), envs[1].clone()]);
    packet.carried = vec![1, 2, 3];
    envs.push(packet);
    envs.iter().map(Envelope::encode).collect()
}

/// What a receiver decodes of `bytes`; the input must not panic, and
/// whatever it is, it gives a result.
fn decode(bytes: &[u8], heap: &mut Heap, ga: &mut GaTable) -> bool {
    let Ok(env) = Envelope::decode(bytes) else {
        return false;
    };
    let messages = if env.kind == MsgKind::Packet {
        match packet::unbundle(&env) {
            Ok(ms) => ms,
            Err(_) => return false,
        }
    } else {
        vec![env]
    };
    let mut graphs: Vec<PackedGraph> = Vec::new();
    for m in &messages {
        let Ok(mut r) = Reader::open(&m.payload) else {
            continue;
        };
        match r.kind().protocol() {
            Protocol::Gum => match Message::read(&mut r) {
                Ok(Message::Schedule { graph, more }) => {
                    graphs.push(graph);
                    graphs.extend(more);
                }
                Ok(Message::Resume { graph, .. }) => graphs.push(graph),
                _ => {}
            },
            Protocol::Eden => match eden::message::Message::read(&mut r) {
                Ok(eden::message::Message::Create { graph, .. })
                | Ok(eden::message::Message::Head { graph, .. })
                | Ok(eden::message::Message::Value { graph, .. }) => graphs.push(graph),
                _ => {}
            },
            Protocol::Control => {
                let _ = Control::read(&mut r);
            }
            Protocol::Transport => {}
        }
    }
    for g in graphs {
        if let Ok(words) = pack::unpack_words(&g) {
            if words < 4096 {
                let mut raised = Vec::new();
                let _ = pack::unpack(heap, ga, &mut raised, &g);
            }
        }
    }
    true
}

/// A few bytes of `b` changed, flipped, cut off, inserted or made to
/// continue a LEB128 number.
fn mutate(b: &mut Vec<u8>, rng: &mut Rng) {
    for _ in 0..1 + rng.below(4) {
        match rng.below(5) {
            0 if !b.is_empty() => {
                let j = rng.below(b.len());
                b[j] = rng.byte();
            }
            1 if !b.is_empty() => {
                let j = rng.below(b.len());
                b[j] ^= 1 << rng.below(8);
            }
            2 => b.truncate(rng.below(b.len() + 1)),
            3 => {
                let j = rng.below(b.len() + 1);
                b.insert(j, rng.byte());
            }
            _ if !b.is_empty() => {
                let j = rng.below(b.len());
                b[j] |= 0x80;
            }
            _ => {}
        }
    }
}

#[test]
fn wire_decoders_survive_garbage() {
    let n: usize = std::env::var("GPH_FUZZ_INPUTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_200_000);
    let corpus = corpus();
    // Every envelope of the corpus decodes.
    let mut statics = vec![0u64; 8];
    statics[0] = header(kind::CON, 0, 0);
    let fresh = || Heap::new(statics.clone(), 1 << 16, HeapBudget::of_words(2 << 24));
    let mut heap = fresh();
    let mut ga = GaTable::new(PeId(0));
    for c in &corpus {
        assert!(decode(c, &mut heap, &mut ga), "the corpus decodes");
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut decoded = 0;
    for i in 0..n {
        let input: Vec<u8> = match i % 4 {
            // Random bytes.
            0 => {
                let len = rng.below(96);
                (0..len).map(|_| rng.byte()).collect()
            }
            // A valid envelope around a mutated message.
            1 => {
                let c = &corpus[rng.below(corpus.len())];
                let mut env = Envelope::decode(c).expect("the corpus decodes");
                mutate(&mut env.payload, &mut rng);
                env.encode()
            }
            // A valid envelope, mutated.
            _ => {
                let mut b = corpus[rng.below(corpus.len())].clone();
                mutate(&mut b, &mut rng);
                b
            }
        };
        if decode(&input, &mut heap, &mut ga) {
            decoded += 1;
        }
        if heap.live_words() > 1 << 15 {
            heap = fresh();
            ga = GaTable::new(PeId(0));
        }
    }
    // Mutations that still decode exercise the protocols' readers.
    assert!(decoded > n / 20, "only {decoded} of {n} inputs decoded");
}
