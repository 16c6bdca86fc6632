//! GUM's messages (docs/design.md "Many PEs") and their fields as words (see
//! `protocol::codec`): a message crosses from one PE to another only as
//! bytes.
//!
//! | message | sent by | answer |
//! | --- | --- | --- |
//! | FISH | an idle PE, looking for work; forwarded at random while young | SCHEDULE, or the fish comes home |
//! | SCHEDULE | a PE with a spark to spare, to the fish's origin (Grid-GUM2: sometimes several) | ACK |
//! | FETCH | a thread entered a FetchMe: ask the owner for the node | RESUME (when the node is not under evaluation) |
//! | RESUME | the owner: the packed node | ACK |
//! | ACK | the receiver of moved thunks: their new addresses | — |
//! | FREE | after a GC: weight of dead remote references, to their owner | — |

use crate::parallel::ga::{GlobalAddr, Weight};
use crate::parallel::ids::PeId;
use crate::parallel::pack::PackedGraph;
use crate::parallel::protocol::codec::{Reader, Writer};
use crate::parallel::protocol::MsgKind;

/// A request for work, from `origin`, `age` hops old.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fish {
    pub origin: PeId,
    pub age: u32,
    /// The live threads `origin` held when it sent the fish (the victim
    /// keeps its spark from a fisher that holds more work than it would,
    /// `policy::gum`).
    pub threads: u32,
    /// `origin` had a thread to run: it fished below its low watermark.
    pub early: bool,
    /// `origin`'s number for this fish: a copy of an older one that comes
    /// home (a network that duplicates, `engine::faults`) is dropped, not
    /// taken for the fish that is out.
    pub serial: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    Fish(Fish),
    /// A spark, and under Grid-GUM2's super-schedule (`policy::gum2`)
    /// further sparks for the fisher's spark pool (`more`, empty for GUM).
    Schedule {
        graph: PackedGraph,
        more: Vec<PackedGraph>,
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

fn put_ga(w: &mut Writer, ga: GlobalAddr) {
    w.word(ga.pe.0 as u64).word(ga.slot as u64);
}

fn take_ga(r: &mut Reader) -> Result<GlobalAddr, String> {
    Ok(GlobalAddr {
        pe: r.pe()?,
        slot: r.word32()?,
    })
}

impl Message {
    pub fn kind(&self) -> MsgKind {
        match self {
            Message::Fish(_) => MsgKind::Fish,
            Message::Schedule { .. } => MsgKind::Schedule,
            Message::Fetch { .. } => MsgKind::Fetch,
            Message::Resume { .. } => MsgKind::Resume,
            Message::Ack { .. } => MsgKind::Ack,
            Message::Free { .. } => MsgKind::Free,
        }
    }

    /// The message as bytes (`codec`).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new(self.kind());
        match self {
            Message::Fish(f) => {
                w.word(f.origin.0 as u64)
                    .word(f.age as u64)
                    .word(f.threads as u64)
                    .word(f.early as u64)
                    .word(f.serial as u64);
            }
            Message::Schedule { graph, more } => {
                w.graph(graph);
                for g in more {
                    w.graph(g);
                }
            }
            Message::Fetch {
                target,
                reply,
                weight,
            } => {
                put_ga(&mut w, *target);
                put_ga(&mut w, *reply);
                w.word(weight.0);
            }
            Message::Resume {
                reply,
                weight,
                graph,
            } => {
                w.word(*reply as u64).word(weight.0).graph(graph);
            }
            Message::Ack { moved } => {
                for (slot, ga, wt) in moved {
                    w.word(*slot as u64);
                    put_ga(&mut w, *ga);
                    w.word(wt.0);
                }
            }
            Message::Free { weights } => {
                for (slot, wt) in weights {
                    w.word(*slot as u64).word(wt.0);
                }
            }
        }
        w.finish()
    }

    /// A GUM message from its bytes.
    pub fn decode(bytes: &[u8]) -> Result<Message, String> {
        Message::read(&mut Reader::open(bytes)?)
    }

    /// The GUM message `r` holds (its kind already read).
    pub fn read(r: &mut Reader) -> Result<Message, String> {
        let m = match r.kind() {
            MsgKind::Fish => Message::Fish(Fish {
                origin: r.pe()?,
                age: r.word32()?,
                threads: r.word32()?,
                early: r.word32()? != 0,
                serial: r.word32()?,
            }),
            MsgKind::Schedule => {
                let mut more = r.graphs()?;
                let graph = more.remove(0);
                Message::Schedule { graph, more }
            }
            MsgKind::Fetch => Message::Fetch {
                target: take_ga(r)?,
                reply: take_ga(r)?,
                weight: Weight(r.word()?),
            },
            MsgKind::Resume => Message::Resume {
                reply: r.word32()?,
                weight: Weight(r.word()?),
                graph: r.graph()?,
            },
            MsgKind::Ack => {
                let mut moved = Vec::new();
                while !r.at_end() {
                    moved.push((r.word32()?, take_ga(r)?, Weight(r.word()?)));
                }
                Message::Ack { moved }
            }
            MsgKind::Free => {
                let mut weights = Vec::new();
                while !r.at_end() {
                    weights.push((r.word32()?, Weight(r.word()?)));
                }
                Message::Free { weights }
            }
            k => return Err(format!("{} is not GUM's", k.name())),
        };
        r.end()?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::protocol::codec::check_round_trip;

    #[test]
    fn every_message_survives_encoding() {
        let ga = GlobalAddr {
            pe: PeId(3),
            slot: 77,
        };
        let all = vec![
            Message::Fish(Fish {
                origin: PeId(5),
                age: 3,
                threads: 2,
                early: true,
                serial: 9,
            }),
            Message::Schedule {
                graph: crate::parallel::pack::sample_graph(),
                more: vec![],
            },
            Message::Schedule {
                graph: crate::parallel::pack::sample_graph(),
                more: vec![
                    crate::parallel::pack::sample_graph(),
                    crate::parallel::pack::sample_graph(),
                ],
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
                graph: crate::parallel::pack::sample_graph(),
            },
            Message::Ack {
                moved: vec![(1, ga, Weight(8)), (2, ga, Weight(16))],
            },
            Message::Free {
                weights: vec![(4, Weight(2)), (5, Weight(1 << 61))],
            },
        ];
        for m in all {
            // ACK and FREE, lists, may also read as shorter lists, and a
            // SCHEDULE as fewer sparks.
            let lists = matches!(m, Message::Ack { .. } | Message::Free { .. })
                || matches!(&m, Message::Schedule { more, .. } if !more.is_empty());
            check_round_trip(&m, &m.encode(), Message::decode, lists);
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
