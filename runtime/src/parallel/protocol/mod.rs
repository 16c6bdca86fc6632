//! How messages travel between PEs and reach their protocol: the
//! envelope every message travels in.

pub mod envelope;
