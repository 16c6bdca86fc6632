//! `gph repl`: an interactive session over the loaded file.
//!
//! Each evaluation compiles the whole program again: the loaded file's text,
//! then the session's definitions, then `gph'it = EXPR` and an entry point
//! `gph'main` that prints `gph'it` (or runs it, when it is an `IO` action).
//! Compiling the Prelude and a file takes a few tens of milliseconds, so this
//! keeps the REPL exactly as faithful as `gph run`, with no second compiler.
//! Diagnostics about the appended part are shown against `<interactive>`.
//!
//! The folder, one concern a file:
//! - `mod.rs`: the session's state, the loop that reads lines, and what
//!   one input is (a command, or else a statement);
//! - `commands.rs`: the table of commands, the only list of them: dispatch,
//!   `:help` and completion all read it (name, abbreviations, argument,
//!   help, handler, what its argument completes to);
//! - `source.rs`: the program text with the input placed in it, and errors
//!   moved back into what the user typed;
//! - `eval.rs`: statements: expressions, definitions, `x <- action`, `import`;
//! - `load.rs`: `:load`, `:reload`, `:cd`, `:edit`, `:!`;
//! - `query.rs`: `:type`, `:browse`, `:info`, `:kind`, `:sc`;
//! - `stepper.rs`: `:step`, `:steps`, `:graph`, `:sprint`, `:print`;
//! - `machine.rs`: a run on the parallel machine, `:main`, and what the last
//!   run recorded (`:stats`, `:sparks`, `:messages`, `:profile`, ...);
//! - `settings.rs`: `:set` and `:unset`, and the settings' names;
//! - `complete.rs`: tab completion.

mod commands;
#[cfg(not(target_arch = "wasm32"))]
mod complete;
mod eval;
mod load;
mod machine;
mod query;
mod settings;
mod source;
mod stepper;

use crate::{CompileOpts, MachineOpts};
use commands::Action;
#[cfg(not(target_arch = "wasm32"))]
use complete::Completion;
#[cfg(not(target_arch = "wasm32"))]
use rustyline::{completion::FilenameCompleter, error::ReadlineError, Editor};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The synthetic name an input's value is bound to (shown as `it`).
const IT: &str = "gph'it";
/// The entry point of an evaluation's program.
const ENTRY: &str = "gph'main";

/// The type synonym `:kind` declares.
const KIND: &str = "Gph'kind";

struct Session {
    /// The loaded file (None when none is, or when the last :load failed).
    file: Option<String>,
    /// What :reload loads: the file of the last :load, loaded or not.
    target: Option<String>,
    /// The loaded file's text (empty without a file).
    text: String,
    /// The session's definitions, in order, each with the names it binds.
    defs: Vec<(Vec<String>, String)>,
    imports: Vec<String>,
    timing: bool,
    machine: MachineOpts,
    compiler: gph_compiler::Options,
    interrupt: Arc<AtomicBool>,
    /// Names for tab completion.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // completion only
    names: Arc<Mutex<Vec<String>>>,
    /// The program's arguments (getArgs) for the evaluation (`:main`).
    args: Vec<String>,
    /// The machine's session: the values that live from one evaluation
    /// to the next.
    machine_session: gph_runtime::session::Session,
    /// Names bound to values (`x <- action`, `it`) and their types.
    bound: Vec<(String, String)>,
    /// The most steps `:steps` shows (`:set steps N`).
    step_limit: u64,
    /// Where `:graph` writes (`:set graph-file PATH`).
    graph_file: String,
    /// Pattern bindings so far (`(a, b) <- action`), to name their values.
    pattern_binds: u32,
    /// LANGUAGE extensions set with `:set -XName`, on for every input as
    /// if the program's header named them.
    extensions: Vec<String>,
    /// A `:step` in progress: the next input line continues it.
    stepping: Option<gph_compiler::step::Stepper>,
    /// The last evaluation's statistics (`:stats`, `:sparks`).
    last: Option<gph_runtime::Stats>,
    /// Whether the last evaluation's events are in `scratch`.
    recorded: bool,
    /// Whether its recording stopped at `machine::RECORDING_LIMIT`.
    recording_cut: bool,
    /// A folder of the session's own, removed when the session ends
    /// (None when it could not be made: nothing is recorded then).
    scratch: Option<tempfile::TempDir>,
    /// The last program `types` checked without errors and its types,
    /// kept for the rest of one input: binding `it` checks the session's
    /// program and completion's names check it again, and each check is
    /// the whole front end (10 ms in a release build, 100 in a debug one).
    /// Forgotten at the next input, which may follow a change on disk.
    types_memo: std::cell::RefCell<Option<(source::Key, source::Types)>>,
    /// Commands that reach outside the session are refused (`Repl::sandbox`).
    sandboxed: bool,
    /// What the last input gave the browser's page to show (`Repl::take_shown`).
    shown: std::cell::RefCell<Option<(String, Vec<u8>)>>,
    /// The browser build's recording of the last evaluation (eventlog,
    /// trace, profile), in memory: it has no scratch folder.
    in_memory: Option<[gph_runtime::obs::out::Target; 3]>,
}

impl Session {
    /// Runs one input (a command, a definition or an expression); false to quit.
    fn input(&mut self, line: &str) -> bool {
        self.types_memo.take();
        let t = line.trim();
        if self.stepping.is_some() && self.step_input(t) {
            return true;
        }
        if t.is_empty() {
            return true;
        }
        if let Some(cmd) = t.strip_prefix(':') {
            let (c, arg) = commands::split(cmd);
            let found = commands::find(c);
            if self.sandboxed && found.is_some_and(|c| c.outside) {
                gph_runtime::host_println!(
                    "`:{c}` is not available here: it writes files or runs commands"
                );
                return true;
            }
            match found.map(|c| &c.action) {
                Some(Action::Run(run)) => run(self, arg),
                Some(Action::Quit) => return false,
                None => {
                    gph_runtime::host_println!("unknown command `:{c}` (:help lists the commands)")
                }
            }
            return true;
        }
        self.statement(line);
        true
    }
}

/// The browser build has no line editor, so no completion: nothing to keep
/// the names for (`complete.rs` does natively).
#[cfg(target_arch = "wasm32")]
impl Session {
    fn refresh_names(&self) {}
}

#[cfg(not(target_arch = "wasm32"))]
fn history_path() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".gph_history"))
}

/// A REPL session without its line editor: what `gph repl` runs each
/// input through, and what the fuzz target of the REPL (`fuzz/`) drives.
pub struct Repl {
    session: Session,
}

impl Repl {
    /// A session with nothing loaded.
    pub fn new(machine: MachineOpts, compiler: CompileOpts) -> Repl {
        // Each evaluation's recording goes here (`:profile`, `:trace` and
        // `:eventlog` copy it out); a folder of a random name, this user's
        // alone (src/files.rs says why).
        let scratch_dir = match crate::files::scratch_dir("gph-repl-") {
            Ok(d) => Some(d),
            // The browser has no files: nothing is recorded there.
            Err(_) if cfg!(target_arch = "wasm32") => None,
            Err(e) => {
                gph_runtime::host_eprintln!(
                    "gph: cannot make a scratch folder in {}: {e}",
                    std::env::temp_dir().display()
                );
                None
            }
        };
        let session = Session {
            machine_session: gph_runtime::session::Session::new(),
            bound: Vec::new(),
            step_limit: 1000,
            graph_file: "gph-graph.dot".into(),
            pattern_binds: 0,
            extensions: Vec::new(),
            stepping: None,
            args: Vec::new(),
            last: None,
            recorded: false,
            recording_cut: false,
            scratch: scratch_dir,
            file: None,
            target: None,
            text: String::new(),
            defs: Vec::new(),
            imports: Vec::new(),
            timing: false,
            machine,
            compiler: compiler.options(),
            interrupt: Arc::new(AtomicBool::new(false)),
            names: Arc::new(Mutex::new(Vec::new())),
            types_memo: Default::default(),
            sandboxed: false,
            shown: Default::default(),
            in_memory: cfg!(target_arch = "wasm32")
                .then(|| std::array::from_fn(|_| gph_runtime::obs::out::Target::memory())),
        };
        Repl { session }
    }

    /// From now on, commands that write files or run other programs
    /// (`:!`, `:edit`, `:cd`, `:graph`, `:eventlog`, `:trace`, `:profile`,
    /// `:set stats-json`) are refused: for inputs nobody chose (the fuzz
    /// target's). The programs it evaluates still do their own IO
    /// (`readFile`, `writeFile`): a session open to strangers must
    /// confine those too.
    pub fn sandbox(&mut self) {
        self.session.sandboxed = true;
    }

    /// Loads `file` (None: nothing).
    pub fn load(&mut self, file: Option<String>) {
        if let Err(too_deep) = gph_syntax::stack::catch(|| self.session.load(file)) {
            gph_runtime::host_eprintln!("gph: {too_deep}");
        }
    }

    /// Runs one input (a command, a definition, an expression, or the
    /// lines of a `:{ ... :}` block joined); false to quit. A program too
    /// deep for the compiler's stack is an error, and the session goes on
    /// as before the input.
    pub fn input(&mut self, input: &str) -> bool {
        // A Ctrl-C from now on (while the input compiles, too) stops it.
        self.session.interrupt.store(false, Ordering::SeqCst);
        let s = &mut self.session;
        let saved = (s.defs.clone(), s.imports.clone());
        match gph_syntax::stack::catch(|| s.input(input)) {
            Ok(go_on) => go_on,
            Err(too_deep) => {
                gph_runtime::host_eprintln!("gph: {too_deep}");
                (s.defs, s.imports) = saved;
                true
            }
        }
    }

    /// What the last input gave the page to show, in the browser build,
    /// which writes no files: `("dot", DOT)` from `:graph`, and the last
    /// evaluation's recording from `:profile` (`"profile"`, SVG), `:trace`
    /// and `:eventlog` (whose FILE names the download).
    pub fn take_shown(&mut self) -> Option<(String, Vec<u8>)> {
        self.session.shown.take()
    }

    /// Set, it stops the evaluation under way (what Ctrl-C sets).
    pub fn interrupt(&self) -> Arc<AtomicBool> {
        self.session.interrupt.clone()
    }
}

/// Runs the REPL until `:quit` or end of input.
#[cfg(not(target_arch = "wasm32"))]
pub fn repl(
    file: Option<String>,
    echo: bool,
    machine: MachineOpts,
    compiler: CompileOpts,
) -> Result<(), ()> {
    let mut repl = Repl::new(machine, compiler);
    if let Some(d) = &repl.session.scratch {
        crate::signals::remove_on_signals(d.path().to_path_buf());
    }
    let names = repl.session.names.clone();
    let mut editor: Editor<Completion, rustyline::history::DefaultHistory> = Editor::new()
        .map_err(|e| gph_runtime::host_eprintln!("gph: cannot start the line editor: {e}"))?;
    {
        let flag = repl.interrupt();
        // Ctrl-C during an evaluation stops it; at the prompt rustyline sees
        // it as a key. Installed after the editor: on a terminal rustyline
        // puts in its own SIGINT handler when it starts, which would
        // otherwise replace this one (then Ctrl-C stopped nothing).
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    editor.set_helper(Some(Completion {
        names,
        files: FilenameCompleter::new(),
    }));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    gph_runtime::host_println!("gph repl: :help for the commands, :quit to leave");
    repl.load(file);
    loop {
        let line = match editor.readline("gph> ") {
            Ok(l) => {
                if echo {
                    gph_runtime::host_println!("gph> {l}");
                }
                l
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                gph_runtime::host_eprintln!("gph: {e}");
                break;
            }
        };
        let _ = editor.add_history_entry(line.as_str());
        let input = if line.trim() == ":{" {
            let mut block = Vec::new();
            loop {
                match editor.readline("gph| ") {
                    Ok(l) if l.trim() == ":}" => {
                        if echo {
                            gph_runtime::host_println!("gph| {l}");
                        }
                        break;
                    }
                    Ok(l) => {
                        if echo {
                            gph_runtime::host_println!("gph| {l}");
                        }
                        let _ = editor.add_history_entry(l.as_str());
                        block.push(l)
                    }
                    Err(_) => break,
                }
            }
            block.join("\n")
        } else {
            line
        };
        if !repl.input(&input) {
            break;
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(())
}
