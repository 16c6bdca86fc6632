//! The names of things that live on other PEs.

/// A PE's number: 0 is the main PE. (Eden numbers PEs from 1: `selfPe`
/// is this plus one.)
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct PeId(pub u16);

/// A node on its owner PE: (owner, slot in the owner's table, see `ga`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalAddr {
    pub pe: PeId,
    pub slot: u32,
}
