//! gph's syntax: lexer, layout, syntax tree and parser.
//!
//! `source text ─ lexer ─ layout ─ parser ─ ast::Module`

pub mod ast;
pub mod diag;
pub mod layout;
pub mod lexer;
pub mod parse;
pub mod pretty;
pub mod span;

#[allow(clippy::all, unused)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/grammar.rs"));
}

pub use diag::{Diagnostic, Severity};
pub use span::{SourceFile, Span};

/// Lexes, lays out and parses a source file.
pub fn parse_file(file: &SourceFile) -> (Option<ast::Module>, Vec<Diagnostic>) {
    let (tokens, mut diags) = lexer::lex(&file.text);
    let laid = layout::layout(&file.text, &tokens);
    let (m, more) = parse::parse_module(laid, file.text.len());
    diags.extend(more);
    (m, diags)
}
