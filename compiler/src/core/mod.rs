//! Core, the small explicit language between the desugarer and the back end
//! (docs/backend.md), and the passes from Core to Core: the simplifier,
//! deforestation, dead-code removal, and Core Lint, which checks each
//! pass's output.
//!
//! Core's syntax is this module's interface (`core::Expr`, `core::Program`),
//! so it is re-exported here; the passes are submodules.

mod syntax;
pub use syntax::*;

pub mod fuse;
pub mod lint;
pub mod prune;
pub mod simplify;

#[cfg(test)]
mod tests;
