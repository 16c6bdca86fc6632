//! GUM's messages (DESIGN.md "Many PEs") and their fields as words (see
//! `protocol::codec`): a message crosses from one PE to another only as
//! bytes.
//!
//! | message | sent by | answer |
//! | --- | --- | --- |
//! | FISH | an idle PE, looking for work; forwarded at random while young | SCHEDULE, or the fish comes home |
//! | SCHEDULE | a PE with a spark to spare, to the fish's origin | ACK |
//! | FETCH | a thread entered a FetchMe: ask the owner for the node | RESUME (when the node is not under evaluation) |
//! | RESUME | the owner: the packed node | ACK |
//! | ACK | the receiver of moved thunks: their new addresses | — |
//! | FREE | after a GC: weight of dead remote references, to their owner | — |

use crate::parallel::ga::{GlobalAddr, Weight};
use crate::parallel::ids::PeId;
use crate::parallel::pack::PackedGraph;
use crate::parallel::protocol::{codec, Kind};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    Fish {
        origin: PeId,
        age: u32,
    },
    Schedule {
        graph: PackedGraph,
    },
    /// `reply` names the requester's FetchMe, with `weight` of it.
    Fetch {
        target: GlobalAddr,
        reply: GlobalAddr,
        weight: Weight,
    },
    /// `reply` is the slot (on the receiver) named in the FETCH; its weight
    /// comes back.
    Resume {
        reply: u32,
        weight: Weight,
        graph: PackedGraph,
    },
    /// For each moved thunk: its old slot on the receiver, its new address
    /// and the weight of it given to the old owner.
    Ack {
        moved: Vec<(u32, GlobalAddr, Weight)>,
    },
    Free {
        weights: Vec<(u32, Weight)>,
    },
}

fn ga_words(out: &mut Vec<u64>, ga: GlobalAddr) {
    out.push(ga.pe.0 as u64);
    out.push(ga.slot as u64);
}

impl Message {
    pub fn kind(&self) -> Kind {
        match self {
            Message::Fish { .. } => Kind::Fish,
            Message::Schedule { .. } => Kind::Schedule,
            Message::Fetch { .. } => Kind::Fetch,
            Message::Resume { .. } => Kind::Resume,
            Message::Ack { .. } => Kind::Ack,
            Message::Free { .. } => Kind::Free,
        }
    }

    /// The message as bytes: a kind word, then the fields as words.
    pub fn encode(&self) -> Vec<u8> {
        let mut w: Vec<u64> = Vec::new();
        match self {
            Message::Fish { origin, age } => w.extend([origin.0 as u64, *age as u64]),
            Message::Schedule { graph } => w.extend_from_slice(graph),
            Message::Fetch {
                target,
                reply,
                weight,
            } => {
                ga_words(&mut w, *target);
                ga_words(&mut w, *reply);
                w.push(weight.0);
            }
            Message::Resume {
                reply,
                weight,
                graph,
            } => {
                w.extend([*reply as u64, weight.0]);
                w.extend_from_slice(graph);
            }
            Message::Ack { moved } => {
                for (slot, ga, wt) in moved {
                    w.push(*slot as u64);
                    ga_words(&mut w, *ga);
                    w.push(wt.0);
                }
            }
            Message::Free { weights } => {
                for (slot, wt) in weights {
                    w.extend([*slot as u64, wt.0]);
                }
            }
        }
        codec::encode(self.kind(), &w)
    }

    /// A GUM message from its bytes.
    pub fn decode(bytes: &[u8]) -> Result<Message, String> {
        let (kind, fields) = codec::decode(bytes)?;
        Message::from_fields(kind, &fields)
    }

    /// A GUM message of kind `kind` from its fields.
    pub fn from_fields(kind: Kind, f: &[u64]) -> Result<Message, String> {
        let ga = |i: usize| GlobalAddr {
            pe: PeId(f[i] as u16),
            slot: f[i + 1] as u32,
        };
        let need = |n: usize| codec::need(kind, f, n);
        Ok(match kind {
            Kind::Fish => {
                need(2)?;
                Message::Fish {
                    origin: PeId(f[0] as u16),
                    age: f[1] as u32,
                }
            }
            Kind::Schedule => Message::Schedule { graph: f.to_vec() },
            Kind::Fetch => {
                need(5)?;
                Message::Fetch {
                    target: ga(0),
                    reply: ga(2),
                    weight: Weight(f[4]),
                }
            }
            Kind::Resume => {
                need(2)?;
                Message::Resume {
                    reply: f[0] as u32,
                    weight: Weight(f[1]),
                    graph: f[2..].to_vec(),
                }
            }
            Kind::Ack => Message::Ack {
                moved: f
                    .chunks_exact(4)
                    .map(|c| {
                        (
                            c[0] as u32,
                            GlobalAddr {
                                pe: PeId(c[1] as u16),
                                slot: c[2] as u32,
                            },
                            Weight(c[3]),
                        )
                    })
                    .collect(),
            },
            Kind::Free => Message::Free {
                weights: f
                    .chunks_exact(2)
                    .map(|c| (c[0] as u32, Weight(c[1])))
                    .collect(),
            },
            _ => return Err(format!("{} is not GUM's", kind.name())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_survives_encoding() {
        let ga = GlobalAddr {
            pe: PeId(3),
            slot: 77,
        };
        let all = vec![
            Message::Fish {
                origin: PeId(5),
                age: 3,
            },
            Message::Schedule {
                graph: vec![1, 2, 3],
            },
            Message::Fetch {
                target: ga,
                reply: GlobalAddr {
                    pe: PeId(1),
                    slot: 2,
                },
                weight: Weight(1 << 40),
            },
            Message::Resume {
                reply: 9,
                weight: Weight(4),
                graph: vec![],
            },
            Message::Ack {
                moved: vec![(1, ga, Weight(8)), (2, ga, Weight(16))],
            },
            Message::Free {
                weights: vec![(4, Weight(2)), (5, Weight(1 << 61))],
            },
        ];
        for m in all {
            let b = m.encode();
            assert_eq!(Message::decode(&b).unwrap(), m);
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for b in [
            &[][..],
            &[1, 2, 3],
            &[99, 0, 0, 0, 0, 0, 0, 0],
            &[2, 0, 0, 0, 0, 0, 0, 0],
            &[6, 0, 0, 0, 0, 0, 0, 0],
        ] {
            assert!(Message::decode(b).is_err());
        }
    }
}
