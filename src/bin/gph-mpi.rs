//! `gph` built with the mpi engine (`cargo build --features mpi --bin
//! gph-mpi`): the same program under another name, so that it can be built
//! in the same target folder as `gph` and share every crate that the mpi
//! feature does not change (the test suite builds it beside the plain one).

#[path = "../main.rs"]
mod gph_main;

fn main() -> std::process::ExitCode {
    gph_main::main()
}
