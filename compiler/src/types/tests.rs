//! Unit tests of the type checker, through the real front end (loader,
//! Prelude, renamer).

use super::*;
use gph_syntax::SourceFile;

/// Type-checks a program; returns the listing and the error messages
/// (with their line numbers).
fn run(src: &str) -> (String, Vec<(usize, String)>) {
    let file = SourceFile::new("t.gph", src);
    let (prog, sources, diags) = crate::front_end(&file);
    let errs: Vec<String> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.clone())
        .collect();
    assert!(errs.is_empty(), "front end errors: {errs:?}");
    let prog = prog.expect("renamed program");
    let r = typecheck(&prog.modules);
    let main_file = &sources.files[0];
    let errors = r
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let line = if main_file.contains(d.span.start) {
                main_file.line_col(d.span.start).0
            } else {
                0
            };
            (line, d.message.clone())
        })
        .collect();
    (show_types(&r), errors)
}

fn ok(src: &str) -> String {
    let (types, errors) = run(src);
    assert!(errors.is_empty(), "unexpected errors: {errors:#?}");
    types
}

#[test]
fn prelude_checks() {
    let t = ok("main = print 1\n");
    assert_eq!(t, "main :: IO ()\n");
}

/// Prints the types and diagnostics of the file named by `GPH_FILE`
/// (a development aid: `GPH_FILE=x.gph cargo test -- --ignored show_file --nocapture`).
#[test]
#[ignore]
fn show_file() {
    let Ok(path) = std::env::var("GPH_FILE") else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let file = SourceFile::new(path, text);
    let (prog, sources, diags) = crate::front_end(&file);
    let render = |d: &Diagnostic| match sources.file_of(d.span) {
        Some(f) => d.render(f, false),
        None => format!("{}\n", d.message),
    };
    for d in &diags {
        eprintln!("{}", render(d));
    }
    let Some(prog) = prog else { return };
    eprintln!("front end done");
    let t0 = std::time::Instant::now();
    let r = typecheck(&prog.modules);
    eprintln!("typecheck: {:?}", t0.elapsed());
    print!("{}", show_types(&r));
    for d in &r.diagnostics {
        eprintln!("{}", render(d));
    }
    if std::env::var("GPH_ELAB").is_ok() {
        if let Some(m) = r.elaborated.modules.last() {
            eprintln!("{m}");
        }
    }
}
