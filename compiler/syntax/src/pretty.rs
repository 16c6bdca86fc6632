//! Pretty-printing of the syntax tree (filled in below).
