//! gph's compiler passes after parsing.
//!
//! `modules (load + parse) ─ rename (scopes, fixity) ─ typecheck ─ desugar ─ Core`

pub mod core;
pub mod derive;
pub mod desugar;
pub mod exhaustive;
pub mod fixity;
pub mod modules;
pub mod rename;
pub mod types;

use gph_syntax::{layout, lexer, pretty, Diagnostic, SourceFile, SourceMap};
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
    let (program, sources, mut diagnostics) = front_end(file);
    if let Some(p) = program.filter(|_| !diagnostics.iter().any(Diagnostic::is_error)) {
        diagnostics.extend(types::typecheck(&p.modules).diagnostics);
    }
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
                output: m.map(|m| pretty::module(&m)),
                sources,
                diagnostics,
            }
        }
        Stage::Renamed => {
            let (program, sources, diagnostics) = front_end(file);
            let output = program.and_then(|p| p.modules.last().map(pretty::module));
            Outcome {
                sources,
                diagnostics,
                output,
            }
        }
        Stage::Types => {
            let (program, sources, mut diagnostics) = front_end(file);
            if diagnostics.iter().any(Diagnostic::is_error) {
                return Outcome {
                    sources,
                    diagnostics,
                    output: None,
                };
            }
            let output = program.map(|p| {
                let r = types::typecheck(&p.modules);
                diagnostics.extend(r.diagnostics.iter().cloned());
                types::show_types(&r)
            });
            Outcome {
                sources,
                diagnostics,
                output,
            }
        }
        Stage::Core => {
            let (program, sources, mut diagnostics) = front_end(file);
            if diagnostics.iter().any(Diagnostic::is_error) {
                return Outcome {
                    sources,
                    diagnostics,
                    output: None,
                };
            }
            let output = program.map(|p| {
                let (core, more) = desugar::desugar(&p);
                // Warnings about the library are the library's business.
                let main_file = sources
                    .files
                    .first()
                    .map(|f| (f.base, f.base + f.text.len() as u32));
                diagnostics.extend(more.into_iter().filter(|d| {
                    main_file.is_some_and(|(a, b)| d.span.start >= a && d.span.start <= b)
                }));
                let prefix = format!("{}.", p.main);
                let shown = core::Program {
                    data: core
                        .data
                        .into_iter()
                        .filter(|d| d.name.starts_with(&prefix))
                        .collect(),
                    binds: core
                        .binds
                        .into_iter()
                        .filter(|(n, _)| n.starts_with(&prefix))
                        .collect(),
                    prims: Vec::new(),
                };
                shown.to_string()
            });
            Outcome {
                sources,
                diagnostics,
                output,
            }
        }
    }
}
