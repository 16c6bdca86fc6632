//! Messages as bytes. A message is its kind, then its fields, each an
//! unsigned LEB128 number (a word of 64 bits in 1 to 10 bytes: small
//! numbers, which most fields are, take one or two), and a packed graph
//! in `pack`'s dense form (`pack::write_graph`). Each protocol writes and
//! reads its own fields, in order, with a [`Writer`] and a [`Reader`].
//!
//! Until this form a field was a whole 64-bit word, and an `Int` in a
//! stream element took 7 of them (the message's kind, channel and thread,
//! the graph's entry count, the entry's tag and header, the number: 56
//! bytes); now it takes 11 on average (edenParsort; docs/eden.md, "The
//! wire").

use crate::parallel::ids::PeId;
use crate::parallel::pack::{self, PackedGraph};
use crate::parallel::protocol::MsgKind;

/// Writes a message: its kind first, then what the protocol adds.
pub struct Writer {
    out: Vec<u8>,
}

impl Writer {
    pub fn new(kind: MsgKind) -> Writer {
        let mut w = Writer { out: Vec::new() };
        w.word(kind as u64);
        w
    }

    /// A field.
    pub fn word(&mut self, x: u64) -> &mut Writer {
        put_word(&mut self.out, x);
        self
    }

    /// A packed graph (the rest of the message: it is not delimited).
    pub fn graph(&mut self, g: &PackedGraph) -> &mut Writer {
        pack::write_graph(g, &mut self.out);
        self
    }

    /// A string: its length in bytes, then its UTF-8.
    pub fn text(&mut self, s: &str) -> &mut Writer {
        self.word(s.len() as u64);
        self.out.extend_from_slice(s.as_bytes());
        self
    }

    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }
}

/// Appends `x` as unsigned LEB128.
pub fn put_word(out: &mut Vec<u8>, x: u64) {
    // Writing to a Vec cannot fail.
    let _ = leb128::write::unsigned(out, x);
}

/// Bytes `x` takes as unsigned LEB128.
pub fn word_len(x: u64) -> usize {
    (64 - (x | 1).leading_zeros() as usize).div_ceil(7)
}

/// Reads the next unsigned LEB128 number of `bytes`, advancing it; None
/// when the bytes end first or the number does not fit 64 bits.
pub fn take_word(bytes: &mut &[u8]) -> Option<u64> {
    leb128::read::unsigned(bytes).ok()
}

/// Reads a message: its kind on opening, then the fields in order. Every
/// malformed message is an error that names its kind, never a panic.
pub struct Reader<'a> {
    kind: MsgKind,
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn open(bytes: &'a [u8]) -> Result<Reader<'a>, String> {
        let mut rest = bytes;
        let k =
            take_word(&mut rest).ok_or_else(|| format!("a message of {} bytes", bytes.len()))?;
        let kind = *usize::try_from(k)
            .ok()
            .and_then(|k| MsgKind::ALL.get(k))
            .ok_or_else(|| format!("unknown message kind {k}"))?;
        Ok(Reader { kind, rest })
    }

    pub fn kind(&self) -> MsgKind {
        self.kind
    }

    fn truncated(&self) -> String {
        format!("a truncated {} message", self.kind.name())
    }

    pub fn word(&mut self) -> Result<u64, String> {
        take_word(&mut self.rest).ok_or_else(|| self.truncated())
    }

    /// A field that must fit 32 bits.
    pub fn word32(&mut self) -> Result<u32, String> {
        let w = self.word()?;
        u32::try_from(w).map_err(|_| format!("a {} message with a field of {w}", self.kind.name()))
    }

    /// A field naming a PE.
    pub fn pe(&mut self) -> Result<PeId, String> {
        let w = self.word()?;
        u16::try_from(w)
            .map(PeId)
            .map_err(|_| format!("a {} message naming PE {w}", self.kind.name()))
    }

    /// The packed graph that ends the message.
    pub fn graph(&mut self) -> Result<PackedGraph, String> {
        let g = pack::read_graph(&mut self.rest)?;
        self.end()?;
        Ok(g)
    }

    /// The packed graphs, one at least, that end the message.
    pub fn graphs(&mut self) -> Result<Vec<PackedGraph>, String> {
        let mut gs = vec![pack::read_graph(&mut self.rest)?];
        while !self.at_end() {
            gs.push(pack::read_graph(&mut self.rest)?);
        }
        Ok(gs)
    }

    pub fn text(&mut self) -> Result<String, String> {
        let n = self.word()?;
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.rest.len())
            .ok_or_else(|| self.truncated())?;
        let (s, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(String::from_utf8_lossy(s).into_owned())
    }

    /// Whether every byte has been read.
    pub fn at_end(&self) -> bool {
        self.rest.is_empty()
    }

    /// Fails unless every byte has been read.
    pub fn end(&self) -> Result<(), String> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} bytes after a {} message",
                self.rest.len(),
                self.kind.name()
            ))
        }
    }
}

/// For the protocols' tests: `bytes`, the encoding of `m`, decode to `m`,
/// and cut short anywhere they are an error (unless `may_shorten`: a
/// message ending in a list may also read as a shorter one).
#[cfg(test)]
pub(crate) fn check_round_trip<M: PartialEq + std::fmt::Debug>(
    m: &M,
    bytes: &[u8],
    decode: impl Fn(&[u8]) -> Result<M, String>,
    may_shorten: bool,
) {
    assert_eq!(&decode(bytes).unwrap(), m);
    for n in 1..bytes.len() {
        let r = decode(&bytes[..n]);
        assert!(may_shorten || r.is_err(), "{m:?} cut at {n}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_take_as_many_bytes_as_they_need() {
        for (x, n) in [(0u64, 1), (127, 1), (128, 2), (1 << 14, 3), (u64::MAX, 10)] {
            let mut out = Vec::new();
            put_word(&mut out, x);
            assert_eq!((out.len(), word_len(x)), (n, n), "{x}");
            let mut b = &out[..];
            assert_eq!(take_word(&mut b), Some(x));
            assert!(b.is_empty());
        }
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(Reader::open(&[]).is_err());
        assert!(Reader::open(&[99]).is_err());
        assert!(Reader::open(&[0x80]).is_err());
        let mut r = Reader::open(&[0, 0x80]).unwrap();
        assert_eq!(r.word().unwrap_err(), "a truncated FISH message");
        // Eleven continuation bytes: more than 64 bits.
        let mut long = vec![0u8];
        long.extend([0xff; 11]);
        long.push(1);
        assert!(Reader::open(&long).unwrap().word().is_err());
    }
}
