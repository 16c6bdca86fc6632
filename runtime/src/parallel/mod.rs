//! What PEs do among themselves (GUM, DESIGN.md "Many PEs"): the names
//! of remote things, global addresses with weighted reference counting,
//! packing graphs, the messages and the protocol.

pub mod ga;
pub mod gum;
pub mod ids;
pub mod pack;
pub mod protocol;
