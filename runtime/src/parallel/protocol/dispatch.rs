//! The one dispatcher: a message that arrives at a PE goes to its
//! protocol (see the table in `protocol`); and the one way out of a PE
//! (`send_envelope`).

use crate::machine::pe::{Pe, Stop};
use crate::obs::event::Event;
use crate::parallel::gum::message::Message;
use crate::parallel::protocol::control::{self, Control};
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::{codec, internal, Protocol};

impl Pe<'_, '_> {
    /// Handles a message from another PE.
    pub fn receive(&mut self, env: &Envelope) -> Result<(), Stop> {
        let (kind, fields) = codec::decode(&env.payload).map_err(internal)?;
        self.obs.emit(Event::Receive {
            from: env.from,
            kind,
            bytes: env.size() as u64,
            id: env.id,
        });
        match kind.protocol() {
            Protocol::Gum => {
                let m = Message::from_fields(kind, &fields).map_err(internal)?;
                self.gum_receive(env.from, m)?;
            }
            Protocol::Eden => {
                return Err(internal(format!(
                    "{} before Eden's runtime exists",
                    kind.name()
                )));
            }
            Protocol::Control => {
                let m = Control::from_fields(kind, &fields).map_err(internal)?;
                control::receive(self, m)?;
            }
        }
        // Remote references that died meanwhile send their weight home.
        self.send_frees();
        Ok(())
    }

    /// Sends a message: the engine takes it from the outbox.
    pub(crate) fn send_envelope(&mut self, mut env: Envelope) {
        env.id = self.obs.next_message_id();
        self.obs.emit(Event::Send {
            to: env.to,
            kind: env.kind,
            bytes: env.size() as u64,
            id: env.id,
        });
        self.outbox.push(env);
    }
}
