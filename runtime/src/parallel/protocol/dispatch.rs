//! The one dispatcher: a message that arrives at a PE goes to its
//! protocol (see the table in `protocol`).

use crate::machine::pe::{Pe, Stop};
use crate::parallel::gum::message::Message;
use crate::parallel::protocol::control::{self, Control};
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::{codec, internal, Protocol};

impl Pe<'_, '_> {
    /// Handles a message from another PE.
    pub fn receive(&mut self, env: &Envelope) -> Result<(), Stop> {
        let (kind, fields) = codec::decode(&env.payload).map_err(internal)?;
        self.gum.received.count(kind, env.payload.len());
        match kind.protocol() {
            Protocol::Gum => {
                let m = Message::from_fields(kind, &fields).map_err(internal)?;
                self.gum_receive(m)?;
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
}
