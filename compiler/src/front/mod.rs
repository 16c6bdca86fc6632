//! The front end after parsing (docs/frontend.md): find and parse the
//! modules a program imports, then rename, which resolves every name,
//! operator chains by fixity, records into ordinary Haskell and `deriving`
//! clauses into instances. The type checker (`types/`) takes its output.

pub mod derive;
pub mod fixity;
pub mod modules;
pub mod records;
pub mod rename;

#[cfg(test)]
mod tests;
