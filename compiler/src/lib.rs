//! gph's compiler passes after parsing.
//!
//! `modules (load + parse) ─ rename (scopes, fixity) ─ typecheck ─ desugar ─ Core`

pub mod backend;
pub mod codegen;
pub mod core;
pub mod derive;
pub mod desugar;
pub mod exhaustive;
pub mod fixity;
pub mod fuse;
pub mod graph;
pub mod info;
pub mod lift;
pub mod lint;
pub mod modules;
pub mod prims;
pub mod records;
pub mod rename;
pub mod simplify;
pub mod step;
pub mod strictness;
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
    /// The lifted supercombinators (after simplification), with the
    /// strictness and workers found.
    Sc,
    /// The machine code.
    Code,
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

/// Whether a diagnostic points into the main file (the first of the map).
fn in_main_file(sources: &SourceMap, d: &Diagnostic) -> bool {
    sources
        .files
        .first()
        .is_some_and(|f| d.span.start >= f.base && d.span.start <= f.base + f.text.len() as u32)
}

/// The whole pipeline to Core: front end, type checker (stopping at errors),
/// desugarer. The Core program holds every module (the Prelude and the
/// library included) and is closed; the second component is the main
/// module's name. Pattern warnings are kept for the main file only (the
/// library's are the library's business).
fn core_of(
    file: &SourceFile,
    interactive_from: Option<u32>,
) -> (
    Option<(core::Program, gph_syntax::lexer::Sym)>,
    SourceMap,
    Vec<Diagnostic>,
) {
    let (program, sources, mut diagnostics) = front_end(file);
    let Some(p) = program.filter(|_| !diagnostics.iter().any(Diagnostic::is_error)) else {
        return (None, sources, diagnostics);
    };
    let typed = types::typecheck(&p.modules, interactive_from);
    diagnostics.extend(typed.diagnostics);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return (None, sources, diagnostics);
    }
    let (core, more) = desugar::desugar(&typed.elaborated, &sources);
    diagnostics.extend(more.into_iter().filter(|d| in_main_file(&sources, d)));
    (Some((core, p.main.clone())), sources, diagnostics)
}

/// The whole pipeline to Core, for the back end: the program of every
/// module (closed: see `core::Program::check_scopes`), the files spans point
/// into, and every diagnostic (errors, or warnings about the main file).
/// `None` when there are errors.
pub fn to_core(file: &SourceFile) -> (Option<core::Program>, SourceMap, Vec<Diagnostic>) {
    let (core, sources, diagnostics) = core_of(file, None);
    (core.map(|(c, _)| c), sources, diagnostics)
}

/// How the back end compiles: what `gph run -O0` and `--lint` choose.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Run the simplifier, specialisation and deforestation (`-O1`, the
    /// default). `-O0` is the straightest translation: the reference the
    /// optimised pipeline is compared with.
    pub optimise: bool,
    /// Check the Core after every Core-to-Core pass (Core Lint). On in
    /// debug builds, and with `--lint`.
    pub lint: bool,
    /// Where the text typed at the REPL starts in the main file (a byte
    /// offset): constraints arising there are defaulted by GHCi's extended
    /// rules (`show []` is `"[]"`). `None` outside the REPL.
    pub interactive_from: Option<u32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            optimise: true,
            lint: cfg!(debug_assertions),
            interactive_from: None,
        }
    }
}

/// The whole pipeline: front end, type checker, desugarer, simplifier,
/// lambda lifter, strictness analysis, code generator, with the main
/// module's `main` as the entry point. `None` when there are errors.
pub fn compile(
    file: &SourceFile,
    opts: &Options,
) -> (
    Option<gph_runtime::code::Program>,
    SourceMap,
    Vec<Diagnostic>,
) {
    compile_entry(file, "main", opts)
}

/// [`compile`] with another binding of the main module as the entry point
/// (`""`: none, for looking at the code).
pub fn compile_entry(
    file: &SourceFile,
    entry: &str,
    opts: &Options,
) -> (
    Option<gph_runtime::code::Program>,
    SourceMap,
    Vec<Diagnostic>,
) {
    let (compiled, sources, diagnostics) = compile_full(file, entry, opts);
    (compiled.map(|(c, _)| c.code), sources, diagnostics)
}

/// The pipeline with everything the back end produced (for dumps and the
/// REPL's `:sc`), and the main module's name.
pub fn compile_full(
    file: &SourceFile,
    entry: &str,
    opts: &Options,
) -> (
    Option<(backend::Compiled, gph_syntax::lexer::Sym)>,
    SourceMap,
    Vec<Diagnostic>,
) {
    let (core, sources, mut diagnostics) = core_of(file, opts.interactive_from);
    let Some((core, main_module)) = core else {
        return (None, sources, diagnostics);
    };
    let main = format!("{main_module}.{entry}");
    let has_main = !entry.is_empty() && core.binds.iter().any(|(n, _)| **n == *main);
    if !entry.is_empty() && !has_main {
        diagnostics.push(Diagnostic::error(
            gph_syntax::Span { start: 0, end: 0 },
            format!("the program has no `{entry}`"),
        ));
        return (None, sources, diagnostics);
    }
    let compiled = backend::compile_core(core, has_main.then_some(main.as_str()), opts);
    for e in &compiled.errors {
        diagnostics.push(Diagnostic::error(
            gph_syntax::Span { start: 0, end: 0 },
            format!("internal error: {e}"),
        ));
    }
    (Some((compiled, main_module)), sources, diagnostics)
}

/// Runs the front end on a file (up to Core) and collects every diagnostic.
pub fn check(file: &SourceFile) -> Outcome {
    let (_, sources, diagnostics) = core_of(file, None);
    Outcome {
        sources,
        diagnostics,
        output: None,
    }
}

/// Runs the passes up to `stage` and prints that stage's output.
pub fn dump(file: &SourceFile, stage: Stage, opts: &Options) -> Outcome {
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
                let r = types::typecheck(&p.modules, opts.interactive_from);
                diagnostics.extend(r.diagnostics.iter().cloned());
                types::show_types(&r)
            });
            Outcome {
                sources,
                diagnostics,
                output,
            }
        }
        Stage::Sc | Stage::Code => {
            let (compiled, sources, diagnostics) = compile_full(file, "", opts);
            let output = compiled.map(|(c, main)| {
                let prefix = format!("{main}.");
                if stage == Stage::Sc {
                    c.show_sc(&prefix)
                } else {
                    c.show_code(&prefix)
                }
            });
            Outcome {
                sources,
                diagnostics,
                output,
            }
        }
        Stage::Core => {
            let (core, sources, diagnostics) = core_of(file, opts.interactive_from);
            let output = core.map(|(core, main)| {
                let prefix = format!("{main}.");
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
