//! What the passes' unit tests share: a small program, written as an
//! indented raw string, pushed through the real pipeline (the library
//! included, as a user's program is) up to the pass under test.

use crate::{back, core, front, Options};
use gph_syntax::{pretty, Diagnostic, SourceFile};

/// Removes the common indentation of a raw-string program.
pub fn dedent(src: &str) -> String {
    let indent = src
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    src.lines()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect::<Vec<_>>()
        .join("\n")
        .trim_start_matches('\n')
        .to_string()
        + "\n"
}

/// A fragment of a main module as a file: the tests leave out `main`, so
/// one that does nothing is added (the type checker asks for it).
fn fragment(src: &str) -> SourceFile {
    SourceFile::new("t.gph", dedent(src) + "main :: IO ()\nmain = return ()\n")
}

fn messages(diagnostics: &[Diagnostic], errors: bool) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d.is_error() == errors)
        .map(|d| d.message.clone())
        .collect()
}

/// The renamed program, and the front end's error messages.
pub fn renamed(src: &str) -> (Option<front::rename::Program>, Vec<String>) {
    let (program, _, diagnostics) = crate::front_end(&fragment(src));
    (program, messages(&diagnostics, true))
}

/// The main module after renaming, printed as `gph dump --stage renamed`
/// prints it; panics on errors.
pub fn renamed_text(src: &str) -> String {
    let (program, errors) = renamed(src);
    assert!(errors.is_empty(), "{errors:?}");
    pretty::module(program.unwrap().modules.last().unwrap())
}

/// The whole program as the desugarer leaves it, and the warnings about
/// the main file; panics on errors.
pub fn desugared(src: &str) -> (core::Program, Vec<String>) {
    let (core, _, diagnostics) = crate::core_of(&fragment(src), None);
    assert!(
        messages(&diagnostics, true).is_empty(),
        "{:?}",
        messages(&diagnostics, true)
    );
    (core.unwrap().core, messages(&diagnostics, false))
}

/// Everything the Core passes and the back end produced, Core Lint
/// included (it is on in test builds); panics on errors.
pub fn compiled(src: &str, opts: &Options) -> back::Compiled {
    let (compiled, _, diagnostics) = crate::compile_full(&fragment(src), "", opts);
    let errors = messages(&diagnostics, true);
    assert!(errors.is_empty(), "{errors:?}");
    compiled.unwrap().0
}

/// The right-hand side of the top-level binding `name` (`Main.f`).
pub fn binding<'a>(program: &'a core::Program, name: &str) -> &'a core::Expr {
    program
        .binds
        .iter()
        .find(|(n, _)| &**n == name)
        .map(|(_, e)| e)
        .unwrap_or_else(|| panic!("no binding {name}"))
}

/// `core::show_expr` without the variables' numbers (`x_12` is `x`), so
/// that a test can say what it expects.
pub fn shown(e: &core::Expr) -> String {
    let text = core::show_expr(e);
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let ends_a_name = |out: &String| out.ends_with(|p: char| p.is_alphanumeric() || p == '\'');
        if c == '_' && chars.peek().is_some_and(char::is_ascii_digit) && ends_a_name(&out) {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}
