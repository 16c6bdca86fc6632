//! One PE, knowing nothing of the others but through `parallel`: the
//! heap and its collector, the loaded code, the reducer, threads, the
//! scheduler, the primitives and the outside world.

pub mod concurrency;
pub mod exception;
pub mod heap;
pub mod io;
pub mod load;
pub mod pe;
pub mod prims;
pub mod reducer;
pub mod scheduler;
pub mod sparks;
pub mod thread;
pub mod view;
