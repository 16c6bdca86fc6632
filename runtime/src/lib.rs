//! The gph machine. Its instruction set, heap, reducer and PEs come with the machine issue.
