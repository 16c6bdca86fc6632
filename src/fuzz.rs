//! The fuzz targets' bodies (`fuzz/fuzz_targets/`, docs/reliability.md
//! "Fuzzing"): what each does with one input. They live here so that the
//! test suite runs them on the seeds with the ordinary build
//! (tests/fuzz.rs), while `fuzz/run.sh` runs them under libFuzzer, whose
//! instrumented build of the whole tree took CI four to five minutes.

use std::sync::atomic::Ordering;
use std::time::Duration;

/// The front end on any text: lexer, layout, parser, renamer, type
/// checker, desugarer, optimiser (Core Lint after every pass) and code
/// generator give diagnostics or a program, never a panic, a hang or a
/// stack overflow.
pub fn frontend(data: &[u8]) {
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
}

/// Grid and machine files (TOML) on any text: a grid or a located error,
/// never a panic; a grid that parses runs on any number of its PEs or
/// says why not.
pub fn grid(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(grid) = gph_runtime::engine::grid::Grid::parse(text, "fuzz.toml") {
        for n in [1, 2, grid.len(), 64] {
            let _ = grid.with_pes(n);
        }
    }
}

/// Lines of one REPL input at most: each compiles the Prelude again.
const MAX_LINES: usize = 8;

/// What the REPL target does once per process: a program that reads
/// standard input gets end of file, not the fuzzer's terminal (a read
/// blocks where no interrupt reaches), and the session works in a scratch
/// folder.
pub fn repl_init() {
    let null = std::fs::File::open("/dev/null").expect("/dev/null");
    // SAFETY: replaces this process's descriptor 0 with /dev/null.
    unsafe {
        libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), 0);
    }
    let dir = std::env::temp_dir().join(format!("gph-fuzz-repl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    std::env::set_current_dir(&dir).expect("into the scratch folder");
}

/// The REPL on any lines typed at it: commands with any arguments,
/// definitions, expressions, `:set` with any option. Each line gets an
/// answer (an error is fine); no panic, no hang, no stack overflow. The
/// session is sandboxed (no `:!`, `:edit`, `:cd`, files written); an
/// evaluation that runs on is interrupted after two seconds, as a user's
/// Ctrl-C would (a loop is the program's business; a compiler that does
/// not come back is a bug).
pub fn repl(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines: Vec<String> = text.lines().take(MAX_LINES).map(String::from).collect();
    let _ = gph_syntax::stack::run(move || {
        let machine =
            crate::MachineOpts::parse(&["--pes", "2", "--engine", "sim", "--heap-limit", "256M"])
                .expect("the fuzz target's options");
        let compiler = crate::CompileOpts::parse(&[]).expect("the default options");
        let mut repl = crate::repl::Repl::new(machine, compiler);
        repl.sandbox();
        for line in lines {
            let flag = repl.interrupt();
            let (done, wait) = std::sync::mpsc::channel::<()>();
            let watchdog = std::thread::spawn(move || {
                if wait.recv_timeout(Duration::from_secs(2)).is_err() {
                    flag.store(true, Ordering::SeqCst);
                }
            });
            let go_on = repl.input(&line);
            let _ = done.send(());
            let _ = watchdog.join();
            if !go_on {
                break;
            }
        }
    });
}
