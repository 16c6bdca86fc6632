//! The run as a whole: FINISH (the main PE: the program ended, every
//! other PE stops), FAIL (a PE other than the main one had a run-time
//! error: the main PE ends the run with it) and PESTATIC (Grid-GUM2: at
//! start-up each PE tells every other its speed, `policy::gum2`).

use crate::machine::pe::{Pe, Stop};
use crate::parallel::ids::PeId;
use crate::parallel::protocol::codec::{Reader, Writer};
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::MsgKind;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    Finish,
    Fail {
        message: String,
    },
    /// The sender's speed relative to the fastest PE, in millionths.
    PeStatic {
        speed_millionths: u64,
    },
}

impl Control {
    pub fn kind(&self) -> MsgKind {
        match self {
            Control::Finish => MsgKind::Finish,
            Control::Fail { .. } => MsgKind::Fail,
            Control::PeStatic { .. } => MsgKind::PeStatic,
        }
    }

    /// FAIL's field: the message's text; PESTATIC's: the speed.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new(self.kind());
        match self {
            Control::Finish => {}
            Control::Fail { message } => {
                w.text(message);
            }
            Control::PeStatic { speed_millionths } => {
                w.word(*speed_millionths);
            }
        }
        w.finish()
    }

    /// The control message `r` holds (its kind already read).
    pub fn read(r: &mut Reader) -> Result<Control, String> {
        let m = match r.kind() {
            MsgKind::Finish => Control::Finish,
            MsgKind::Fail => Control::Fail { message: r.text()? },
            MsgKind::PeStatic => Control::PeStatic {
                speed_millionths: r.word()?,
            },
            k => return Err(format!("{} is not a control message", k.name())),
        };
        r.end()?;
        Ok(m)
    }
}

/// Handles a control message from `from`.
pub(crate) fn receive(pe: &mut Pe, from: PeId, m: Control) -> Result<(), Stop> {
    match m {
        Control::Finish => {
            pe.finished = true;
            Ok(())
        }
        // A PE without the main thread that sees the run deadlocked says
        // `<<loop>>`; the main PE knows better when its thread waits on
        // an MVar.
        Control::Fail { message } if message == crate::engine::LOOP => Err(pe.deadlock()),
        Control::Fail { message } => Err(Stop::Error(message)),
        Control::PeStatic { speed_millionths } => {
            pe.policy.static_info(from, speed_millionths as f64 / 1e6);
            Ok(())
        }
    }
}

impl Pe<'_, '_> {
    /// The run starts: under a policy that exchanges speeds, this PE tells
    /// every other its own (PESTATIC).
    pub(crate) fn start_up(&mut self) {
        let Some(speed) = self.policy.announce() else {
            return;
        };
        let m = Control::PeStatic {
            speed_millionths: (speed * 1e6).round() as u64,
        };
        for k in 0..self.npes as u16 {
            if PeId(k) != self.id() {
                let env = Envelope::new(self.id(), PeId(k), m.kind(), m.encode());
                self.send_envelope(env);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_messages_survive_encoding() {
        for m in [
            Control::Finish,
            Control::Fail {
                message: "head: empty list – ünïcode".into(),
            },
            Control::PeStatic {
                speed_millionths: 382_796,
            },
        ] {
            let bytes = m.encode();
            assert_eq!(
                Control::read(&mut Reader::open(&bytes).unwrap()).unwrap(),
                m
            );
        }
    }
}
