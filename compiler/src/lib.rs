//! gph's compiler: everything after parsing, from a program's modules to
//! the machine's code (`gph_code::Program`), and the teaching
//! stepper. The lexer, layout and parser are the `gph-syntax` crate.
//!
//! This file is the driver. The folders are the pipeline's phases, in the
//! order docs/frontend.md and docs/backend.md describe them:
//!
//! ```text
//! front/    modules (load + parse) ─ rename (scopes, fixity, records, derive)
//! types/    type checking ─ the elaborated program (dictionaries explicit)
//! desugar/  pattern matching and overloading compiled away ─ Core
//! core/     simplify ─ fuse                (Core Lint after every pass)
//! back/     lift ─ strictness ─ codegen ─ code::Program
//! ```
//!
//! [`compile`] runs them all ([`front_end`], then `core_of`, then
//! [`compile_core`]); [`dump`] stops after one and prints what it produced
//! (`gph dump --stage`).

// The passes, in the order they run.

// 1. Front end: load the modules; rename (scopes, fixity, records, derived
// instances).
pub mod front;

// 2. Type inference, and elaboration into explicit dictionary passing.
pub mod types;

// 3. Desugaring: the match compiler, the elaborated program to Core.
pub mod desugar;

// 4. Core, and the Core-to-Core passes: simplifier, deforestation (Core Lint
// after each).
pub mod core;

// 5. Back end: lambda lifting, strictness and workers, code generation.
pub mod back;

// Beside the pipeline: strongly connected components (for `types` and
// `core`), the REPL's `:info` and `:kind`, the teaching stepper.
pub mod graph;
pub mod repl;
pub mod step;

// What the passes' unit tests share.
#[cfg(test)]
mod testing;

use gph_syntax::{layout, lexer, pretty, Diagnostic, SourceFile, SourceMap};
use std::path::Path;

/// A pass whose output `gph dump` can print (`Stage::ALL` says what each
/// shows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Tokens,
    Layout,
    Ast,
    Renamed,
    Types,
    Core,
    Simplified,
    Sc,
    Code,
}

impl Stage {
    /// Every stage in the pipeline's order, with its name for `gph dump
    /// --stage` and what it shows (the command's help).
    pub const ALL: [(Stage, &'static str, &'static str); 9] = [
        (Stage::Tokens, "tokens", "The lexer's tokens"),
        (
            Stage::Layout,
            "layout",
            "Tokens with the layout rule's virtual braces and semicolons (`v{ v; v}`)",
        ),
        (
            Stage::Ast,
            "ast",
            "The syntax tree after parsing and fixity resolution",
        ),
        (
            Stage::Renamed,
            "renamed",
            "The program with every name resolved to its definition",
        ),
        (
            Stage::Types,
            "types",
            "Every top-level binding with its inferred type",
        ),
        (Stage::Core, "core", "The desugared Core program"),
        (
            Stage::Simplified,
            "simplified",
            "Core after the simplifier and deforestation (at -O0 only renamed apart), \
             as lambda lifting takes it",
        ),
        (Stage::Sc, "sc", "The lambda-lifted supercombinators"),
        (
            Stage::Code,
            "code",
            "The machine code of each supercombinator",
        ),
    ];
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

/// Pass 1, the front end: loads and renames a program; diagnostics so far
/// are returned with it.
pub fn front_end(
    file: &SourceFile,
) -> (Option<front::rename::Program>, SourceMap, Vec<Diagnostic>) {
    let (loaded, mut diags) = front::modules::load(&file.name, &file.text, dir_of(&file.name));
    if diags.iter().any(Diagnostic::is_error) || loaded.modules.is_empty() {
        return (None, loaded.sources, diags);
    }
    let (program, more) = front::rename::rename(loaded);
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

/// A whole program in Core, from `core_of`.
pub(crate) struct Desugared {
    core: core::Program,
    /// The main module's name.
    main: gph_syntax::lexer::Sym,
    /// The user's modules: the main one and those not from the library.
    user: Vec<gph_syntax::lexer::Sym>,
}

/// Passes 1 to 3, the whole pipeline to Core: front end, type checker
/// (stopping at errors), desugarer. The Core program holds every module (the Prelude and the
/// library included) and is closed; with it the main module's name and
/// the user's modules (`Desugared`). Pattern warnings are kept for the main file only (the
/// library's are the library's business).
fn core_of(
    file: &SourceFile,
    interactive_from: Option<u32>,
) -> (Option<Desugared>, SourceMap, Vec<Diagnostic>) {
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
    let user = p
        .modules
        .iter()
        .map(front::modules::module_name)
        .filter(|n| *n == p.main || front::modules::library_source(n).is_none())
        .collect();
    let d = Desugared {
        core,
        main: p.main.clone(),
        user,
    };
    (Some(d), sources, diagnostics)
}

/// The whole pipeline to Core, for the back end: the program of every
/// module (closed: Core Lint checks it, `core::lint`), the files spans point
/// into, and every diagnostic (errors, or warnings about the main file).
/// `None` when there are errors.
pub fn to_core(file: &SourceFile) -> (Option<core::Program>, SourceMap, Vec<Diagnostic>) {
    let (core, sources, diagnostics) = core_of(file, None);
    (core.map(|d| d.core), sources, diagnostics)
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
) -> (Option<gph_code::Program>, SourceMap, Vec<Diagnostic>) {
    compile_entry(file, "main", opts)
}

/// [`compile`] with another binding of the main module as the entry point
/// (`""`: none, for looking at the code).
pub fn compile_entry(
    file: &SourceFile,
    entry: &str,
    opts: &Options,
) -> (Option<gph_code::Program>, SourceMap, Vec<Diagnostic>) {
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
    Option<(back::Compiled, gph_syntax::lexer::Sym)>,
    SourceMap,
    Vec<Diagnostic>,
) {
    let (core, sources, mut diagnostics) = core_of(file, opts.interactive_from);
    let Some(Desugared {
        core,
        main: main_module,
        user: user_modules,
    }) = core
    else {
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
    let mut core = core;
    if entry == "main" && has_main {
        // `gph run`: only what `main` reaches goes through the passes.
        core::prune::prune(&mut core, |n| n == main);
    } else if has_main {
        // The REPL's input: the session's own definitions stay (each input
        // links the newest of each into the session, `:sprint` finds them
        // by name), and the library only as far as they reach.
        let prefixes: Vec<String> = user_modules.iter().map(|m| format!("{m}.")).collect();
        core::prune::prune(&mut core, |n| prefixes.iter().any(|p| n.starts_with(&**p)));
    }
    let compiled = compile_core(core, has_main.then_some(main.as_str()), opts);
    for e in &compiled.errors {
        diagnostics.push(Diagnostic::error(
            gph_syntax::Span { start: 0, end: 0 },
            format!("internal error: {e}"),
        ));
    }
    (Some((compiled, main_module)), sources, diagnostics)
}

/// Passes 4 and 5, from Core to the machine's code, on a whole (closed)
/// Core program, with Core Lint after every pass. `main` is the original
/// name of the entry point (`Main.main`), if there is one.
pub fn compile_core(mut core: core::Program, main: Option<&str>, opts: &Options) -> back::Compiled {
    let mut lint = Lint {
        on: opts.lint,
        error: None,
    };
    let mut next = core_passes(&mut core, opts, &mut lint);
    let lifted = back::lift::lift(&core, &mut next);
    lint.lifted(&lifted, None, "lambda lifting");
    let info = back::strictness::analyse(&lifted);
    lint.lifted(&lifted, Some(&info), "strictness and workers");
    let (code, codegen_errors) = back::codegen::generate(&lifted, info.clone(), main);
    let mut errors: Vec<String> = lint.error.iter().map(|e| e.to_string()).collect();
    errors.extend(
        codegen_errors
            .into_iter()
            .map(|e| format!("in the code generator: {e}")),
    );
    back::Compiled {
        core,
        lifted,
        info,
        code,
        errors,
    }
}

/// Pass 4, Core to Core: at `-O1` the simplifier (linted after every
/// round) and deforestation; at `-O0` only the renaming apart that the later
/// passes rely on. Returns the next fresh variable number.
fn core_passes(core: &mut core::Program, opts: &Options, lint: &mut Lint) -> u32 {
    lint.core(core, "desugaring", false);
    if opts.optimise {
        let mut each_round = |p: &core::Program, pass: &str| lint.core(p, pass, true);
        let hook: Option<&mut core::simplify::LintHook> = opts.lint.then_some(&mut each_round);
        let mut next = core::simplify::simplify(core, hook);
        core::fuse::fuse(core, &mut next);
        lint.core(core, "deforestation", true);
        next
    } else {
        let next = core::simplify::prepare(core);
        lint.core(core, "renaming", true);
        next
    }
}

/// Core Lint over a run of passes, when `Options::lint` asks for it. Only
/// the first failure is kept: the later ones follow from it.
struct Lint {
    on: bool,
    error: Option<core::lint::LintError>,
}

impl Lint {
    fn core(&mut self, p: &core::Program, pass: &str, unique: bool) {
        if self.on && self.error.is_none() {
            self.error = core::lint::core(p, pass, unique).err();
        }
    }

    fn lifted(
        &mut self,
        p: &back::lift::Program,
        info: Option<&back::strictness::Info>,
        pass: &str,
    ) {
        if self.on && self.error.is_none() {
            self.error = core::lint::lifted(p, info, pass).err();
        }
    }
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
        Stage::Simplified | Stage::Sc | Stage::Code => {
            let (compiled, sources, diagnostics) = compile_full(file, "", opts);
            let output = compiled.map(|(c, main)| {
                let prefix = format!("{main}.");
                match stage {
                    Stage::Simplified => main_module_core(c.core, &prefix),
                    Stage::Sc => c.show_sc(&prefix),
                    _ => c.show_code(&prefix),
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
            let output = core.map(|d| main_module_core(d.core, &format!("{}.", d.main)));
            Outcome {
                sources,
                diagnostics,
                output,
            }
        }
    }
}

/// The data types and bindings of a Core program whose names start with
/// `prefix` (`Main.`), printed: the library's would drown the program's.
fn main_module_core(core: core::Program, prefix: &str) -> String {
    let shown = core::Program {
        data: core
            .data
            .into_iter()
            .filter(|d| d.name.starts_with(prefix))
            .collect(),
        binds: core
            .binds
            .into_iter()
            .filter(|(n, _)| n.starts_with(prefix))
            .collect(),
        prims: Vec::new(),
    };
    shown.to_string()
}
