//! How PEs run and how messages travel between them (DESIGN.md
//! "Engines"): `sim` in virtual time on a simulated machine (`grid`),
//! `os_threads` on one OS thread per PE.

pub mod grid;
pub mod os_threads;
pub mod sim;
