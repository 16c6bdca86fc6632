//! The front end on any text: lexer, layout, parser, renamer, type
//! checker, desugarer, optimiser (Core Lint after every pass) and code
//! generator give diagnostics or a program, never a panic, a hang or a
//! stack overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = gph_syntax::SourceFile::new("Fuzz.gph", text.to_string());
    // The compiler's own thread and stack guard, as `gph run` has them: a
    // program nested too deeply is an error, not a crash.
    let _ = gph_syntax::stack::run(move || {
        let options = gph_compiler::Options {
            optimise: true,
            lint: true,
            ..Default::default()
        };
        let (program, _, diagnostics) = gph_compiler::compile(&file, &options);
        let errors = diagnostics.iter().any(gph_syntax::Diagnostic::is_error);
        assert!(
            errors || program.is_some(),
            "no program and no error: {diagnostics:?}"
        );
    });
});
