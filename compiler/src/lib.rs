//! gph's compiler passes after parsing.
//!
//! `modules (load + parse) ─ rename (scopes, fixity) ─ typecheck ─ desugar ─ Core`

pub mod fixity;
pub mod modules;
pub mod rename;

use gph_syntax::{layout, lexer, Diagnostic, SourceFile, SourceMap};
use std::path::Path;

/// A pass whose output `gph dump` can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Tokens,
    Layout,
    Ast,
    Renamed,
    Types,
    Core,
}

/// The outcome of running the front end: every diagnostic, and the files
/// they point into.
pub struct Outcome {
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
    /// What `gph dump` prints, when the requested stage was reached.
    pub output: Option<String>,
}

impl Outcome {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

fn dir_of(path: &str) -> Option<&Path> {
    Path::new(path).parent()
}

/// Loads and renames a program; diagnostics so far are returned with it.
pub fn front_end(file: &SourceFile) -> (Option<rename::Program>, SourceMap, Vec<Diagnostic>) {
    let (loaded, mut diags) = modules::load(&file.name, &file.text, dir_of(&file.name));
    if diags.iter().any(Diagnostic::is_error) || loaded.modules.is_empty() {
        return (None, loaded.sources, diags);
    }
    let (program, more) = rename::rename(loaded);
    diags.extend(more);
    let sources = program.sources.clone();
    (Some(program), sources, diags)
}

/// Runs the front end on a file and collects every diagnostic.
pub fn check(file: &SourceFile) -> Outcome {
    let (_, sources, diagnostics) = front_end(file);
    Outcome {
        sources,
        diagnostics,
        output: None,
    }
}

/// Runs the passes up to `stage` and prints that stage's output.
pub fn dump(file: &SourceFile, stage: Stage) -> Outcome {
    let single = || {
        let mut m = SourceMap::default();
        m.add(file.name.clone(), file.text.clone());
        m
    };
    match stage {
        Stage::Tokens | Stage::Layout => {
            let (tokens, diagnostics) = lexer::lex(&file.text, 0);
            let shown = if stage == Stage::Tokens {
                tokens
            } else {
                layout::layout(&file.text, 0, &tokens)
            };
            Outcome {
                sources: single(),
                diagnostics,
                output: Some(layout::show_tokens(&file.text, 0, &shown)),
            }
        }
        Stage::Ast => {
            let sources = single();
            let (m, diagnostics) = gph_syntax::parse_file(&sources.files[0]);
            Outcome {
                output: m.map(|m| format!("{m:#?}\n")),
                sources,
                diagnostics,
            }
        }
        Stage::Renamed | Stage::Types | Stage::Core => {
            let (program, sources, diagnostics) = front_end(file);
            let output = program.and_then(|p| p.modules.last().map(|m| format!("{m:#?}\n")));
            Outcome {
                sources,
                diagnostics,
                output,
            }
        }
    }
}
