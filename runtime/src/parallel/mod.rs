//! What PEs do among themselves (GUM, docs/design.md "Many PEs"; Eden,
//! docs/eden.md): the names of remote things, global addresses with
//! weighted reference counting, packing graphs, the protocols and how
//! messages reach them, and the load policies.

pub mod eden;
pub mod ga;
pub mod gum;
pub mod ids;
pub mod pack;
pub mod policy;
pub mod protocol;
