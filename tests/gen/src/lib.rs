//! gph-gen: generates random well-typed Tier 1 programs and checks that
//! `gph run` prints what GHC prints for them (see the README, "Tests").

pub mod ast;
pub mod check;
pub mod driver;
pub mod gen;
pub mod library;
pub mod print;
pub mod shrink;
pub mod ty;
