//! Eden's messages (docs/eden.md) and their fields as words (see
//! `protocol::codec`).
//!
//! | message | sent by | meaning |
//! | --- | --- | --- |
//! | CREATE | a parent instantiating a process | make the input inport `input`, run the packed closure on it |
//! | SPLIT | a sending thread whose value is a tuple | the value on `chan` is a tuple of `arity` channels (`con` is its constructor) |
//! | HEAD | a sending thread | one stream element on `chan`; the channel stays open |
//! | VALUE | a sending thread | the (last) value on `chan`; the channel closes |
//! | TERMINATE | the receiver, when `chan` died or is unknown | the sending thread `thread` stops at its next send |
//! | CREDIT | the receiver, every `CREDIT_EVERY` elements of a stream | the sending thread `thread` may send `n` more elements on `chan` |

use crate::parallel::eden::Chan;
use crate::parallel::pack::PackedGraph;
use crate::parallel::protocol::{codec, Kind, Protocol};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    Create {
        input: Chan,
        graph: PackedGraph,
    },
    Split {
        chan: Chan,
        thread: u32,
        con: u32,
        arity: u32,
    },
    Head {
        chan: Chan,
        thread: u32,
        graph: PackedGraph,
    },
    Value {
        chan: Chan,
        thread: u32,
        graph: PackedGraph,
    },
    Terminate {
        chan: Chan,
        thread: u32,
    },
    Credit {
        chan: Chan,
        thread: u32,
        n: u32,
    },
}

impl Message {
    pub fn kind(&self) -> Kind {
        match self {
            Message::Create { .. } => Kind::Create,
            Message::Split { .. } => Kind::Split,
            Message::Head { .. } => Kind::Head,
            Message::Value { .. } => Kind::Value,
            Message::Terminate { .. } => Kind::Terminate,
            Message::Credit { .. } => Kind::Credit,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = Vec::new();
        match self {
            Message::Create { input, graph } => {
                w.push(input.word());
                w.extend_from_slice(graph);
            }
            Message::Split {
                chan,
                thread,
                con,
                arity,
            } => w.extend([chan.word(), *thread as u64, *con as u64, *arity as u64]),
            Message::Head {
                chan,
                thread,
                graph,
            }
            | Message::Value {
                chan,
                thread,
                graph,
            } => {
                w.extend([chan.word(), *thread as u64]);
                w.extend_from_slice(graph);
            }
            Message::Terminate { chan, thread } => w.extend([chan.word(), *thread as u64]),
            Message::Credit { chan, thread, n } => {
                w.extend([chan.word(), *thread as u64, *n as u64])
            }
        }
        codec::encode(self.kind(), &w)
    }

    pub fn from_fields(kind: Kind, f: &[u64]) -> Result<Message, String> {
        if kind.protocol() != Protocol::Eden {
            return Err(format!("{} is not Eden's", kind.name()));
        }
        if kind == Kind::Create {
            codec::need(kind, f, 1)?;
            return Ok(Message::Create {
                input: Chan::from_word(f[0]),
                graph: f[1..].to_vec(),
            });
        }
        // Every other message names a channel and its sending thread.
        codec::need(kind, f, 2)?;
        let (chan, thread) = (Chan::from_word(f[0]), f[1] as u32);
        Ok(match kind {
            Kind::Split => {
                codec::need(kind, f, 4)?;
                Message::Split {
                    chan,
                    thread,
                    con: f[2] as u32,
                    arity: f[3] as u32,
                }
            }
            Kind::Head => Message::Head {
                chan,
                thread,
                graph: f[2..].to_vec(),
            },
            Kind::Value => Message::Value {
                chan,
                thread,
                graph: f[2..].to_vec(),
            },
            Kind::Credit => {
                codec::need(kind, f, 3)?;
                Message::Credit {
                    chan,
                    thread,
                    n: f[2] as u32,
                }
            }
            Kind::Terminate => Message::Terminate { chan, thread },
            _ => unreachable!("{} is CREATE or not Eden's", kind.name()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::ids::PeId;

    #[test]
    fn every_message_survives_encoding() {
        let chan = Chan {
            pe: PeId(3),
            owner: PeId(1),
            n: 77,
            comp: 2,
        };
        for m in [
            Message::Create {
                input: chan,
                graph: vec![1, 2, 3],
            },
            Message::Split {
                chan,
                thread: 4,
                con: 9,
                arity: 3,
            },
            Message::Head {
                chan,
                thread: 5,
                graph: vec![7],
            },
            Message::Value {
                chan,
                thread: 6,
                graph: vec![],
            },
            Message::Terminate { chan, thread: 8 },
            Message::Credit {
                chan,
                thread: 9,
                n: 1024,
            },
        ] {
            let (k, f) = codec::decode(&m.encode()).unwrap();
            assert_eq!(Message::from_fields(k, &f).unwrap(), m);
        }
    }

    #[test]
    fn truncated_messages_are_errors() {
        for k in [
            Kind::Create,
            Kind::Split,
            Kind::Head,
            Kind::Value,
            Kind::Terminate,
            Kind::Credit,
        ] {
            assert!(Message::from_fields(k, &[]).is_err());
        }
        assert!(Message::from_fields(Kind::Fish, &[0, 0]).is_err());
    }
}
