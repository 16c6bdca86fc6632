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
//! - `source.rs`: the program text with the input placed in it, and errors
//!   moved back into what the user typed;
//! - `eval.rs`: statements: expressions, definitions, `x <- action`, `import`;
//! - `load.rs`: `:load`, `:reload`, `:cd`, `:edit`;
//! - `query.rs`: `:type`, `:browse`, `:info`, `:kind`, `:sc`;
//! - `stepper.rs`: `:step`, `:steps`, `:graph`, `:sprint`, `:print`;
//! - `machine.rs`: a run on the parallel machine, `:main`, and what the last
//!   run recorded (`:stats`, `:sparks`, `:messages`, `:profile`, ...);
//! - `settings.rs`: `:set` and `:unset`;
//! - `complete.rs`: tab completion.

mod complete;
mod eval;
mod load;
mod machine;
mod query;
mod settings;
mod source;
mod stepper;

use crate::{CompileOpts, MachineOpts};
use complete::Completion;
use rustyline::completion::FilenameCompleter;
use rustyline::error::ReadlineError;
use rustyline::Editor;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

const HELP: &str = "\
Commands:
  EXPR                evaluate and print an expression (run it if it is an IO action)
  let DEFS / DEFS     add definitions to the session (e.g. `let sq x = x * x`)
  :{ ... :}           a definition or expression over several lines
  x <- ACTION         run an IO action and bind its result to x (`it` is the last value)
  :sprint NAME        how much of a value is evaluated (`_` where it is not)
  :print NAME         the same, with the type of what is not evaluated
  :steps EXPR         every step of its graph reduction (:set steps N: how many)
  :step EXPR          one step at a time: Enter for the next, :continue, :stop
  :graph EXPR|NAME    the heap graph (of EXPR's value, or of NAME now) as DOT and SVG
                      (into gph-graph.dot, or :set graph-file PATH)
  :load FILE          load a file (its top-level names come into scope)
  :reload             load the same file again
  :type EXPR          show the type of an expression
  :browse             list the loaded file's definitions with their types
  :info NAME          what a name is: its type, declaration, instances, fixity
  :kind TYPE          the kind of a type
  :sc NAME            show the supercombinators and machine code of a definition
  :set +s / :unset +s show time, reductions and allocation after each evaluation

The parallel machine (the options of `gph run`, without their dashes):
  :set                show how the machine is set
  :set pes N          evaluate on N PEs          :set engine sim|threads
  :set grid FILE      a grid file's machine      :set sched gum|gum2
  :set OPTION VALUE   any other (thread-limit, low-watermark, seed, heap-limit, ...)
  :unset OPTION       back to its default
After an evaluation:
  :sparks             sparks created, converted, fizzled per PE
  :messages           the messages the PEs sent, by kind
  :stats              the statistics of `gph run --stats`
  :profile FILE.svg   its activity profile      :trace FILE.json   a Perfetto trace
  :eventlog FILE      a GHC eventlog (ThreadScope)

  :main ARGS          run the loaded file's main with these arguments
  :cd DIR             change the working directory
  :! COMMAND          run a shell command
  :edit [FILE]        edit a file (the loaded one) with $EDITOR, then reload
  :help               this text
  :quit               leave (also Ctrl-D)
Ctrl-C interrupts a long evaluation.
";

const IT: &str = "gph'it";

const ENTRY: &str = "gph'main";

/// The type synonym `:kind` declares.
const KIND: &str = "Gph'kind";

struct Session {
    file: Option<String>,
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
    /// A `:step` in progress: the next input line continues it.
    stepping: Option<gph_compiler::step::Stepper>,
    /// The last evaluation's statistics (`:stats`, `:sparks`).
    last: Option<gph_runtime::Stats>,
    /// Whether the last evaluation's events are in `scratch`.
    recorded: bool,
    /// A directory of the session's own (removed at the end).
    scratch: std::path::PathBuf,
}

impl Session {
    /// Runs one input (a command, a definition or an expression); false to quit.
    fn input(&mut self, line: &str) -> bool {
        let t = line.trim();
        if self.stepping.is_some() && self.step_input(t) {
            return true;
        }
        if t.is_empty() {
            return true;
        }
        if let Some(cmd) = t.strip_prefix(':') {
            let (c, arg) = match cmd.strip_prefix('!') {
                Some(rest) => ("!", rest),
                None => cmd.split_once(char::is_whitespace).unwrap_or((cmd, "")),
            };
            let arg = arg.trim();
            match c {
                "q" | "quit" => return false,
                "?" | "h" | "help" => print!("{HELP}"),
                "l" | "load" => self.load((!arg.is_empty()).then(|| arg.to_string())),
                "r" | "reload" => self.load(self.file.clone()),
                "t" | "type" => {
                    if let Some(t) = self.type_of(arg) {
                        println!("{arg} :: {t}");
                    }
                }
                "b" | "browse" => self.browse(),
                "sc" => self.show_sc(arg),
                "main" => self.run_main_with(arg),
                "cd" => self.cd(arg),
                "!" => shell(arg),
                "e" | "edit" => self.edit(arg),
                "set" | "unset" => self.set(arg, c == "unset"),
                "stats" => match &self.last {
                    Some(s) => print!("{}", gph_runtime::format_stats(s)),
                    None => println!("nothing evaluated yet"),
                },
                "sparks" => self.sparks(),
                "messages" => self.messages(),
                "i" | "info" => self.info(arg),
                "k" | "kind" => self.kind(arg),
                "steps" => self.steps(arg),
                "step" => self.step_start(arg),
                "graph" => self.graph(arg),
                "sprint" => self.sprint(arg, false),
                "print" => self.sprint(arg, true),
                "profile" | "trace" | "eventlog" => self.save_recording(c, arg),
                _ => println!("unknown command `:{c}` (:help lists the commands)"),
            }
            return true;
        }
        self.statement(line);
        true
    }
}

/// `:! CMD`: a shell command.
fn shell(cmd: &str) {
    if let Err(e) = std::process::Command::new("sh").arg("-c").arg(cmd).status() {
        eprintln!("gph: cannot run the shell: {e}");
    }
}

fn history_path() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".gph_history"))
}

/// Runs the REPL until `:quit` or end of input.
pub fn repl(
    file: Option<String>,
    echo: bool,
    machine: MachineOpts,
    compiler: CompileOpts,
) -> Result<(), ()> {
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        // Ctrl-C during an evaluation stops it; at the prompt rustyline sees it.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    let names = Arc::new(Mutex::new(Vec::new()));
    let scratch = std::env::temp_dir().join(format!("gph-repl-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&scratch) {
        eprintln!("gph: cannot make {}: {e}", scratch.display());
    }
    let mut session = Session {
        machine_session: gph_runtime::session::Session::new(),
        bound: Vec::new(),
        step_limit: 1000,
        graph_file: "gph-graph.dot".into(),
        pattern_binds: 0,
        stepping: None,
        args: Vec::new(),
        last: None,
        recorded: false,
        scratch: scratch.clone(),
        file: None,
        text: String::new(),
        defs: Vec::new(),
        imports: Vec::new(),
        timing: false,
        machine,
        compiler: compiler.options(),
        interrupt,
        names: names.clone(),
    };
    let mut editor: Editor<Completion, rustyline::history::DefaultHistory> =
        Editor::new().map_err(|e| eprintln!("gph: cannot start the line editor: {e}"))?;
    editor.set_helper(Some(Completion {
        names,
        files: FilenameCompleter::new(),
    }));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!("gph repl: :help for the commands, :quit to leave");
    if let Err(too_deep) = gph_syntax::stack::catch(|| session.load(file)) {
        eprintln!("gph: {too_deep}");
    }
    loop {
        let line = match editor.readline("gph> ") {
            Ok(l) => {
                if echo {
                    println!("gph> {l}");
                }
                l
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("gph: {e}");
                break;
            }
        };
        let _ = editor.add_history_entry(line.as_str());
        // A Ctrl-C from now on (while the input compiles, too) stops it.
        session.interrupt.store(false, Ordering::SeqCst);
        let input = if line.trim() == ":{" {
            let mut block = Vec::new();
            loop {
                match editor.readline("gph| ") {
                    Ok(l) if l.trim() == ":}" => {
                        if echo {
                            println!("gph| {l}");
                        }
                        break;
                    }
                    Ok(l) => {
                        if echo {
                            println!("gph| {l}");
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
        // A program too deep for the compiler's stack is an error, and the
        // session goes on as before the input.
        let saved = (session.defs.clone(), session.imports.clone());
        match gph_syntax::stack::catch(|| session.input(&input)) {
            Ok(true) => {}
            Ok(false) => break,
            Err(too_deep) => {
                eprintln!("gph: {too_deep}");
                (session.defs, session.imports) = saved;
            }
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}
