//! The `gph` command: `check`, `dump`, and (with the machine) `run` and `repl`.

use clap::{Parser, Subcommand, ValueEnum};
use gph_syntax::{Diagnostic, SourceFile, SourceMap};
use std::io::IsTerminal;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "gph",
    version,
    about = "A graph-reduction interpreter for a lazy parallel Haskell (GpH and Eden)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and type-check a program; report every error found.
    Check { file: String },
    /// Print what one compiler pass produced.
    Dump {
        #[arg(long, value_enum)]
        stage: Stage,
        file: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Stage {
    /// The lexer's tokens.
    Tokens,
    /// Tokens with the layout rule's virtual braces and semicolons (`v{ v; v}`).
    Layout,
    /// The syntax tree after parsing and fixity resolution.
    Ast,
    /// The program with every name resolved to its definition.
    Renamed,
    /// Every top-level binding with its inferred type.
    Types,
    /// The desugared Core program.
    Core,
}

fn read_source(path: &str) -> Result<SourceFile, String> {
    std::fs::read_to_string(path)
        .map(|text| SourceFile::new(path, text))
        .map_err(|e| format!("gph: cannot read {path}: {e}"))
}

/// Prints diagnostics to stderr, in source order; returns whether any is an error.
fn report(sources: &SourceMap, diags: &[Diagnostic]) -> bool {
    let color = std::io::stderr().is_terminal();
    let mut diags = diags.to_vec();
    gph_syntax::diag::sort(&mut diags);
    for d in &diags {
        match sources.file_of(d.span) {
            Some(file) => eprint!("{}", d.render(file, color)),
            None => eprintln!("gph: {}", d.message),
        }
    }
    diags.iter().any(Diagnostic::is_error)
}

fn run(cli: Cli) -> Result<(), ()> {
    match cli.command {
        Command::Check { file } => {
            let src = read_source(&file).map_err(|e| eprintln!("{e}"))?;
            let result = gph_compiler::check(&src);
            if report(&result.sources, &result.diagnostics) {
                return Err(());
            }
            Ok(())
        }
        Command::Dump { stage, file } => {
            let src = read_source(&file).map_err(|e| eprintln!("{e}"))?;
            let stage = match stage {
                Stage::Tokens => gph_compiler::Stage::Tokens,
                Stage::Layout => gph_compiler::Stage::Layout,
                Stage::Ast => gph_compiler::Stage::Ast,
                Stage::Renamed => gph_compiler::Stage::Renamed,
                Stage::Types => gph_compiler::Stage::Types,
                Stage::Core => gph_compiler::Stage::Core,
            };
            let result = gph_compiler::dump(&src, stage);
            let failed = report(&result.sources, &result.diagnostics);
            if let Some(out) = result.output {
                print!("{out}");
            }
            if failed {
                return Err(());
            }
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(()) => ExitCode::FAILURE,
    }
}
