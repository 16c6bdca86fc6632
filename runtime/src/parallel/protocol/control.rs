//! The run as a whole: FINISH (the main PE: the program ended, every
//! other PE stops) and FAIL (a PE other than the main one had a run-time
//! error: the main PE ends the run with it).

use crate::machine::pe::{Pe, Stop};
use crate::parallel::protocol::codec::{Reader, Writer};
use crate::parallel::protocol::Kind;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    Finish,
    Fail { message: String },
}

impl Control {
    pub fn kind(&self) -> Kind {
        match self {
            Control::Finish => Kind::Finish,
            Control::Fail { .. } => Kind::Fail,
        }
    }

    /// FAIL's field: the message's text.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new(self.kind());
        if let Control::Fail { message } = self {
            w.text(message);
        }
        w.finish()
    }

    /// The control message `r` holds (its kind already read).
    pub fn read(r: &mut Reader) -> Result<Control, String> {
        let m = match r.kind() {
            Kind::Finish => Control::Finish,
            Kind::Fail => Control::Fail { message: r.text()? },
            k => return Err(format!("{} is not a control message", k.name())),
        };
        r.end()?;
        Ok(m)
    }
}

/// Handles a control message.
pub(crate) fn receive(pe: &mut Pe, m: Control) -> Result<(), Stop> {
    match m {
        Control::Finish => {
            pe.finished = true;
            Ok(())
        }
        Control::Fail { message } => Err(Stop::Error(message)),
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
        ] {
            let bytes = m.encode();
            assert_eq!(
                Control::read(&mut Reader::open(&bytes).unwrap()).unwrap(),
                m
            );
        }
    }
}
