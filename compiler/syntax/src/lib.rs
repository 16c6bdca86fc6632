//! gph's syntax: lexer, layout, syntax tree and parser.
//!
//! `source text ─ lexer ─ layout ─ parser ─ ast::Module`

pub mod ast;
pub mod diag;
pub mod files;
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
    let extensions = lexer::language_extensions(&file.text)
        .map(str::to_string)
        .collect();
    let (m, more) =
        parse::parse_module_with(laid, (file.base as usize) + file.text.len(), extensions);
    diags.extend(more);
    diags.extend(unsupported_extensions(file));
    (m, diags)
}

/// The LANGUAGE extensions gph reads a program with. Any other is named in
/// a warning, which `gph run` shows only when the program does not compile
/// (a program that asks for an extension it does not use runs).
pub const EXTENSIONS: &[&str] = &[
    "BangPatterns",
    "TupleSections",
    "DeriveFunctor",
    "DeriveFoldable",
    "DeriveTraversable",
    "LambdaCase",
    "InstanceSigs",
    "MultiWayIf",
    "NumericUnderscores",
    "BinaryLiterals",
    "RecordWildCards",
    "NamedFieldPuns",
    "ScopedTypeVariables",
    "ExplicitForAll",
    "FlexibleInstances",
    "FlexibleContexts",
    "TypeSynonymInstances",
    "GeneralizedNewtypeDeriving",
    "GeneralisedNewtypeDeriving",
    "DerivingStrategies",
    "StandaloneDeriving",
    "DeriveGeneric",
    "DeriveAnyClass",
    "OverloadedStrings",
    "KindSignatures",
    "ExistentialQuantification",
    "DeriveDataTypeable",
    "GADTSyntax",
    "GADTs",
    "TypeApplications",
    "ParallelListComp",
    "ViewPatterns",
    "RankNTypes",
    "Rank2Types",
    "MultiParamTypeClasses",
    "FunctionalDependencies",
    "BlockArguments",
    "UndecidableInstances",
    "ConstraintKinds",
    "NoMonomorphismRestriction",
    "NegativeLiterals",
    "StrictData",
    "TypeOperators",
    "DerivingVia",
    "Haskell2010",
    "Haskell98",
];

/// Extensions under which a program gph would compile without them means
/// something else (another parse, other strictness, other names for the
/// syntax): asking for one is an error, not a warning.
const MEANING_CHANGING: &[&str] = &[
    "Strict",
    "LexicalNegation",
    "RebindableSyntax",
    "OverloadedLists",
    "PostfixOperators",
];

fn unsupported_extensions(file: &SourceFile) -> Vec<Diagnostic> {
    let text = &file.text;
    // The extensions beyond the language standards named last.
    let named: Vec<&str> = EXTENSIONS
        .iter()
        .copied()
        .filter(|e| !e.starts_with("Haskell"))
        .collect();
    lexer::language_extensions(text)
        .filter(|e| !EXTENSIONS.contains(e))
        .map(|e| {
            let at = e.as_ptr() as usize - text.as_ptr() as usize;
            let span = Span::new(at + file.base as usize, at + e.len() + file.base as usize);
            if MEANING_CHANGING.contains(&e) {
                return Diagnostic::error(
                    span,
                    format!("gph does not support the extension `{e}`"),
                )
                .with_label("not supported")
                .with_help(format!(
                    "without `{e}` the program would mean something else, so gph does not \
                         compile it; gph reads Haskell 2010 with {} and {}",
                    named[..named.len() - 1].join(", "),
                    named[named.len() - 1]
                ));
            }
            Diagnostic::warning(span, format!("gph does not support the extension `{e}`"))
                .with_label("not supported")
                .with_help(format!(
                    "gph reads Haskell 2010 with {} and {}; the program is compiled without `{e}`",
                    named[..named.len() - 1].join(", "),
                    named[named.len() - 1]
                ))
        })
        .collect()
}
