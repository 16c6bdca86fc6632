//! The envelope: what a transport sees of a message. The payload is the
//! encoded message (its first word is its kind); the envelope adds who
//! sent it to whom and when, the kind again (so that an engine routes and
//! counts without decoding), how long to hold it back after it arrives,
//! and room for what a load policy piggybacks on every message (Grid-GUM2
//! sends its tables of PE loads that way). Only the payload and the
//! piggyback count as bytes sent.

use crate::parallel::ids::PeId;
use crate::parallel::protocol::codec::{put_word, take_word};
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

    /// The envelope as bytes, for a transport between processes (`mpi`).
    /// The payload comes first, so that it leaves without a copy where its
    /// buffer has room and is taken back without one ([`from_wire`]); then
    /// the piggyback; then the fields in the codec's LEB128 (the clock and
    /// the hold as the bits of a double and nanoseconds; the observers'
    /// numbers too, so that a trace still draws its arrows; the lengths
    /// of the payload and the piggyback); last the fields' length, in four
    /// bytes. At 64 KiB the copies of the first form (fields first) took
    /// half the engine's time for a message.
    ///
    /// [`from_wire`]: Envelope::from_wire
    pub fn into_wire(self) -> Vec<u8> {
        // The fields are written in place after the piggyback: at most ten
        // bytes a word, nine words and the carried ones, and the length.
        let most = self.piggyback.len() + 10 * (9 + self.carried.len()) + 4;
        let mut out = self.payload;
        out.reserve(most);
        out.extend_from_slice(&self.piggyback);
        let start = out.len();
        for w in [
            self.from.0 as u64,
            self.to.0 as u64,
            self.kind as u64,
            self.sent_at.to_bits(),
            self.hold.as_nanos().min(u64::MAX as u128) as u64,
            self.id,
            self.carried.len() as u64,
        ] {
            put_word(&mut out, w);
        }
        for &c in &self.carried {
            put_word(&mut out, c);
        }
        let payload_len = start - self.piggyback.len();
        put_word(&mut out, payload_len as u64);
        put_word(&mut out, self.piggyback.len() as u64);
        let fields = (out.len() - start) as u32;
        out.extend_from_slice(&fields.to_le_bytes());
        out
    }

    /// [`Envelope::into_wire`] of a copy.
    pub fn encode(&self) -> Vec<u8> {
        self.clone().into_wire()
    }

    /// Reads what [`Envelope::into_wire`] wrote, keeping its buffer as
    /// the payload; every malformed or truncated envelope is an error,
    /// never a panic. Its payload is not looked into: its protocol decodes
    /// it, as it does every message.
    pub fn from_wire(mut bytes: Vec<u8>) -> Result<Envelope, String> {
        let total = bytes.len();
        let cut = || format!("a truncated envelope of {total} bytes");
        let Some(at) = total.checked_sub(4) else {
            return Err(cut());
        };
        let n = u32::from_le_bytes(bytes[at..].try_into().expect("four bytes")) as usize;
        let Some(start) = at.checked_sub(n) else {
            return Err(cut());
        };
        let mut rest = &bytes[start..at];
        let word = |rest: &mut &[u8]| take_word(rest).ok_or_else(cut);
        let pe = |w: u64| {
            u16::try_from(w)
                .map(PeId)
                .map_err(|_| format!("an envelope naming PE {w}"))
        };
        let from = pe(word(&mut rest)?)?;
        let to = pe(word(&mut rest)?)?;
        let k = word(&mut rest)?;
        let kind = *usize::try_from(k)
            .ok()
            .and_then(|k| MsgKind::ALL.get(k))
            .ok_or_else(|| format!("an envelope of unknown kind {k}"))?;
        let sent_at = f64::from_bits(word(&mut rest)?);
        if !sent_at.is_finite() {
            return Err("an envelope sent at no time".into());
        }
        let hold = Duration::from_nanos(word(&mut rest)?);
        let id = word(&mut rest)?;
        let count = word(&mut rest)?;
        // Each number takes a byte at least: a larger count is garbage.
        if count > rest.len() as u64 {
            return Err(cut());
        }
        let mut carried = Vec::with_capacity(count as usize);
        for _ in 0..count {
            carried.push(word(&mut rest)?);
        }
        let (len, extra) = (word(&mut rest)?, word(&mut rest)?);
        if !rest.is_empty() || len.checked_add(extra) != Some(start as u64) {
            return Err(format!(
                "an envelope of {total} bytes that says {len} + {extra} + {n} + 4"
            ));
        }
        let piggyback = bytes[len as usize..start].to_vec();
        bytes.truncate(len as usize);
        Ok(Envelope {
            from,
            to,
            sent_at,
            kind,
            hold,
            payload: bytes,
            piggyback,
            id,
            carried,
        })
    }

    /// [`Envelope::from_wire`] of a copy of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Envelope, String> {
        Envelope::from_wire(bytes.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_envelope_survives_the_wire() {
        let mut e = Envelope::new(PeId(3), PeId(70), MsgKind::Head, vec![10, 1, 2, 3]);
        e.sent_at = 1.25e-3;
        e.hold = Duration::from_micros(200);
        e.piggyback = vec![9; 300];
        e.id = 77;
        e.carried = vec![5, 6, 1 << 40];
        assert_eq!(Envelope::decode(&e.encode()), Ok(e.clone()));
        // Every cut short is refused.
        let bytes = e.encode();
        for n in 0..bytes.len() {
            assert!(Envelope::decode(&bytes[..n]).is_err(), "cut at {n}");
        }
    }
}
