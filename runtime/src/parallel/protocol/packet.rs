//! The packet layer, under every protocol: dynamic chunking (J. Berthold,
//! "Dynamic Chunking in Eden", IFL 2003, section 3.2; in
//! `../shared/papers/002_*`). Sending a message costs mostly per message,
//! not per byte (the paper measured λ ≈ 63 µs per message against β ≈
//! 0.1 µs per word), and Eden sends a stream one element per HEAD message.
//! So a PE gathers what it sends to each other PE in a send buffer, and a
//! buffer leaves as one packet, which pays λ once for all its messages.
//!
//! Sending ([`SendBuffers`], one buffer per destination PE). A buffer
//! leaves ([`Flush`]):
//!
//! * before a message that does not fit in what is left of the packet, and
//!   right after a message when no further one could fit (full); a message
//!   larger than a packet, or one the engine is to hold back on arrival
//!   (Note [Fish delay]), travels alone;
//! * with an urgent message: every kind but HEAD (`MsgKind::urgent`), so GUM's
//!   and the control traffic leave at once, as they did before this layer;
//! * when its oldest message has waited the chunk timeout (the driver
//!   looks each time round its loop);
//! * when the PE has no runnable thread, every buffer: otherwise two PEs
//!   could wait for each other's held messages.
//!
//! Without chunking ([`Chunking::enabled`] false, the paper's baseline)
//! every message is a packet of its own.
//!
//! On the wire a packet of one message is that message's own envelope,
//! unchanged, so a run without HEADs sends exactly what it sent before
//! this layer existed. A packet of several is one envelope of kind PACKET
//! ([`bundle`]); engines carry it like any other, so the sim engine's
//! costs, which are per envelope, are per packet.
//!
//! Receiving ([`Inbox`]): a packet is taken apart ([`unbundle`]) into a
//! queue per sender, and the PE handles queued messages round robin, one
//! per turn, so that a big packet from one PE does not hold up the
//! messages of another (the paper's receive buffers).

use crate::parallel::ids::PeId;
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::{codec, MsgKind};
use std::collections::VecDeque;
use std::time::Duration;

/// A packet of 64 KiB takes 5.2 ms on a 100 Mbit/s network (the paper's
/// and the default grid's) and 1.6 ms of β on the paper's cluster, against
/// λ = 63 µs: a larger packet would save under 1 % of its sending time and
/// keep its first message from its receiver for longer. GUM's largest
/// message (a packed graph of `Tuning::graph_words`, 16,384 words, a few
/// tens of KiB in the dense form) mostly fits whole.
pub const DEFAULT_PACKET_SIZE: usize = 64 << 10;

/// A stream element waits at most 1 ms. A PE that makes elements faster
/// than one per λ (63 µs: sending each alone would cost more than making
/// it) gathers at least 16 per packet, which cuts λ per element below
/// 4 µs; the delay is five times the default grid's latency (0.2 ms), and
/// a PE that runs out of threads sends at once, so a consumer never waits
/// for the timeout of an idle producer.
pub const DEFAULT_CHUNK_TIMEOUT: Duration = Duration::from_millis(1);

/// A packet's header: its kind (one byte) and its number of messages (a
/// 32-bit word).
const HEADER_BYTES: usize = 5;
/// The smallest message: a kind byte alone (FINISH).
const MIN_MESSAGE_BYTES: usize = 1;
/// The smallest entry header (three one-byte numbers).
const MIN_ENTRY_BYTES: usize = 3;

/// Each message's header in a packet: its kind, the lengths of its payload
/// and of its piggyback, in LEB128 (`codec`).
fn entry_bytes(env: &Envelope) -> usize {
    codec::word_len(env.kind as u64)
        + codec::word_len(env.payload.len() as u64)
        + codec::word_len(env.piggyback.len() as u64)
}

/// How a PE gathers its messages into packets (`--no-chunking`,
/// `--packet-size`, `--chunk-timeout`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chunking {
    /// Whether a message may wait for others (false: every message is a
    /// packet of its own).
    pub enabled: bool,
    /// The largest packet, in bytes.
    pub packet_size: usize,
    /// The longest a message waits in its buffer, on the engine's clock.
    pub timeout: Duration,
}

impl Default for Chunking {
    fn default() -> Self {
        Chunking {
            enabled: true,
            packet_size: DEFAULT_PACKET_SIZE,
            timeout: DEFAULT_CHUNK_TIMEOUT,
        }
    }
}

/// Why a buffer left as a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Flush {
    /// An urgent message was added.
    Urgent,
    /// The next message did not fit, or no further one could (or chunking
    /// is off, and every packet is full with one message).
    Full,
    /// Its oldest message had waited the chunk timeout.
    Timeout,
    /// The PE had no runnable thread, or the run ended.
    Idle,
}

/// A packet that leaves now: the envelope to carry (a message's own, or a
/// PACKET's), how many messages it holds and why it left.
#[derive(Debug)]
pub struct Outgoing {
    pub env: Envelope,
    pub messages: usize,
    pub why: Flush,
}

/// The messages waiting for one destination.
#[derive(Default)]
struct Buffer {
    messages: Vec<Envelope>,
    /// What they take in a packet, headers included (not the packet's).
    bytes: usize,
    /// When the oldest was added (the engine's clock, seconds).
    since: f64,
}

/// A PE's send buffers, one per destination PE, and the packets that are
/// ready to leave.
pub struct SendBuffers {
    chunking: Chunking,
    /// By destination PE, grown as PEs are first sent to.
    buffers: Vec<Buffer>,
    /// Messages in all buffers.
    held: usize,
    /// Flushed, not yet taken (`drain`).
    ready: Vec<Outgoing>,
}

impl SendBuffers {
    pub fn new(chunking: Chunking) -> SendBuffers {
        SendBuffers {
            chunking,
            buffers: Vec::new(),
            held: 0,
            ready: Vec::new(),
        }
    }

    /// Adds `env`, sent at `now`, to the buffer for its destination, which
    /// leaves before it if it does not fit, and with it if it is urgent or
    /// fills the packet.
    pub fn add(&mut self, env: Envelope, now: f64) {
        let size = self.chunking.packet_size;
        let to = env.to.0 as usize;
        if self.buffers.len() <= to {
            self.buffers.resize_with(to + 1, Buffer::default);
        }
        let entry = entry_bytes(&env) + env.size();
        // The engines hold a whole envelope back, so a held message
        // shares it with no other.
        let alone = env.size() > size || !env.hold.is_zero();
        let b = &self.buffers[to];
        if !b.messages.is_empty() && (alone || HEADER_BYTES + b.bytes + entry > size) {
            self.flush(to, Flush::Full);
        }
        let b = &mut self.buffers[to];
        let full = || HEADER_BYTES + b.bytes + entry + MIN_ENTRY_BYTES + MIN_MESSAGE_BYTES > size;
        let why = if env.kind.urgent() {
            Some(Flush::Urgent)
        } else if !self.chunking.enabled || alone || full() {
            Some(Flush::Full)
        } else {
            None
        };
        match why {
            // Alone in its packet: it travels as itself, without a stop
            // in the buffer (every message of a run without HEADs).
            Some(why) if b.messages.is_empty() => self.ready.push(Outgoing {
                env,
                messages: 1,
                why,
            }),
            _ => {
                if b.messages.is_empty() {
                    b.since = now;
                }
                b.bytes += entry;
                b.messages.push(env);
                self.held += 1;
                if let Some(why) = why {
                    self.flush(to, why);
                }
            }
        }
    }

    /// Flushes the buffers whose oldest message has waited the chunk
    /// timeout at `now`.
    pub fn flush_due(&mut self, now: f64) {
        if self.held == 0 {
            return;
        }
        let timeout = self.chunking.timeout.as_secs_f64();
        for to in 0..self.buffers.len() {
            let b = &self.buffers[to];
            if !b.messages.is_empty() && now - b.since >= timeout {
                self.flush(to, Flush::Timeout);
            }
        }
    }

    /// Flushes every buffer, for `why`.
    pub fn flush_all(&mut self, why: Flush) {
        if self.held == 0 {
            return;
        }
        for to in 0..self.buffers.len() {
            if !self.buffers[to].messages.is_empty() {
                self.flush(to, why);
            }
        }
    }

    /// When the oldest held message will have waited the timeout (the
    /// engine's clock, seconds); None if no message waits.
    pub fn due(&self) -> Option<f64> {
        if self.held == 0 {
            return None;
        }
        let timeout = self.chunking.timeout.as_secs_f64();
        self.buffers
            .iter()
            .filter(|b| !b.messages.is_empty())
            .map(|b| b.since + timeout)
            .min_by(f64::total_cmp)
    }

    /// Whether no message waits in a buffer.
    pub fn is_empty(&self) -> bool {
        self.held == 0
    }

    /// The packets that left since the last call, in the order they left.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Outgoing> {
        self.ready.drain(..)
    }

    /// Sends the buffer for PE `to` as one packet.
    fn flush(&mut self, to: usize, why: Flush) {
        let b = &mut self.buffers[to];
        let mut messages = std::mem::take(&mut b.messages);
        b.bytes = 0;
        self.held -= messages.len();
        let n = messages.len();
        let env = match n {
            0 => return,
            1 => messages.swap_remove(0),
            _ => bundle(&messages),
        };
        self.ready.push(Outgoing {
            env,
            messages: n,
            why,
        });
    }
}

/// Several messages for one PE (at least two, all from one PE) as one
/// envelope of kind PACKET. Its payload: PACKET (a byte), the number of
/// messages (32 bits, little-endian), then each message's kind, its
/// payload's length and its piggyback's in bytes (LEB128), followed by
/// the payload and the piggyback themselves.
pub fn bundle(messages: &[Envelope]) -> Envelope {
    let bytes = HEADER_BYTES
        + messages
            .iter()
            .map(|m| entry_bytes(m) + m.size())
            .sum::<usize>();
    let mut out = Vec::with_capacity(bytes);
    out.push(MsgKind::Packet as u8);
    out.extend_from_slice(&(messages.len() as u32).to_le_bytes());
    for m in messages {
        codec::put_word(&mut out, m.kind as u64);
        codec::put_word(&mut out, m.payload.len() as u64);
        codec::put_word(&mut out, m.piggyback.len() as u64);
        out.extend_from_slice(&m.payload);
        out.extend_from_slice(&m.piggyback);
    }
    let first = &messages[0];
    let mut env = Envelope::new(first.from, first.to, MsgKind::Packet, out);
    env.carried = messages.iter().map(|m| m.id).collect();
    env
}

/// The messages of a PACKET envelope, as they were sent (each from the
/// packet's sender, stamped with the packet's sending time); an error,
/// never a panic, for anything but a packet `bundle` made.
pub fn unbundle(packet: &Envelope) -> Result<Vec<Envelope>, String> {
    let mut r = Reader {
        bytes: &packet.payload,
        at: 0,
    };
    let k = r.bytes(1)?[0];
    if k != MsgKind::Packet as u8 {
        return Err(format!("a packet of kind {k}"));
    }
    let n = u32::from_le_bytes(r.bytes(4)?.try_into().unwrap_or_default()) as usize;
    // Each message takes an entry at least: a larger count is garbage,
    // and must not make us reserve room for it.
    if n < 2 || n > r.left() / MIN_ENTRY_BYTES {
        return Err(format!(
            "a packet of {n} messages in {} bytes",
            packet.payload.len()
        ));
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let k = r.word()?;
        let kind = *MsgKind::ALL
            .get(k)
            .ok_or_else(|| format!("message {i} of a packet has kind {k}"))?;
        if kind == MsgKind::Packet {
            return Err(format!("message {i} of a packet is a packet"));
        }
        let (len, extra) = (r.word()?, r.word()?);
        let mut env = Envelope::new(packet.from, packet.to, kind, r.bytes(len)?.to_vec());
        env.piggyback = r.bytes(extra)?.to_vec();
        env.sent_at = packet.sent_at;
        env.id = packet.carried.get(i).copied().unwrap_or(0);
        out.push(env);
    }
    if r.left() > 0 {
        return Err(format!("{} bytes after a packet's messages", r.left()));
    }
    Ok(out)
}

/// Reads a packet's payload from the front.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn bytes(&mut self, n: usize) -> Result<&[u8], String> {
        if n > self.left() {
            return Err(format!(
                "a truncated packet: {n} bytes wanted at byte {}, {} left",
                self.at,
                self.left()
            ));
        }
        self.at += n;
        Ok(&self.bytes[self.at - n..self.at])
    }

    /// A number, as a length or an index (one too large for this machine
    /// is as wrong as any other).
    fn word(&mut self) -> Result<usize, String> {
        let mut rest = &self.bytes[self.at..];
        let w = codec::take_word(&mut rest)
            .ok_or_else(|| format!("a truncated packet: a number at byte {}", self.at))?;
        self.at = self.bytes.len() - rest.len();
        Ok(usize::try_from(w).unwrap_or(usize::MAX))
    }
}

/// The messages a PE received and has not handled yet: a queue per sender,
/// taken round robin, one message per turn.
#[derive(Default)]
pub struct Inbox {
    /// By sender PE, grown as senders first queue.
    queues: Vec<VecDeque<Envelope>>,
    /// The senders with queued messages, next turn first.
    turns: VecDeque<PeId>,
}

impl Inbox {
    /// Queues `env` behind its sender's earlier messages.
    pub fn push(&mut self, env: Envelope) {
        let from = env.from.0 as usize;
        if self.queues.len() <= from {
            self.queues.resize_with(from + 1, VecDeque::new);
        }
        let q = &mut self.queues[from];
        if q.is_empty() {
            self.turns.push_back(env.from);
        }
        q.push_back(env);
    }

    /// The next message: the oldest of the sender whose turn it is.
    pub fn pop(&mut self) -> Option<Envelope> {
        let from = self.turns.pop_front()?;
        let q = &mut self.queues[from.0 as usize];
        let env = q.pop_front();
        if !q.is_empty() {
            self.turns.push_back(from);
        }
        env
    }

    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ME: PeId = PeId(0);
    /// The entry of a message of less than 128 bytes without piggyback.
    const ENTRY_BYTES: usize = 3;

    /// A message of `kind` for PE `to` of `8 * (words + 1)` bytes (the
    /// packet layer does not read its messages), numbered `id`.
    fn msg(kind: MsgKind, to: u16, words: usize, id: u64) -> Envelope {
        let mut payload = vec![kind as u8];
        payload.extend((1..8 * (words + 1)).map(|i| (i as u64 * 3 + id) as u8));
        let mut env = Envelope::new(ME, PeId(to), kind, payload);
        env.id = id;
        env
    }

    fn head(to: u16, words: usize, id: u64) -> Envelope {
        msg(MsgKind::Head, to, words, id)
    }

    /// Buffers of packets of `packet_size` bytes, timing out after a
    /// second (times in quarters are exact).
    fn buffers(packet_size: usize) -> SendBuffers {
        SendBuffers::new(Chunking {
            packet_size,
            timeout: Duration::from_secs(1),
            ..Chunking::default()
        })
    }

    /// What left: (destination, messages, why, their ids).
    fn left(b: &mut SendBuffers) -> Vec<(u16, usize, Flush, Vec<u64>)> {
        b.drain()
            .map(|o| {
                let ids = if o.env.kind == MsgKind::Packet {
                    unbundle(&o.env).unwrap().iter().map(|m| m.id).collect()
                } else {
                    vec![o.env.id]
                };
                assert_eq!(ids.len(), o.messages);
                (o.env.to.0, o.messages, o.why, ids)
            })
            .collect()
    }

    #[test]
    fn packet_heads_wait_for_company_per_destination() {
        let mut b = buffers(DEFAULT_PACKET_SIZE);
        b.add(head(1, 2, 1), 0.0);
        b.add(head(2, 2, 2), 0.0);
        b.add(head(1, 2, 3), 0.0);
        assert!(left(&mut b).is_empty());
        assert!(!b.is_empty());
        assert_eq!(b.due(), Some(1.0));
    }

    #[test]
    fn packet_flush_a_before_a_message_that_does_not_fit() {
        // Two HEADs of 3 + 24 bytes leave 40 bytes: room for the smallest
        // message (4), not for a third HEAD (27), which the first two
        // leave before.
        let mut b = buffers(HEADER_BYTES + 2 * (ENTRY_BYTES + 24) + 26);
        b.add(head(1, 2, 1), 0.0);
        b.add(head(1, 2, 2), 0.0);
        assert!(left(&mut b).is_empty());
        b.add(head(1, 2, 3), 0.5);
        assert_eq!(left(&mut b), vec![(1, 2, Flush::Full, vec![1, 2])]);
        assert!(!b.is_empty(), "the third waits in a new packet");
        assert_eq!(b.due(), Some(1.5), "its age counts from when it came");
    }

    #[test]
    fn packet_flush_b_when_no_further_message_could_fit() {
        // After two HEADs there are 3 bytes left: less than the smallest
        // message takes (an entry and a kind byte, 4).
        let size = HEADER_BYTES + 2 * (ENTRY_BYTES + 24) + MIN_ENTRY_BYTES + MIN_MESSAGE_BYTES - 1;
        let mut b = buffers(size);
        b.add(head(1, 2, 1), 0.0);
        assert!(left(&mut b).is_empty());
        b.add(head(1, 2, 2), 0.0);
        assert_eq!(left(&mut b), vec![(1, 2, Flush::Full, vec![1, 2])]);
        assert!(b.is_empty());
        // With one byte more the next (smallest) message still fits.
        let mut b = buffers(size + 1);
        b.add(head(1, 2, 1), 0.0);
        b.add(head(1, 2, 2), 0.0);
        assert!(left(&mut b).is_empty());
    }

    #[test]
    fn packet_flush_c_an_urgent_message_leaves_at_once_with_the_heads() {
        let mut b = buffers(DEFAULT_PACKET_SIZE);
        // Alone, an urgent message travels as itself: every message of a
        // run without HEADs.
        let urgent = MsgKind::ALL
            .into_iter()
            .filter(|&k| k.urgent() && k != MsgKind::Packet);
        for (i, kind) in urgent.enumerate() {
            let m = msg(kind, 1, 3, i as u64);
            b.add(m.clone(), 0.0);
            let out: Vec<Outgoing> = b.drain().collect();
            assert_eq!(out.len(), 1);
            assert_eq!((out[0].messages, out[0].why), (1, Flush::Urgent));
            assert_eq!(out[0].env, m, "{} unchanged", kind.name());
        }
        // Behind HEADs for the same PE, it takes them along; the HEADs for
        // another PE wait.
        b.add(head(1, 2, 10), 0.0);
        b.add(head(2, 2, 11), 0.0);
        b.add(head(1, 2, 12), 0.0);
        b.add(msg(MsgKind::Fetch, 1, 3, 13), 0.0);
        assert_eq!(left(&mut b), vec![(1, 3, Flush::Urgent, vec![10, 12, 13])]);
        assert!(!b.is_empty());
    }

    #[test]
    fn packet_flush_d_when_the_oldest_message_timed_out() {
        let mut b = buffers(DEFAULT_PACKET_SIZE);
        b.add(head(1, 2, 1), 0.0);
        b.add(head(2, 2, 2), 0.25);
        b.add(head(1, 2, 3), 0.75);
        b.flush_due(0.875);
        assert!(left(&mut b).is_empty());
        // PE 1's buffer is as old as its first message: a second; PE 2's
        // is younger.
        b.flush_due(1.0);
        assert_eq!(left(&mut b), vec![(1, 2, Flush::Timeout, vec![1, 3])]);
        assert_eq!(b.due(), Some(1.25));
        b.flush_due(2.0);
        assert_eq!(left(&mut b), vec![(2, 1, Flush::Timeout, vec![2])]);
        assert_eq!(b.due(), None);
    }

    #[test]
    fn packet_flush_e_every_buffer_when_the_pe_is_idle() {
        let mut b = buffers(DEFAULT_PACKET_SIZE);
        b.add(head(3, 2, 1), 0.0);
        b.add(head(1, 2, 2), 0.0);
        b.add(head(3, 2, 3), 0.0);
        b.flush_all(Flush::Idle);
        assert_eq!(
            left(&mut b),
            vec![
                (1, 1, Flush::Idle, vec![2]),
                (3, 2, Flush::Idle, vec![1, 3])
            ]
        );
        assert!(b.is_empty());
        assert_eq!(b.due(), None);
        b.flush_all(Flush::Idle);
        assert!(left(&mut b).is_empty(), "nothing more to send");
    }

    #[test]
    fn packet_without_chunking_every_message_is_a_packet() {
        let mut b = SendBuffers::new(Chunking {
            enabled: false,
            ..Chunking::default()
        });
        b.add(head(1, 2, 1), 0.0);
        b.add(head(1, 2, 2), 0.0);
        b.add(msg(MsgKind::Value, 1, 2, 3), 0.0);
        assert_eq!(
            left(&mut b),
            vec![
                (1, 1, Flush::Full, vec![1]),
                (1, 1, Flush::Full, vec![2]),
                (1, 1, Flush::Urgent, vec![3])
            ]
        );
        assert!(b.is_empty());
    }

    #[test]
    fn packet_a_message_larger_than_a_packet_travels_alone() {
        let mut b = buffers(256);
        b.add(head(1, 2, 1), 0.0);
        let big = head(1, 40, 2);
        assert!(big.size() > 256);
        b.add(big.clone(), 0.0);
        let out: Vec<Outgoing> = b.drain().collect();
        assert_eq!(
            out.iter().map(|o| (o.messages, o.why)).collect::<Vec<_>>(),
            vec![(1, Flush::Full), (1, Flush::Full)]
        );
        assert_eq!(out[1].env, big, "as itself");
        assert!(b.is_empty());
        // A held message (a FISH going home) travels alone too: the engine
        // holds its whole envelope back.
        b.add(head(1, 2, 3), 0.0);
        let mut fish = msg(MsgKind::Fish, 1, 3, 4);
        fish.hold = Duration::from_millis(1);
        b.add(fish.clone(), 0.0);
        let out: Vec<Outgoing> = b.drain().collect();
        assert_eq!(
            out.iter().map(|o| (o.messages, o.why)).collect::<Vec<_>>(),
            vec![(1, Flush::Full), (1, Flush::Urgent)]
        );
        assert_eq!(out[1].env, fish);
    }

    #[test]
    fn packet_encoding_round_trips() {
        let mut ms = vec![
            head(5, 0, 7),
            msg(MsgKind::Resume, 5, 100, 8),
            msg(MsgKind::Finish, 5, 0, 0),
        ];
        ms[1].piggyback = vec![1, 2, 3];
        let mut p = bundle(&ms);
        assert_eq!((p.kind, p.from, p.to), (MsgKind::Packet, ME, PeId(5)));
        let sizes: usize = ms.iter().map(|m| entry_bytes(m) + m.size()).sum();
        assert_eq!(p.size(), HEADER_BYTES + sizes);
        p.sent_at = 0.25;
        for m in &mut ms {
            m.sent_at = 0.25;
        }
        assert_eq!(unbundle(&p).unwrap(), ms);
    }

    #[test]
    fn packet_garbage_is_an_error_not_a_panic() {
        let good = bundle(&[head(1, 3, 1), msg(MsgKind::Ack, 1, 2, 2)]);
        let with = |payload: Vec<u8>| Envelope {
            payload,
            ..good.clone()
        };
        let packet = |n: u32| [vec![MsgKind::Packet as u8], n.to_le_bytes().to_vec()].concat();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (vec![], "truncated"),
            (vec![MsgKind::Packet as u8, 2, 3], "truncated"),
            (vec![MsgKind::Head as u8], "a packet of kind"),
            (packet(1), "of 1 messages"),
            (packet(u32::MAX), "messages in"),
            (good.payload[..good.payload.len() - 1].to_vec(), "truncated"),
            ([good.payload.clone(), vec![0]].concat(), "1 bytes after"),
        ];
        for (payload, want) in cases {
            let e = unbundle(&with(payload.clone())).unwrap_err();
            assert!(e.contains(want), "{e:?} for {payload:?}");
        }
        let mut bad_kind = good.payload.clone();
        bad_kind[HEADER_BYTES] = 99;
        assert!(unbundle(&with(bad_kind)).unwrap_err().contains("kind 99"));
        let mut nested = good.payload.clone();
        nested[HEADER_BYTES] = MsgKind::Packet as u8;
        assert!(unbundle(&with(nested)).unwrap_err().contains("is a packet"));
        // Every truncation and many corruptions: an answer, never a panic.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for cut in 0..good.payload.len() {
            assert!(unbundle(&with(good.payload[..cut].to_vec())).is_err());
        }
        for _ in 0..10_000 {
            let mut p = good.payload.clone();
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let i = (seed as usize) % p.len();
                p[i] = (seed >> 32) as u8;
            }
            let _ = unbundle(&with(p));
        }
    }

    #[test]
    fn packet_inbox_takes_senders_round_robin() {
        let from = |pe: u16, id: u64| Envelope {
            from: PeId(pe),
            id,
            ..head(0, 1, id)
        };
        let mut inbox = Inbox::default();
        assert!(inbox.pop().is_none());
        // A big packet from PE 1, then two messages from PE 3 and PE 2.
        for id in 10..15 {
            inbox.push(from(1, id));
        }
        inbox.push(from(3, 30));
        inbox.push(from(2, 20));
        let mut order = vec![inbox.pop().unwrap().id];
        // PE 3 sends again while it waits its turn.
        inbox.push(from(3, 31));
        while let Some(m) = inbox.pop() {
            order.push(m.id);
        }
        assert_eq!(order, vec![10, 30, 20, 11, 31, 12, 13, 14]);
        assert!(inbox.is_empty());
    }
}
