//! gph's syntax: lexer, layout, syntax tree and parser.
//!
//! `source text ─ lexer ─ layout ─ parser ─ ast::Module`

pub mod ast;
pub mod diag;
pub mod layout;
pub mod lexer;
pub mod nesting;
pub mod parse;
pub mod pretty;
pub mod span;
pub mod stack;

#[allow(clippy::all, unused)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/grammar.rs"));
}

pub use diag::{Diagnostic, Severity};
pub use span::{SourceFile, SourceMap, Span};

/// Lexes, lays out and parses a source file.
pub fn parse_file(file: &SourceFile) -> (Option<ast::Module>, Vec<Diagnostic>) {
    let (tokens, mut diags) = lexer::lex(&file.text, file.base);
    let laid = layout::layout(&file.text, file.base, &tokens);
    let (m, more) = parse::parse_module(laid, (file.base as usize) + file.text.len());
    diags.extend(more);
    (m, diags)
}
