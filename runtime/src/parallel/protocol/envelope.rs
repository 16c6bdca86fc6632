//! The envelope: what a transport sees of a message. The payload is the
//! encoded message (its first word is its kind); the envelope adds who
//! sent it to whom and when, the kind again (so that an engine routes and
//! counts without decoding), how long to hold it back after it arrives,
//! and room for what a load policy piggybacks on every message (Grid-GUM2
//! sends its tables of PE loads that way). Only the payload and the
//! piggyback count as bytes sent.

use crate::parallel::ids::PeId;
use crate::parallel::protocol::MsgKind;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub from: PeId,
    pub to: PeId,
    /// The sender's clock when the message left, in seconds (virtual on
    /// the sim engine, wall since the start elsewhere); the driver sets it.
    pub sent_at: f64,
    pub kind: MsgKind,
    /// Held back this long after it arrives (Note [Fish delay] in
    /// `parallel/policy/mod.rs`).
    pub hold: Duration,
    pub payload: Vec<u8>,
    /// Data for the receiver's load policy; empty for `gum`.
    pub piggyback: Vec<u8>,
    /// The sender's number for it (its `Send` event's), 0 if none; not
    /// on the wire: only observers match sends with receipts by it.
    pub id: u64,
    /// A packet's messages' numbers (their `id`s), in order; empty for a
    /// message. Like `id`, not on the wire.
    pub carried: Vec<u64>,
}

impl Envelope {
    pub fn new(from: PeId, to: PeId, kind: MsgKind, payload: Vec<u8>) -> Envelope {
        Envelope {
            from,
            to,
            sent_at: 0.0,
            kind,
            hold: Duration::ZERO,
            payload,
            piggyback: Vec::new(),
            id: 0,
            carried: Vec::new(),
        }
    }

    /// Bytes on the wire: what transit times and the statistics count.
    pub fn size(&self) -> usize {
        self.payload.len() + self.piggyback.len()
    }
}
