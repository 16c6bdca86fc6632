//! gph's compiler passes after parsing.
//!
//! `ast ─ fixity ─ rename ─ typecheck ─ desugar ─ Core`

use gph_syntax::{layout, lexer, Diagnostic, SourceFile};

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

pub struct CheckResult {
    pub diagnostics: Vec<Diagnostic>,
}

/// Runs the front end on a file and collects every diagnostic.
pub fn check(file: &SourceFile) -> CheckResult {
    let (_, diagnostics) = gph_syntax::parse_file(file);
    CheckResult { diagnostics }
}

/// Runs the passes up to `stage` and prints that stage's output.
pub fn dump(file: &SourceFile, stage: Stage) -> (Option<String>, Vec<Diagnostic>) {
    let (tokens, mut diags) = lexer::lex(&file.text, file.base);
    match stage {
        Stage::Tokens => (
            Some(layout::show_tokens(&file.text, file.base, &tokens)),
            diags,
        ),
        Stage::Layout => {
            let laid = layout::layout(&file.text, file.base, &tokens);
            (
                Some(layout::show_tokens(&file.text, file.base, &laid)),
                diags,
            )
        }
        _ => {
            let (m, more) = gph_syntax::parse_file(file);
            diags.clear();
            diags.extend(more);
            (m.map(|m| format!("{m:#?}\n")), diags)
        }
    }
}
