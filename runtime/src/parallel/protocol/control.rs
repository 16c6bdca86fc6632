//! The run as a whole: FINISH (the main PE: the program ended, every
//! other PE stops) and FAIL (a PE other than the main one had a run-time
//! error: the main PE ends the run with it).

use crate::machine::pe::{Pe, Stop};
use crate::parallel::protocol::{codec, Kind};

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

    /// FAIL's fields: the message's length in bytes, then its UTF-8 bytes
    /// eight to a word.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Vec::new();
        if let Control::Fail { message } = self {
            let b = message.as_bytes();
            w.push(b.len() as u64);
            for c in b.chunks(8) {
                let mut x = [0u8; 8];
                x[..c.len()].copy_from_slice(c);
                w.push(u64::from_le_bytes(x));
            }
        }
        codec::encode(self.kind(), &w)
    }

    pub fn from_fields(kind: Kind, f: &[u64]) -> Result<Control, String> {
        match kind {
            Kind::Finish => Ok(Control::Finish),
            Kind::Fail => {
                codec::need(kind, f, 1)?;
                let n = f[0] as usize;
                let bytes: Vec<u8> = f[1..].iter().flat_map(|x| x.to_le_bytes()).collect();
                if bytes.len() < n {
                    return Err("a truncated FAIL message".into());
                }
                Ok(Control::Fail {
                    message: String::from_utf8_lossy(&bytes[..n]).into_owned(),
                })
            }
            k => Err(format!("{} is not a control message", k.name())),
        }
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
            let (kind, fields) = codec::decode(&m.encode()).unwrap();
            assert_eq!(Control::from_fields(kind, &fields).unwrap(), m);
        }
    }
}
