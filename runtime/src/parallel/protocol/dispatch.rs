//! The one dispatcher: a message that arrives at a PE goes to its
//! protocol (see the table in `protocol`); and the one way out of a PE
//! (`send_envelope`), through its send buffers (`take_packets`).

use crate::machine::pe::{Pe, Stop};
use crate::obs::event::Event;
use crate::parallel::eden;
use crate::parallel::gum::message::Message;
use crate::parallel::policy::Load;
use crate::parallel::protocol::control::{self, Control};
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::packet::Flush;
use crate::parallel::protocol::{self, codec, Protocol};

impl Pe<'_, '_> {
    /// Handles a message from another PE.
    pub fn receive(&mut self, env: &Envelope) -> Result<(), Stop> {
        self.handled_in_a_row += 1;
        // A message that does not decode names its sender (from another
        // process it may have been garbled on the way).
        let internal = |e: String| protocol::internal(format!("{e} from PE {}", env.from.0));
        let mut r = codec::Reader::open(&env.payload).map_err(internal)?;
        let kind = r.kind();
        self.obs.emit(Event::Receive {
            from: env.from,
            kind,
            bytes: env.size() as u64,
            id: env.id,
        });
        match kind.protocol() {
            Protocol::Gum => {
                let m = Message::read(&mut r).map_err(internal)?;
                self.gum_receive(env.from, m)?;
            }
            Protocol::Eden => {
                let m = eden::message::Message::read(&mut r).map_err(internal)?;
                self.eden_receive(env.from, m)?;
            }
            Protocol::Transport => {
                return Err(internal(
                    "a PACKET reached a protocol: the driver unbundles them".into(),
                ));
            }
            Protocol::Control => {
                let m = Control::read(&mut r).map_err(internal)?;
                control::receive(self, env.from, m)?;
            }
        }
        // Remote references that died meanwhile send their weight home.
        self.send_frees();
        Ok(())
    }

    /// Sends a message: the driver takes it from the outbox into a send
    /// buffer (`take_packets`). Public for tests, which send by hand.
    pub fn send_envelope(&mut self, mut env: Envelope) {
        env.id = self.obs.next_message_id();
        self.obs.emit(Event::Send {
            to: env.to,
            kind: env.kind,
            bytes: env.size() as u64,
            id: env.id,
        });
        self.outbox.push(env);
    }

    /// Sends what leaves this PE at `now` (its engine's clock) with
    /// `post`: the messages it sent since the last call go into its send
    /// buffers (each shown to `counted` first), and the buffers that are
    /// due leave as packets (`protocol::packet`), stamped: every one when
    /// no thread is runnable, else those that are full, urgent or timed
    /// out.
    pub(crate) fn take_packets(
        &mut self,
        now: f64,
        mut counted: impl FnMut(&Envelope),
        mut post: impl FnMut(Envelope),
    ) {
        for env in std::mem::take(&mut self.outbox) {
            counted(&env);
            self.sending.add(env, now);
        }
        if self.run_queue.is_empty() {
            self.sending.flush_all(Flush::Idle);
        } else {
            self.sending.flush_due(now);
        }
        let load = Load {
            runnable: self.run_queue.len(),
            sparks: self.sparks.len(),
        };
        for mut p in self.sending.drain() {
            p.env.piggyback = self.policy.piggyback(p.env.to, now, load);
            if !p.env.piggyback.is_empty() {
                self.obs.emit(Event::Piggyback {
                    bytes: p.env.piggyback.len() as u64,
                });
            }
            self.obs.emit(Event::Packet {
                to: p.env.to,
                messages: p.messages as u32,
                bytes: p.env.size() as u64,
                why: p.why,
            });
            p.env.sent_at = now;
            post(p.env);
        }
    }

    /// A packet (or a message travelling alone) from another PE, which
    /// arrived at `now` (this PE's clock), is about to be handled: the
    /// load policy reads what it carries on the side, and its timing.
    pub fn heard(&mut self, env: &Envelope, now: f64) -> Result<(), Stop> {
        self.policy
            .heard(env.from, env.sent_at, now, &env.piggyback)
            .map_err(protocol::internal)
    }

    /// When `take_packets` will send held messages without a new one (the
    /// engine's clock, seconds): at once when no thread is runnable, else
    /// when the oldest buffer times out; None while nothing is held.
    pub fn packets_due(&self) -> Option<f64> {
        let due = self.sending.due()?;
        Some(if self.run_queue.is_empty() {
            f64::NEG_INFINITY
        } else {
            due
        })
    }

    /// The run ends: every held message leaves (`take_packets` sends it).
    pub(crate) fn flush_packets(&mut self) {
        self.sending.flush_all(Flush::Idle);
    }
}
