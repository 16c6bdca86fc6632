//! gph in the browser (docs/web.md): the compiler, the sim engine and the
//! REPL's sessions as one WebAssembly module, driven by the page's worker
//! (`page/worker.js`).
//!
//! The module speaks a small C interface rather than wasm-bindgen's: a
//! handful of functions that take and give JSON in the module's memory,
//! and three imports (`gph.now_ms`, `gph.write`, `gph.progress`). That
//! needs no generated glue, no second tool to build (wasm-bindgen-cli must
//! match the crate's version exactly and takes ten minutes to build here)
//! and keeps the interface in one page of Rust and one of JavaScript.
//!
//! - `gph_alloc(n)` / `gph_free(p, n)`: room for the worker to write a
//!   request into;
//! - `gph_run(p, n)`: compiles and runs a program (a [`RunRequest`]), its
//!   stdout and stderr going to `gph.write` as they are written; returns
//!   the exit status, and leaves a [`RunResult`] to read with
//!   `gph_result_ptr()` / `gph_result_len()`;
//! - `gph_provide_file(p, n, q, m)`: the file at path `p` (the page's
//!   copies of the repository's programs, the editor's text) for `:load`
//!   and imports, the browser having no files of its own;
//! - `gph_repl_start(p, n)` (machine options, as `gph run` words) and
//!   `gph_repl_input(p, n)`: a REPL session, one input at a time, its
//!   answers to `gph.write`; `gph_repl_shown()`: what the last input
//!   gave the page to show (`:graph`'s DOT, `:profile`'s picture, the
//!   files of `:trace` and `:eventlog`).

use gph::{CompileOpts, MachineOpts};
use gph_runtime::host::{self, Stream};
use gph_runtime::obs::out::Target;
use gph_syntax::{Diagnostic, SourceFile};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::io::Write;

#[link(wasm_import_module = "gph")]
extern "C" {
    /// `performance.now()`.
    fn now_ms() -> f64;
    /// Text for the page: `stream` 1 stdout, 2 stderr.
    fn write(stream: u32, ptr: *const u8, len: usize);
    /// A run's progress: virtual seconds and reductions so far.
    fn progress(virtual_s: f64, reductions: f64);
}

fn host_progress(virtual_s: f64, reductions: u64) {
    unsafe { progress(virtual_s, reductions as f64) }
}

fn host_now() -> f64 {
    unsafe { now_ms() }
}

fn host_write(s: Stream, bytes: &[u8]) {
    let n = match s {
        Stream::Stdout => 1,
        Stream::Stderr => 2,
    };
    unsafe { write(n, bytes.as_ptr(), bytes.len()) }
}

thread_local! {
    /// The last call's answer, for `gph_result_ptr`/`gph_result_len`.
    static RESULT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The REPL session, once started.
    static REPL: RefCell<Option<gph::repl::Repl>> = const { RefCell::new(None) };
}

fn init() {
    host::set_browser_host(host::BrowserHost {
        now_ms: host_now,
        write: host_write,
        progress: host_progress,
    });
}

/// Room for `n` bytes (the worker writes a request there).
#[no_mangle]
pub extern "C" fn gph_alloc(n: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(n.max(1));
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Gives back what `gph_alloc(n)` returned.
///
/// # Safety
/// `p` came from `gph_alloc(n)` and is not used after.
#[no_mangle]
pub unsafe extern "C" fn gph_free(p: *mut u8, n: usize) {
    drop(Vec::from_raw_parts(p, 0, n.max(1)));
}

#[no_mangle]
pub extern "C" fn gph_result_ptr() -> *const u8 {
    RESULT.with(|r| r.borrow().as_ptr())
}

#[no_mangle]
pub extern "C" fn gph_result_len() -> usize {
    RESULT.with(|r| r.borrow().len())
}

/// The request's text.
///
/// # Safety
/// `p` points at `n` bytes the worker wrote.
unsafe fn text<'a>(p: *const u8, n: usize) -> &'a str {
    std::str::from_utf8(std::slice::from_raw_parts(p, n)).unwrap_or("")
}

fn answer(v: &impl Serialize) {
    let bytes = serde_json::to_vec(v).unwrap_or_default();
    RESULT.with(|r| *r.borrow_mut() = bytes);
}

/// A program to run.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct RunRequest {
    /// The program's text and its file's name (`Main.hs`, `sumEuler.gph`).
    pub source: String,
    pub name: String,
    /// What `getArgs` returns.
    pub args: Vec<String>,
    /// What the program reads from stdin.
    pub stdin: String,
    /// `gph run`'s machine and compiler options, as words (`--pes 4
    /// --engine sim --sched gum2 -O0 --stats`); the engine is sim unless
    /// they say otherwise.
    pub options: Vec<String>,
    /// A grid file's name and text (the page fetches the repository's).
    pub grid: Option<GridFile>,
    /// The files to make: the activity profile (SVG), the Chrome trace
    /// (JSON) and the GHC eventlog.
    pub profile: bool,
    pub trace: bool,
    pub eventlog: bool,
}

#[derive(Deserialize)]
pub struct GridFile {
    pub name: String,
    pub text: String,
}

/// What a run gives besides its streamed output.
#[derive(Serialize, Default)]
pub struct RunResult {
    /// The exit status (0: success, 1: an error, else `exitWith`'s).
    pub exit: i32,
    /// The compiler's errors, each with where it points.
    pub diagnostics: Vec<Diag>,
    /// `--stats` as text and as `--stats-json` writes it.
    pub stats: Option<String>,
    pub stats_json: Option<serde_json::Value>,
    /// The files asked for.
    pub profile: Option<String>,
    pub trace: Option<String>,
    /// The eventlog's bytes.
    pub eventlog: Option<Vec<u8>>,
}

/// A diagnostic for the page: the text `gph run` prints, and the span as
/// lines and columns (1-based, columns in characters) to mark in the editor.
#[derive(Serialize)]
pub struct Diag {
    pub severity: &'static str,
    pub message: String,
    pub rendered: String,
    /// The file it points into: the program's name, or a library module.
    pub file: String,
    pub from: (usize, usize),
    pub to: (usize, usize),
}

fn diagnostics(sources: &gph_syntax::SourceMap, diags: &[Diagnostic]) -> Vec<Diag> {
    let mut diags = diags.to_vec();
    gph_syntax::diag::sort(&mut diags);
    diags
        .iter()
        .map(|d| {
            let file = sources.file_of(d.span);
            let (from, to) = file.map_or(((1, 1), (1, 1)), |f| {
                (f.line_col(d.span.start), f.line_col(d.span.end))
            });
            Diag {
                severity: if d.is_error() { "error" } else { "warning" },
                message: d.message.clone(),
                rendered: match file {
                    Some(f) => d.render(f, false),
                    None => format!("gph: {}\n", d.message),
                },
                file: file.map_or_else(String::new, |f| f.name.clone()),
                from,
                to,
            }
        })
        .collect()
}

/// Compiles and runs a [`RunRequest`].
///
/// # Safety
/// `p` points at `n` bytes of JSON the worker wrote.
#[no_mangle]
pub unsafe extern "C" fn gph_run(p: *const u8, n: usize) -> i32 {
    init();
    let result = match serde_json::from_str::<RunRequest>(text(p, n)) {
        Ok(req) => run(req),
        Err(e) => {
            gph_runtime::host_eprintln!("gph: a request the module does not understand: {e}");
            RunResult {
                exit: 1,
                ..Default::default()
            }
        }
    };
    answer(&result);
    result.exit
}

/// Splits `gph run`'s words into the machine's and the compiler's.
fn options(words: &[String]) -> Result<(MachineOpts, CompileOpts), String> {
    let (compiler, machine): (Vec<&str>, Vec<&str>) = words
        .iter()
        .map(String::as_str)
        .partition(|w| w.starts_with("-O") || *w == "--lint");
    let mut machine = machine;
    if !machine.contains(&"--engine") {
        machine.extend(["--engine", "sim"]);
    }
    Ok((
        MachineOpts::parse(&machine)?,
        CompileOpts::parse(&compiler)?,
    ))
}

fn run(req: RunRequest) -> RunResult {
    let mut result = RunResult {
        exit: 1,
        ..Default::default()
    };
    let fail = |e: String| gph_runtime::host_eprintln!("gph: {e}");
    let (machine, compiler) = match options(&req.options) {
        Ok(o) => o,
        Err(e) => {
            fail(e);
            return result;
        }
    };
    let name = if req.name.is_empty() {
        "Main.hs".to_string()
    } else {
        req.name.clone()
    };
    let mut config = match machine.config(&name, req.args.clone()) {
        Ok(c) => c,
        Err(e) => {
            fail(e);
            return result;
        }
    };
    if let Some(g) = &req.grid {
        let grid = gph_runtime::engine::grid::Grid::parse(&g.text, &g.name).and_then(|grid| {
            match req.options.iter().position(|w| w == "--pes") {
                Some(_) => grid.with_pes(config.pes),
                None => Ok(grid),
            }
        });
        match grid {
            Ok(grid) => config.grid = Some(grid),
            Err(e) => {
                fail(e);
                return result;
            }
        }
    }
    let src = SourceFile::new(name.clone(), req.source);
    let (program, sources, diags) = gph_compiler::compile(&src, &compiler.options());
    if diags.iter().any(Diagnostic::is_error) {
        result.diagnostics = diagnostics(&sources, &diags);
        for d in &result.diagnostics {
            let _ = host::stderr().write_all(d.rendered.as_bytes());
        }
        return result;
    }
    let Some(program) = program else {
        return result;
    };
    // The files asked for, in memory.
    let want = |b: bool| b.then(Target::memory);
    let (eventlog, trace, profile) = (want(req.eventlog), want(req.trace), want(req.profile));
    // The same recordings as `gph run --eventlog --trace --profile`.
    let targets = [eventlog.clone(), trace.clone(), profile.clone()];
    let outputs = match gph::options::outputs_at(
        config.prog_name.clone(),
        &machine,
        &config,
        targets,
        None,
    ) {
        Ok(o) => o,
        Err(e) => {
            fail(e);
            return result;
        }
    };
    config.record = outputs.clone().map(|o| o as _);
    let start = host::Instant::now();
    let mut stdin = req.stdin.as_bytes();
    let (exit, stats) = gph_runtime::run_main_with(
        &program,
        &config,
        &gph_runtime::Tuning::default(),
        &mut host::stdout(),
        // Block-buffered, as `gph run`'s stdout into a file or a pipe: the
        // same reductions, so the same virtual times (a line-buffered
        // stdout takes a reduction more per flush).
        false,
        &mut stdin,
    );
    let wall = start.elapsed();
    if let Some(o) = &outputs {
        let run_time = stats.virtual_time.unwrap_or(stats.time.as_secs_f64());
        if let Err(e) = o.finish(run_time) {
            fail(e);
        }
    }
    let text = |t: &Option<Target>| {
        t.as_ref()
            .map(|t| String::from_utf8_lossy(&t.bytes()).into_owned())
    };
    result.profile = text(&profile);
    result.trace = text(&trace);
    result.eventlog = eventlog.map(|t| t.bytes());
    result.stats = Some(gph_runtime::format_stats(&stats));
    result.stats_json = serde_json::from_str(&gph_runtime::obs::stats::to_json(&stats, wall)).ok();
    result.exit = match exit {
        gph_runtime::Exit::Success => 0,
        gph_runtime::Exit::Error(msg) => {
            fail(msg);
            1
        }
        gph_runtime::Exit::ExitWith(code) => code,
    };
    result
}

/// Makes the `m` bytes at `q` the file whose path is the `n` bytes at `p`.
///
/// # Safety
/// Both point at bytes the worker wrote.
#[no_mangle]
pub unsafe extern "C" fn gph_provide_file(p: *const u8, n: usize, q: *const u8, m: usize) {
    gph_syntax::files::provide(text(p, n), text(q, m).to_string());
}

/// Starts a REPL session (sandboxed: no files, no commands) with `gph run`'s
/// machine options as words, separated by spaces (`--pes 4`); the engine
/// is sim unless they say otherwise. Returns 0, or 1 when the options are
/// wrong (the message has gone to stderr).
///
/// # Safety
/// `p` points at `n` bytes the worker wrote.
#[no_mangle]
pub unsafe extern "C" fn gph_repl_start(p: *const u8, n: usize) -> i32 {
    init();
    let words: Vec<String> = text(p, n).split_whitespace().map(String::from).collect();
    match options(&words) {
        Ok((machine, compiler)) => {
            let mut repl = gph::repl::Repl::new(machine, compiler);
            repl.sandbox();
            REPL.with(|r| *r.borrow_mut() = Some(repl));
            0
        }
        Err(e) => {
            gph_runtime::host_eprintln!("gph: {e}");
            1
        }
    }
}

/// What the last REPL input gave the page to show: `:graph`'s DOT, or the
/// last evaluation's recording (`:profile`, `:trace`, `:eventlog`). Its
/// bytes go to the result buffer; returns the kind (0 none, 1 DOT, 2 the
/// profile's SVG, 3 a trace, 4 an eventlog).
#[no_mangle]
pub extern "C" fn gph_repl_shown() -> i32 {
    let shown = REPL.with(|r| r.borrow_mut().as_mut().and_then(|r| r.take_shown()));
    let (kind, bytes) = match shown {
        Some((k, b)) => (
            match k.as_str() {
                "dot" => 1,
                "profile" => 2,
                "trace" => 3,
                _ => 4,
            },
            b,
        ),
        None => (0, Vec::new()),
    };
    RESULT.with(|r| *r.borrow_mut() = bytes);
    kind
}

/// One REPL input (a command, a definition, an expression, or the lines of
/// a `:{ ... :}` block joined); 0 when the session goes on, 1 after
/// `:quit`, 2 when no session was started.
///
/// # Safety
/// `p` points at `n` bytes the worker wrote.
#[no_mangle]
pub unsafe extern "C" fn gph_repl_input(p: *const u8, n: usize) -> i32 {
    let input = text(p, n).to_string();
    REPL.with(|r| match r.borrow_mut().as_mut() {
        Some(repl) => i32::from(!repl.input(&input)),
        None => 2,
    })
}
