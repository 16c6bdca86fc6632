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
use crate::parallel::protocol::codec::{Reader, Writer};
use crate::parallel::protocol::{MsgKind, Protocol};

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
    pub fn kind(&self) -> MsgKind {
        match self {
            Message::Create { .. } => MsgKind::Create,
            Message::Split { .. } => MsgKind::Split,
            Message::Head { .. } => MsgKind::Head,
            Message::Value { .. } => MsgKind::Value,
            Message::Terminate { .. } => MsgKind::Terminate,
            Message::Credit { .. } => MsgKind::Credit,
        }
    }

    /// The message as bytes (`codec`): a channel as its four parts.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new(self.kind());
        let chan = |w: &mut Writer, c: &Chan| {
            w.word(c.pe.0 as u64)
                .word(c.owner.0 as u64)
                .word(c.n as u64)
                .word(c.comp as u64);
        };
        match self {
            Message::Create { input, graph } => {
                chan(&mut w, input);
                w.graph(graph);
            }
            Message::Split {
                chan: c,
                thread,
                con,
                arity,
            } => {
                chan(&mut w, c);
                w.word(*thread as u64).word(*con as u64).word(*arity as u64);
            }
            Message::Head {
                chan: c,
                thread,
                graph,
            }
            | Message::Value {
                chan: c,
                thread,
                graph,
            } => {
                chan(&mut w, c);
                w.word(*thread as u64).graph(graph);
            }
            Message::Terminate { chan: c, thread } => {
                chan(&mut w, c);
                w.word(*thread as u64);
            }
            Message::Credit { chan: c, thread, n } => {
                chan(&mut w, c);
                w.word(*thread as u64).word(*n as u64);
            }
        }
        w.finish()
    }

    /// The Eden message `r` holds (its kind already read).
    pub fn read(r: &mut Reader) -> Result<Message, String> {
        let kind = r.kind();
        if kind.protocol() != Protocol::Eden {
            return Err(format!("{} is not Eden's", kind.name()));
        }
        let chan = Chan {
            pe: r.pe()?,
            owner: r.pe()?,
            n: r.word32()?,
            comp: u8::try_from(r.word()?).map_err(|_| "a channel's component over 255")?,
        };
        if kind == MsgKind::Create {
            return Ok(Message::Create {
                input: chan,
                graph: r.graph()?,
            });
        }
        // Every other message names its sending thread.
        let thread = r.word32()?;
        let m = match kind {
            MsgKind::Split => Message::Split {
                chan,
                thread,
                con: r.word32()?,
                arity: r.word32()?,
            },
            MsgKind::Head => Message::Head {
                chan,
                thread,
                graph: r.graph()?,
            },
            MsgKind::Value => Message::Value {
                chan,
                thread,
                graph: r.graph()?,
            },
            MsgKind::Credit => Message::Credit {
                chan,
                thread,
                n: r.word32()?,
            },
            MsgKind::Terminate => Message::Terminate { chan, thread },
            _ => unreachable!("{} is CREATE or not Eden's", kind.name()),
        };
        r.end()?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::ids::PeId;
    use crate::parallel::protocol::codec::check_round_trip;

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
                graph: crate::parallel::pack::sample_graph(),
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
                graph: crate::parallel::pack::sample_graph(),
            },
            Message::Value {
                chan,
                thread: 6,
                graph: crate::parallel::pack::sample_graph(),
            },
            Message::Terminate { chan, thread: 8 },
            Message::Credit {
                chan,
                thread: 9,
                n: 1024,
            },
        ] {
            let decode = |b: &[u8]| Message::read(&mut Reader::open(b)?);
            check_round_trip(&m, &m.encode(), decode, false);
        }
    }

    #[test]
    fn truncated_messages_are_errors() {
        for k in [
            MsgKind::Create,
            MsgKind::Split,
            MsgKind::Head,
            MsgKind::Value,
            MsgKind::Terminate,
            MsgKind::Credit,
        ] {
            let bytes = [k as u8];
            assert!(Message::read(&mut Reader::open(&bytes).unwrap()).is_err());
        }
        let fish = [MsgKind::Fish as u8, 0, 0];
        assert!(Message::read(&mut Reader::open(&fish).unwrap()).is_err());
    }
}
