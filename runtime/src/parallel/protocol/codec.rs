//! Messages as bytes: a kind word, then the fields, all 64-bit words,
//! little-endian. Each protocol writes and reads its own fields.

use crate::parallel::protocol::Kind;

/// A message of kind `kind` with fields `fields`, as bytes.
pub fn encode(kind: Kind, fields: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 * (1 + fields.len()));
    out.extend_from_slice(&(kind as u64).to_le_bytes());
    for w in fields {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

/// A message's kind and fields.
pub fn decode(bytes: &[u8]) -> Result<(Kind, Vec<u64>), String> {
    if bytes.is_empty() || !bytes.len().is_multiple_of(8) {
        return Err(format!("a message of {} bytes", bytes.len()));
    }
    let mut w = bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()));
    let k = w.next().unwrap_or(0);
    let kind = *Kind::ALL
        .get(k as usize)
        .ok_or_else(|| format!("unknown message kind {k}"))?;
    Ok((kind, w.collect()))
}

/// Fails unless a message of kind `kind` has at least `n` fields.
pub fn need(kind: Kind, fields: &[u64], n: usize) -> Result<(), String> {
    if fields.len() < n {
        Err(format!("a truncated {} message", kind.name()))
    } else {
        Ok(())
    }
}
