//! The gph machine: the instruction set the code generator targets
//! (`code`), and (to come) the heap, the reducer and the PEs.

pub mod code;
