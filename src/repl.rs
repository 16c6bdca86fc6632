//! `gph repl`: an interactive session over the loaded file.
//!
//! Each evaluation compiles the whole program again: the loaded file's text,
//! then the session's definitions, then `gph'it = EXPR` and an entry point
//! `gph'main` that prints `gph'it` (or runs it, when it is an `IO` action).
//! Compiling the Prelude and a file takes a few tens of milliseconds, so this
//! keeps the REPL exactly as faithful as `gph run`, with no second compiler.
//! Diagnostics about the appended part are shown against `<interactive>`.

use crate::{report, CompileOpts, MachineOpts};
use clap::Parser;
use gph_syntax::{Diagnostic, SourceFile, SourceMap, Span};
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

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
/// The most nodes `:graph` draws.
const GRAPH_NODES: usize = 400;
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

/// `:set`'s options: those of `gph run` that say how the machine runs.
#[derive(clap::Parser)]
#[command(name = ":set", no_binary_name = true, args_override_self = true)]
struct SetArgs {
    #[command(flatten)]
    machine: MachineOpts,
}

/// What the session's program looks like with some extra text appended.
struct Source {
    file: SourceFile,
    /// Where the appended part starts.
    split: usize,
    /// Where the text the user typed went, for errors against it.
    input: Option<Placed>,
}

/// The user's input as placed in the program text: every line moved
/// (indented under a synthetic binding, or `let ` taken off), with the map
/// back to the user's own text so that errors point there.
struct Placed {
    /// The user's text.
    user: String,
    /// The text as placed.
    text: String,
    /// Per line: (offset in `text`, offset in `user`, length) of the part
    /// both share.
    lines: Vec<(usize, usize, usize)>,
    /// Where `text` starts in the program (set by `Session::source`).
    at: usize,
}

impl Placed {
    /// Each line of `user` with `drop(i, line)` characters taken off its
    /// start and `indent` spaces put before it.
    fn new(user: &str, indent: usize, drop: impl Fn(usize, &str) -> usize) -> Placed {
        let mut text = String::new();
        let mut lines = Vec::new();
        let mut upos = 0;
        for (i, l) in user.split('\n').enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let d = drop(i, l).min(l.len());
            text.push_str(&" ".repeat(indent));
            lines.push((text.len(), upos + d, l.len() - d));
            text.push_str(&l[d..]);
            upos += l.len() + 1;
        }
        Placed {
            user: user.to_string(),
            text,
            lines,
            at: 0,
        }
    }

    fn indented(user: &str, indent: usize) -> Placed {
        Placed::new(user, indent, |_, _| 0)
    }

    /// The user's offset of a program offset, if it falls in their text.
    fn to_user(&self, pos: usize) -> Option<usize> {
        let rel = pos.checked_sub(self.at)?;
        self.lines
            .iter()
            .find(|(t, _, n)| rel >= *t && rel <= t + n)
            .map(|(t, u, _)| u + (rel - t))
    }
}

impl Session {
    /// The program text: the file (or an empty module), the session's
    /// imports and definitions, then `before`, the user's input as placed,
    /// and `after`.
    fn source_with(&self, before: &str, input: Option<Placed>, after: &str) -> Source {
        let mut text = if self.file.is_some() {
            self.text.clone()
        } else {
            "module Interactive where\n".to_string()
        };
        if !text.ends_with('\n') {
            text.push('\n');
        }
        // Imports must precede the declarations: put them after the last one.
        if !self.imports.is_empty() {
            let at = last_import_end(&text);
            let mut added = String::new();
            for i in &self.imports {
                added.push_str(i);
                added.push('\n');
            }
            text.insert_str(at, &added);
        }
        let split = text.len();
        for (_, d) in &self.defs {
            text.push_str(d);
            text.push('\n');
        }
        // Names bound by `x <- action` and `it`: their values are in the
        // machine's session (this body never runs).
        for (n, t) in &self.bound {
            text.push_str(&format!("{n} :: {t}\n{n} = {n}\n"));
        }
        text.push_str(before);
        let input = input.map(|mut p| {
            p.at = text.len();
            text.push_str(&p.text);
            text.push('\n');
            p
        });
        text.push_str(after);
        let name = self.file.clone().unwrap_or_else(|| "<interactive>".into());
        Source {
            file: SourceFile::new(name, text),
            split,
            input,
        }
    }

    fn source(&self, extra: &str) -> Source {
        self.source_with(extra, None, "")
    }

    /// The compiler's options for this source: what the user typed follows
    /// GHCi's extended default rules.
    fn options(&self, src: &Source) -> gph_compiler::Options {
        gph_compiler::Options {
            interactive_from: Some(src.split as u32),
            ..self.compiler
        }
    }

    /// Shows diagnostics. Those about the appended part are shown against
    /// the user's input (`<interactive>`), never the synthetic lines around
    /// it: a span outside the input points at the whole input.
    fn report(&self, src: &Source, sources: &SourceMap, diags: &[Diagnostic]) -> bool {
        let mut map = SourceMap::default();
        let split = src.split as u32;
        let main = sources
            .files
            .iter()
            .position(|f| f.name == src.file.name && f.text == src.file.text);
        let user = src.input.as_ref().map_or("", |p| p.user.as_str());
        let end_of_main = main.map(|i| sources.files[i].base + src.file.text.len() as u32);
        for (i, f) in sources.files.iter().enumerate() {
            if Some(i) == main {
                let prefix = &f.text[..src.split];
                if self.file.is_some() || src.input.is_some() {
                    map.files
                        .push(SourceFile::with_base(f.name.clone(), prefix, f.base));
                    map.files
                        .push(SourceFile::with_base("<interactive>", user, f.base + split));
                } else {
                    map.files.push(f.clone());
                }
            } else {
                map.files.push(f.clone());
            }
        }
        let base = main.map_or(0, |i| sources.files[i].base);
        let whole = Span::new(
            (base + split) as usize,
            (base + split) as usize + user.len(),
        );
        let place = |sp: Span| -> Span {
            let appended = base + split..=end_of_main.unwrap_or(0);
            if main.is_none() || !appended.contains(&sp.start) || src.input.is_none() {
                return sp;
            }
            let p = src.input.as_ref().unwrap();
            let at = |x: u32| p.to_user((x - base) as usize);
            match (at(sp.start), at(sp.end.max(sp.start))) {
                (Some(a), Some(b)) => Span::new(whole.start as usize + a, whole.start as usize + b),
                (Some(a), None) => Span::new(whole.start as usize + a, whole.end as usize),
                _ => whole,
            }
        };
        let diags: Vec<Diagnostic> = diags
            .iter()
            .map(|d| {
                let mut d = d.clone();
                d.span = place(d.span);
                for (sp, _) in &mut d.secondary {
                    *sp = place(*sp);
                }
                d.message = d.message.replace(IT, "it").replace(KIND, "the type");
                d.label = d.label.map(|l| l.replace(IT, "it"));
                d.help = d.help.map(|h| h.replace(IT, "it"));
                d
            })
            .collect();
        report(&map, &diags)
    }

    /// The types of the main module's bindings, or the diagnostics.
    fn types(&self, src: &Source, quiet: bool) -> Option<Vec<(String, String)>> {
        let out = gph_compiler::dump(&src.file, gph_compiler::Stage::Types, &self.options(src));
        if out.has_errors() {
            if !quiet {
                self.report(src, &out.sources, &out.diagnostics);
            }
            return None;
        }
        Some(
            out.output
                .unwrap_or_default()
                .lines()
                .filter_map(|l| {
                    let (n, t) = l.split_once(" :: ")?;
                    Some((n.to_string(), t.to_string()))
                })
                .collect(),
        )
    }

    fn load(&mut self, file: Option<String>) {
        // As in GHCi, loading starts afresh: no bindings, no CAF values.
        self.defs.clear();
        self.imports.clear();
        self.bound.clear();
        self.machine_session = gph_runtime::session::Session::new();
        self.file = None;
        self.text.clear();
        if let Some(f) = file {
            match std::fs::read_to_string(&f) {
                Ok(t) => {
                    self.text = t;
                    self.file = Some(f.clone());
                }
                Err(e) => {
                    eprintln!("gph: cannot read {f}: {e}");
                    return;
                }
            }
            let src = self.source("");
            if self.types(&src, false).is_some() {
                println!("Ok, loaded {f}.");
            } else {
                // Keep the text so that :reload retries after a fix.
                println!("Failed, {f} has errors (fix it and :reload).");
            }
        }
        self.refresh_names();
    }

    fn refresh_names(&self) {
        let mut names: Vec<String> = prelude_names();
        if let Some(ts) = self.types(&self.source(""), true) {
            names.extend(ts.into_iter().map(|(n, _)| n));
        }
        for c in [
            ":load",
            ":reload",
            ":type",
            ":browse",
            ":sc",
            ":set",
            ":unset",
            ":help",
            ":quit",
            ":sparks",
            ":stats",
            ":profile",
            ":trace",
            ":eventlog",
        ] {
            names.push(c.to_string());
        }
        names.sort();
        names.dedup();
        *self.names.lock().unwrap() = names;
    }

    /// The type of an expression, generalised as GHCi shows it.
    fn type_of(&self, expr: &str) -> Option<String> {
        // A function of () escapes the monomorphism restriction.
        let src = self.source_with(&format!("{IT} () =\n"), Some(Placed::indented(expr, 2)), "");
        self.it_type(&src, false).map(|t| strip_unit_arg(&t))
    }

    /// The type of `gph'it` in this program (errors shown unless `quiet`).
    fn it_type(&self, src: &Source, quiet: bool) -> Option<String> {
        self.types(src, quiet)?
            .into_iter()
            .find(|(n, _)| n == IT)
            .map(|(_, t)| t)
    }

    /// The type of `input` as an expression, without reporting errors.
    fn type_of_quietly(&self, input: &str) -> Option<String> {
        let src = self.source_with(&format!("{IT} =\n"), Some(Placed::indented(input, 2)), "");
        self.it_type(&src, true)
    }

    /// Evaluates an expression (or runs an action) and binds its value to
    /// `it`, or to `bind` for `x <- action` (then nothing is printed).
    fn eval(&mut self, input: &str, bind: Option<&str>) {
        // An expression, or else a definition.
        let as_expr = |s: &Session, after: &str| {
            s.source_with(
                &format!("{IT} =\n"),
                Some(Placed::indented(input, 2)),
                after,
            )
        };
        // An action in an unknown monad (`return 'x'`) runs in IO, as in GHCi.
        let as_io = |s: &Session, after: &str| {
            s.source_with(
                &format!("{IT}'io :: IO a -> IO a\n{IT}'io a = a\n{IT} =\n  {IT}'io (\n"),
                Some(Placed::indented(input, 4)),
                &format!("  )\n{after}"),
            )
        };
        let type_of_it = |src: &Source| self.it_type(src, true);
        let expr_src = as_expr(self, "");
        let mut io = false;
        let mut ty = type_of_it(&expr_src);
        if ty.is_none() || bind.is_some() && !ty.as_deref().is_some_and(|t| t.starts_with("IO ")) {
            if let Some(t) = type_of_it(&as_io(self, "")) {
                ty = Some(t);
                io = true;
            }
        }
        let Some(ty) = ty else {
            if bind.is_none() && looks_like_definition(input) {
                return self.define(input, |_, _| 0);
            }
            self.types(&expr_src, false);
            return;
        };
        let action = ty.starts_with("IO ");
        if bind.is_some() && !action {
            // Shown against the input, as GHCi reports `x <- 5`.
            self.types(&as_io(self, ""), false);
            return;
        }
        let build = |s: &Session, after: &str| {
            if io {
                as_io(s, after)
            } else {
                as_expr(s, after)
            }
        };
        let value_ty = ty.strip_prefix("IO ").unwrap_or(&ty).to_string();
        let entry = if bind.is_some() || ty == "IO ()" {
            format!("{ENTRY} = {IT}\n")
        } else if action {
            format!("{ENTRY} = {IT} >>= \\{IT}'r -> print {IT}'r >> return {IT}'r\n")
        } else {
            format!("{ENTRY} = print {IT} >> return {IT}\n")
        };
        let shown_result = action && ty != "IO ()" && bind.is_none();
        let program = match self.compile(&build(self, &entry), shown_result) {
            // A result without Show is not printed.
            None if shown_result => self.compile(&build(self, &format!("{ENTRY} = {IT}\n")), false),
            p => p,
        };
        let Some(p) = program else { return };
        let name = bind.unwrap_or("it");
        let global = format!("{}.{name}", self.module());
        if self.run(&p, input, Some(&global)) {
            self.bind(name, &value_ty);
        }
    }

    /// Runs an action and binds its result to `name` (`x <- action`);
    /// whether it did.
    fn eval_bound(&mut self, action: &str, name: &str) -> bool {
        self.eval(action, Some(name));
        self.bound.iter().any(|(n, _)| n == name)
    }

    /// The module the session's names live in.
    fn module(&self) -> String {
        if self.file.is_some() {
            module_of(&self.text)
        } else {
            "Interactive".to_string()
        }
    }

    /// After `x <- action` (or an evaluation, for `it`): `name` holds a
    /// value of type `ty` from now on (declared in the program text, its
    /// value kept by the machine's session).
    fn bind(&mut self, name: &str, ty: &str) {
        let previous = self.bound.clone();
        self.bound.retain(|(n, _)| n != name);
        if ty.contains("=>") {
            // An overloaded value would need its dictionaries: GHCi
            // defaults it first; here it is not kept.
            if name != "it" {
                eprintln!("gph: `{name}` is not kept: its type `{ty}` is overloaded (add a type annotation)");
            }
            return;
        }
        let defs = self.defs.clone();
        self.defs.retain(|(ns, _)| !ns.iter().any(|n| n == name));
        self.bound.push((name.to_string(), ty.to_string()));
        if self.types(&self.source(""), true).is_none() {
            self.bound = previous;
            self.defs = defs;
            if name != "it" {
                eprintln!("gph: `{name}` is not kept: its type `{ty}` cannot be declared here");
            }
            return;
        }
        self.refresh_names();
    }

    /// `:info NAME...`: what each name is, as GHCi says it.
    fn info(&self, arg: &str) {
        if arg.is_empty() {
            println!("usage: :info NAME");
            return;
        }
        for name in arg.split_whitespace() {
            // `(+)` is asked for as `+`.
            let name = name
                .strip_prefix('(')
                .and_then(|n| n.strip_suffix(')'))
                .filter(|n| !n.is_empty() && !n.starts_with(','))
                .unwrap_or(name);
            let src = self.source("");
            let out = gph_compiler::repl::info::info(&src.file, name, &self.options(&src));
            if let Some(o) = &out.output {
                print!("{o}");
            } else if out.diagnostics.iter().all(|d| d.span == Span::default()) {
                for d in &out.diagnostics {
                    eprintln!("gph: {}", d.message);
                }
            } else {
                self.report(&src, &out.sources, &out.diagnostics);
            }
        }
    }

    /// `:kind TYPE`: its kind, as the kind checker infers it.
    fn kind(&self, ty: &str) {
        if ty.is_empty() {
            println!("usage: :kind TYPE");
            return;
        }
        let src = self.source_with(
            &format!("type {KIND} =\n"),
            Some(Placed::indented(ty, 2)),
            "",
        );
        let out = gph_compiler::repl::info::kind(&src.file, KIND, &self.options(&src));
        match &out.output {
            Some(k) => println!("{} :: {k}", ty.trim()),
            None => {
                self.report(&src, &out.sources, &out.diagnostics);
            }
        }
    }

    /// `:set steps N`: how many steps `:steps` and `:continue` show.
    fn set_steps(&mut self, arg: &str) {
        match arg
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<u64>().ok())
        {
            Some(n) if n > 0 => {
                self.step_limit = n;
                println!("steps: at most {n}");
            }
            _ => eprintln!("gph: :set steps N needs a number of steps, at least 1"),
        }
    }

    /// A stepper for `expr` (errors reported against the input).
    fn stepper(&self, expr: &str) -> Option<gph_compiler::step::Stepper> {
        if expr.trim().is_empty() {
            println!("usage: :step EXPR, :steps EXPR or :graph EXPR");
            return None;
        }
        let src = self.source_with(&format!("{IT} =\n"), Some(Placed::indented(expr, 2)), "");
        match gph_compiler::step::Stepper::new(&src.file, IT, &self.options(&src)) {
            Ok(s) => Some(s),
            Err((sources, diags)) => {
                if diags.iter().all(|d| d.span == Span::default()) {
                    for d in &diags {
                        eprintln!("gph: {}", d.message.replace(IT, "it"));
                    }
                } else {
                    self.report(&src, &sources, &diags);
                }
                None
            }
        }
    }

    /// One step, printed: the rule, the redex and what replaced it, then
    /// the whole expression after it. False when there was none.
    fn show_step(s: &mut gph_compiler::step::Stepper) -> bool {
        match s.step() {
            Some(st) => {
                println!("-- {}: {}  ==>  {}", st.rule, st.redex, st.result);
                println!("=> {}", s.show_limited(2000));
                true
            }
            None => {
                match s.error() {
                    Some(e) => println!("** {e}"),
                    None => println!("(normal form after {} steps)", s.steps()),
                }
                false
            }
        }
    }

    /// Shows up to `limit` steps; Ctrl-C stops them.
    fn run_steps(&self, s: &mut gph_compiler::step::Stepper, limit: u64) -> bool {
        for _ in 0..limit {
            if self.interrupt.swap(false, Ordering::SeqCst) {
                println!("(interrupted after {} steps)", s.steps());
                return true;
            }
            if !Self::show_step(s) {
                return false;
            }
        }
        if s.is_done() || s.error().is_some() {
            Self::show_step(s);
            return false;
        }
        println!(
            "(stopped after {} steps: :set steps N shows more)",
            s.steps()
        );
        true
    }

    /// `:steps EXPR`: every step of its evaluation to normal form.
    fn steps(&self, expr: &str) {
        let Some(mut s) = self.stepper(expr) else {
            return;
        };
        println!("   {}", s.show_limited(2000));
        self.run_steps(&mut s, self.step_limit);
    }

    /// `:step EXPR`: the first step; then Enter for the next, `:continue`
    /// for the rest, `:graph [FILE]` for the graph now, `:stop` to leave.
    fn step_start(&mut self, expr: &str) {
        let Some(mut s) = self.stepper(expr) else {
            return;
        };
        println!("   {}", s.show_limited(2000));
        if Self::show_step(&mut s) {
            println!("(Enter: next step; :continue; :graph [FILE]; :stop)");
            self.stepping = Some(s);
        }
    }

    /// A line typed while stepping; false if it is not about stepping
    /// (then stepping ends and the line is an ordinary input).
    fn step_input(&mut self, t: &str) -> bool {
        let Some(mut s) = self.stepping.take() else {
            return false;
        };
        let more = match t {
            "" | ":n" | ":next" => Self::show_step(&mut s),
            ":c" | ":continue" => self.run_steps(&mut s, self.step_limit),
            ":stop" | ":abandon" => {
                println!("(stopped stepping after {} steps)", s.steps());
                false
            }
            _ if t.starts_with(":graph") && t[6..].split_whitespace().count() <= 1 => {
                let file = t[6..].trim();
                self.write_graph(&s.graph_limited(GRAPH_NODES), file);
                true
            }
            _ => {
                // Anything else ends the stepping and is run as usual.
                return false;
            }
        };
        if more {
            self.stepping = Some(s);
        }
        true
    }

    /// `:graph NAME` (a session value as it is now in the machine's heap)
    /// or `:graph EXPR` (the graph of its value, evaluated by the stepper as
    /// far as the step limit lets it), as Graphviz DOT, and SVG when `dot`
    /// is installed.
    fn graph(&self, arg: &str) {
        let name = arg.trim();
        let global = format!("{}.{name}", self.module());
        if is_identifier(name) {
            if let Some(g) = self.machine_session.graph(&global, GRAPH_NODES) {
                self.write_graph(&session_graph(g), "");
                return;
            }
        }
        let Some(mut s) = self.stepper(arg) else {
            return;
        };
        let limit = self.step_limit.saturating_mul(1000);
        s.set_text_limit(None);
        s.run(limit);
        if let Some(e) = s.error() {
            println!("(the evaluation failed: {e}; the graph is as it stopped)");
        } else if !s.is_done() {
            println!(
                "(not in normal form after {} steps: an infinite or large value, drawn as far as it got)",
                s.steps()
            );
        }
        self.write_graph(&s.graph_limited(GRAPH_NODES), "");
    }

    /// Writes a graph as FILE (default `gph-graph.dot`) and, when Graphviz
    /// is installed, as SVG beside it.
    fn write_graph(&self, g: &gph_compiler::step::Graph, file: &str) {
        let dot_path = if file.is_empty() {
            self.graph_file.as_str()
        } else {
            file
        };
        if let Err(e) = std::fs::write(dot_path, g.to_dot()) {
            eprintln!("gph: cannot write {dot_path}: {e}");
            return;
        }
        if g.truncated {
            println!("(only the first {GRAPH_NODES} nodes are drawn)");
        }
        let svg = std::path::Path::new(dot_path).with_extension("svg");
        let drawn = std::process::Command::new("dot")
            .arg("-Tsvg")
            .arg(dot_path)
            .arg("-o")
            .arg(&svg)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|st| st.success());
        if drawn {
            println!("wrote {dot_path} and {}", svg.display());
        } else {
            println!("wrote {dot_path} (and no SVG: Graphviz's dot is not installed)");
        }
    }

    /// `:sprint NAME` / `:print NAME`: how much of a value is evaluated.
    fn sprint(&self, name: &str, print: bool) {
        if name.is_empty() {
            println!("usage: :sprint NAME");
            return;
        }
        let global = format!("{}.{name}", self.module());
        let ty = self
            .types(&self.source(""), true)
            .and_then(|ts| ts.into_iter().find(|(n, _)| n == name).map(|(_, t)| t));
        let shown = self.machine_session.sprint(&global, 10_000).or_else(|| {
            // Defined but never evaluated (or a function, or the Prelude's).
            (ty.is_some() || self.type_of_quietly(name).is_some()).then(|| "_".to_string())
        });
        match (shown, ty) {
            (None, _) => eprintln!("gph: `{name}` is not in scope"),
            (Some(s), Some(t)) if print && s == "_" => println!("{name} = (_t1::{t})"),
            (Some(s), _) => println!("{name} = {s}"),
        }
    }

    /// The program with `gph'main` as its entry, or its errors (shown
    /// unless `quiet`).
    fn compile(&self, src: &Source, quiet: bool) -> Option<gph_runtime::code::Program> {
        let (program, sources, diags) =
            gph_compiler::compile_entry(&src.file, ENTRY, &self.options(src));
        if quiet && diags.iter().any(Diagnostic::is_error) || self.report(src, &sources, &diags) {
            return None;
        }
        program
    }

    /// Runs a compiled evaluation on the session's machine, recording its
    /// events for `:profile`, `:trace` and `:eventlog` afterwards.
    fn run(
        &mut self,
        program: &gph_runtime::code::Program,
        what: &str,
        bind: Option<&str>,
    ) -> bool {
        let file = self.file.as_deref().unwrap_or("<interactive>");
        let mut config = match self.machine.config(file, self.args.clone()) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("gph: {e}");
                return false;
            }
        };
        // As GHCi's: getProgName is "<interactive>".
        config.prog_name = "<interactive>".into();
        let observe = self.recording();
        let outputs = match observe.outputs(what.trim().to_string(), &self.machine, &config) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("gph: cannot record the evaluation: {e}");
                None
            }
        };
        config.record = outputs.clone().map(|o| o as _);
        config.interrupt = Some(self.interrupt.clone());
        let start = Instant::now();
        let (exit, stats) = self.machine_session.run(program, &config, bind);
        let elapsed = start.elapsed();
        self.recorded = false;
        if let Some(o) = &outputs {
            let run_time = stats.virtual_time.unwrap_or(stats.time.as_secs_f64());
            match o.finish(run_time) {
                Ok(()) => self.recorded = true,
                Err(e) => eprintln!("gph: cannot record the evaluation: {e}"),
            }
        }
        let ok = matches!(exit, gph_runtime::Exit::Success);
        match exit {
            gph_runtime::Exit::Success => {}
            gph_runtime::Exit::Error(m) => eprintln!("gph: {m}"),
            gph_runtime::Exit::ExitWith(c) => eprintln!("gph: the program exited with status {c}"),
        }
        if self.timing {
            println!(
                "({:.2} secs, {} reductions, {} bytes)",
                elapsed.as_secs_f64(),
                stats.total.reductions,
                stats.total.allocated_bytes
            );
        }
        let _ = self.machine.report_stats(&stats, elapsed);
        self.last = Some(stats);
        ok
    }

    /// Where the last evaluation's events are recorded.
    fn recording(&self) -> crate::ObserveOpts {
        let at = |f: &str| Some(self.scratch.join(f).to_string_lossy().into_owned());
        crate::ObserveOpts {
            eventlog: at("last.eventlog"),
            trace: at("last.json"),
            profile: at("last.svg"),
        }
    }

    /// `:profile FILE`, `:trace FILE`, `:eventlog FILE`: the last
    /// evaluation's recording, copied to `to`.
    fn save_recording(&self, what: &str, to: &str) {
        if to.is_empty() {
            println!("usage: :{what} FILE");
            return;
        }
        if !self.recorded {
            println!("nothing recorded yet: evaluate an expression first");
            return;
        }
        let rec = self.recording();
        let from = match what {
            "profile" => rec.profile,
            "trace" => rec.trace,
            _ => rec.eventlog,
        };
        let Some(from) = from else { return };
        match std::fs::copy(&from, to) {
            Ok(_) => println!("wrote {to}"),
            Err(e) => eprintln!("gph: cannot write {to}: {e}"),
        }
    }

    /// `:main ARGS`: runs the loaded file's `main` with these arguments
    /// (words, or "quoted strings" with spaces).
    fn run_main_with(&mut self, arg: &str) {
        let args = match split_args(arg) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("gph: :main {arg}: {e}");
                return;
            }
        };
        if !self
            .types(&self.source(""), true)
            .is_some_and(|ts| ts.iter().any(|(n, _)| n == "main"))
        {
            println!("no `main` to run: :load a file that defines it");
            return;
        }
        let src = self.source(&format!("{ENTRY} = main\n"));
        let Some(program) = self.compile(&src, false) else {
            return;
        };
        self.args = args;
        // Named as `gph run` names a run: the file's stem (and its args).
        let name = self
            .file
            .as_deref()
            .and_then(|f| std::path::Path::new(f).file_stem())
            .map_or_else(|| "main".to_string(), |s| s.to_string_lossy().into_owned());
        self.run(&program, &name, None);
        self.args.clear();
    }

    /// `:cd DIR`: the REPL's working directory (GHCi's): files loaded
    /// and written from now on are relative to it.
    fn cd(&mut self, dir: &str) {
        let dir = if dir.is_empty() {
            std::env::var("HOME").unwrap_or_else(|_| "/".into())
        } else {
            dir.to_string()
        };
        // The loaded file stays loaded: its name made absolute first.
        let loaded = self
            .file
            .as_ref()
            .and_then(|f| std::fs::canonicalize(f).ok());
        if let Err(e) = std::env::set_current_dir(&dir) {
            eprintln!("gph: cannot change to {dir}: {e}");
            return;
        }
        if let Some(f) = loaded {
            self.file = Some(f.to_string_lossy().into_owned());
        }
    }

    /// `:edit [FILE]`: the file (the loaded one by default) in $EDITOR,
    /// then loaded again if it was the loaded one.
    fn edit(&mut self, arg: &str) {
        let file = if arg.is_empty() {
            match &self.file {
                Some(f) => f.clone(),
                None => {
                    println!("no file to edit: :edit FILE, or :load one first");
                    return;
                }
            }
        } else {
            arg.to_string()
        };
        let editor = std::env::var("VISUAL")
            .or_else(|_| std::env::var("EDITOR"))
            .unwrap_or_else(|_| "vi".into());
        match std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$1\""))
            .arg("sh")
            .arg(&file)
            .status()
        {
            Ok(st) if st.success() => {
                if self.file.as_deref() == Some(file.as_str()) || self.file.is_none() {
                    self.load(Some(file));
                }
            }
            Ok(st) => eprintln!("gph: the editor ({editor}) failed: {st}"),
            Err(e) => eprintln!("gph: cannot run the editor ({editor}): {e}"),
        }
    }

    /// `:sparks`: what each PE did with its sparks in the last evaluation.
    fn sparks(&self) {
        let Some(stats) = &self.last else {
            println!("nothing evaluated yet");
            return;
        };
        println!(
            "{:>5} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9}",
            "PE", "created", "converted", "fizzled", "overflowed", "exported", "imported"
        );
        let row = |name: &str, p: &gph_runtime::obs::stats::PeStats| {
            println!(
                "{name:>5} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9}",
                p.sparks_created,
                p.sparks_converted,
                p.sparks_fizzled,
                p.sparks_overflowed,
                p.sparks_exported,
                p.sparks_imported
            )
        };
        for (i, p) in stats.per_pe.iter().enumerate() {
            row(&i.to_string(), p);
        }
        if stats.per_pe.len() > 1 {
            row("total", &stats.total);
        }
        virtual_time(stats);
    }

    /// `:messages`: the messages the PEs sent in the last evaluation, by
    /// kind (FISH, SCHEDULE, FETCH, RESUME, ...).
    fn messages(&self) {
        let Some(stats) = &self.last else {
            println!("nothing evaluated yet");
            return;
        };
        let all = &stats.total.messages;
        if all.is_empty() {
            println!("no messages (one PE, or nobody needed to talk)");
            return;
        }
        println!("{:<10} {:>8} {:>10}", "kind", "count", "bytes");
        let (mut n, mut b) = (0, 0);
        for (kind, (count, bytes)) in all {
            println!("{kind:<10} {count:>8} {bytes:>10}");
            n += count;
            b += bytes;
        }
        println!("{:<10} {n:>8} {b:>10}", "total");
        let p = &stats.total.packets;
        if p.chunked() {
            println!(
                "in {} packets (at most {} message{} in one); they left urgent {}, full {}, \
                 timed out {}, idle {}",
                p.sent,
                p.max_messages.0,
                if p.max_messages.0 == 1 { "" } else { "s" },
                p.urgent,
                p.full,
                p.timeout,
                p.idle
            );
        }
        virtual_time(stats);
    }

    /// `:set OPTION [VALUE]`: a machine option of `gph run`, without its
    /// dashes (`:set pes 4`, `:set engine sim`); `:unset OPTION` puts it
    /// back to its default.
    fn set_machine(&mut self, arg: &str, unset: bool) {
        let mut words = arg.split_whitespace();
        let Some(name) = words.next() else { return };
        let name = name.trim_start_matches('-');
        let mut args = self.machine.to_args();
        if unset {
            // Drop the option and its value, if it has one.
            if let Some(i) = args.iter().position(|a| *a == format!("--{name}")) {
                let n = if args.get(i + 1).is_some_and(|v| !v.starts_with("--")) {
                    2
                } else {
                    1
                };
                args.drain(i..i + n);
            }
        } else {
            // A grid says how many PEs there are, and a PE count replaces
            // a grid.
            let replaced = match name {
                "grid" => Some("--pes"),
                "pes" => Some("--grid"),
                _ => None,
            };
            if let Some(i) = replaced.and_then(|r| args.iter().position(|a| a == r)) {
                args.drain(i..i + 2);
            }
            args.push(format!("--{name}"));
            args.extend(words.map(String::from));
        }
        match SetArgs::try_parse_from(args) {
            Ok(s) => {
                // A grid and a PE count must agree: catch it now.
                if let Err(e) = s.machine.config("<interactive>", Vec::new()) {
                    eprintln!("gph: {e}");
                    return;
                }
                self.machine = s.machine;
                println!("machine: {}", self.machine.describe());
            }
            Err(e) => {
                // clap's message without its usage lines.
                let msg = e.to_string();
                let said: Vec<&str> = msg
                    .trim_start_matches("error: ")
                    .lines()
                    .take_while(|l| !l.trim().is_empty())
                    .map(str::trim)
                    .collect();
                eprintln!("gph: :set {arg}: {}", said.join(" "));
            }
        }
    }

    /// Adds a definition (`user` as typed; `drop(i, line)` characters of
    /// each line are not part of it, e.g. `let `).
    fn define(&mut self, user: &str, drop: impl Fn(usize, &str) -> usize) {
        let placed = Placed::new(user, 0, drop);
        let text = placed.text.clone();
        let bound = defined_names(&text);
        // A new definition replaces an older one of the same name.
        let old: Vec<(Vec<String>, String)> = self
            .defs
            .iter()
            .filter(|(ns, _)| !ns.iter().any(|n| bound.contains(n)))
            .cloned()
            .collect();
        let previous = std::mem::replace(&mut self.defs, old);
        let previous_bound = self.bound.clone();
        self.bound.retain(|(n, _)| !bound.contains(n));
        let src = self.source_with("", Some(placed), "");
        if self.types(&src, false).is_some() {
            self.defs.push((bound, text));
            self.refresh_names();
        } else {
            self.defs = previous;
            self.bound = previous_bound;
        }
    }

    fn browse(&self) {
        let src = self.source("");
        if let Some(ts) = self.types(&src, false) {
            for (n, t) in ts {
                let shown = if n.starts_with(|c: char| c.is_alphabetic() || c == '_') {
                    n
                } else {
                    format!("({n})")
                };
                println!("{shown} :: {t}");
            }
        }
    }

    fn show_sc(&self, name: &str) {
        let src = self.source("");
        let (program, sources, diags) = gph_compiler::compile_entry(&src.file, "", &self.compiler);
        if self.report(&src, &sources, &diags) {
            return;
        }
        let Some(program) = program else { return };
        let module = if self.file.is_some() {
            module_of(&self.text)
        } else {
            "Interactive".to_string()
        };
        let full = format!("{module}.{name}");
        let mut found = false;
        for (i, sc) in program.scs.iter().enumerate() {
            let rest = sc.name.strip_prefix(&full);
            if rest.is_some_and(|r| r.is_empty() || r.starts_with('$')) {
                print!("{}", program.show_sc(gph_runtime::code::ScId(i as u32)));
                found = true;
            }
        }
        if !found {
            println!("no supercombinators for `{name}` (is it a top-level definition?)");
        }
    }

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
                "set" | "unset" if arg == "+s" => self.timing = c == "set",
                "set" if arg.is_empty() => {
                    println!("machine: {}", self.machine.describe());
                    println!("options: {}", self.machine.to_args().join(" "));
                }
                "set" if arg.starts_with("steps") => self.set_steps(arg),
                "set" if arg.starts_with("graph-file") => match arg.split_whitespace().nth(1) {
                    Some(f) => {
                        self.graph_file = f.to_string();
                        println!("graph file: {f}");
                    }
                    None => eprintln!("gph: :set graph-file PATH needs a path"),
                },
                "set" | "unset" => self.set_machine(arg, c == "unset"),
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
        if t.starts_with("import ") {
            self.imports.push(t.to_string());
            let src = self.source("");
            if self.types(&src, false).is_none() {
                self.imports.pop();
            } else {
                self.refresh_names();
            }
            return true;
        }
        // `let x = e` defines; `let x = e in x + 1` is an expression.
        if t.starts_with("let ") && self.type_of_quietly(line).is_none() {
            self.define(line, let_drop(line));
            return true;
        }
        if let Some((name, action)) = bind_statement(line) {
            self.eval(action, Some(name));
            return true;
        }
        if let Some((pat, action)) = pattern_bind_statement(line) {
            // `(a, b) <- action`: the result is bound to a hidden name, and
            // the pattern takes it apart as a definition of a and b.
            self.pattern_binds += 1;
            let hidden = format!("gph'bound{}", self.pattern_binds);
            if self.eval_bound(action, &hidden) {
                self.define(&format!("{pat} = {hidden}"), |_, _| 0);
            }
            return true;
        }
        self.eval(line, None);
        true
    }
}

fn is_identifier(s: &str) -> bool {
    s.starts_with(|c: char| c.is_lowercase() || c == '_')
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '\'')
}

/// A session value's graph (`gph_runtime::session::GraphOf`) as the
/// stepper's graph type, which draws it.
fn session_graph(g: gph_runtime::session::GraphOf) -> gph_compiler::step::Graph {
    use gph_compiler::step::{Graph, GraphEdge, GraphNode, NodeKind};
    use gph_runtime::session::NodeSort;
    Graph {
        root: g.nodes.first().map(|n| n.id),
        nodes: g
            .nodes
            .iter()
            .map(|n| GraphNode {
                id: n.id,
                kind: match n.sort {
                    NodeSort::Thunk => NodeKind::Thunk,
                    NodeSort::Value => NodeKind::Value,
                    NodeSort::Function => NodeKind::Function,
                },
                label: n.label.clone(),
            })
            .collect(),
        edges: g
            .edges
            .iter()
            .map(|(from, to, label)| GraphEdge {
                from: *from,
                to: *to,
                label: label.clone(),
            })
            .collect(),
        truncated: g.truncated,
    }
}

/// `x <- action`: the name and the action.
fn bind_statement(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_start();
    let end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .unwrap_or(t.len());
    let (name, rest) = t.split_at(end);
    let action = rest.trim_start().strip_prefix("<-")?;
    let keyword = matches!(name, "let" | "case" | "if" | "do" | "where" | "of" | "in");
    (name.starts_with(|c: char| c.is_lowercase() || c == '_') && !keyword)
        .then_some((name, action.trim_start()))
}

/// `PAT <- action` with a pattern that is not a plain variable (`(a, b)`,
/// `Just x`): the pattern and the action. The `<-` must be outside
/// brackets, and the pattern start with a bracket or a constructor.
fn pattern_bind_statement(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    if !t.starts_with(|c: char| c == '(' || c == '[' || c == '~' || c.is_uppercase()) {
        return None;
    }
    let mut depth = 0i32;
    let b = t.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'"' | b'\'' => return None,
            b'<' if depth == 0 && b.get(i + 1) == Some(&b'-') => {
                let pat = t[..i].trim();
                return (!pat.is_empty()).then(|| (pat, t[i + 2..].trim()));
            }
            _ => {}
        }
    }
    None
}

/// The simulated machine's clock does not depend on the host: a figure a
/// lesson can quote (`:sparks`, `:messages`).
fn virtual_time(stats: &gph_runtime::Stats) {
    if let Some(v) = stats.virtual_time {
        println!(
            "virtual time {:.3} ms on {} simulated PEs",
            v * 1e3,
            stats.pes
        );
    }
}

/// `:! CMD`: a shell command.
fn shell(cmd: &str) {
    if let Err(e) = std::process::Command::new("sh").arg("-c").arg(cmd).status() {
        eprintln!("gph: cannot run the shell: {e}");
    }
}

/// The words of `:main`'s arguments: spaces separate them, except inside
/// double quotes (where `\"` and `\\` are escapes), as GHCi splits them.
fn split_args(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e) => cur.push(e),
                            None => return Err("an escape at the end".into()),
                        },
                        Some(x) => cur.push(x),
                        None => return Err("a string without its closing quote".into()),
                    }
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

/// Where the text after the module's last `import` line starts (or after
/// the header when there is none).
fn last_import_end(text: &str) -> usize {
    let mut end = 0;
    let mut pos = 0;
    for l in text.split_inclusive('\n') {
        pos += l.len();
        if l.starts_with("import ") || l.starts_with("module ") {
            end = pos;
        }
    }
    end
}

/// How much of each line of `let f x = ...` (possibly over several lines)
/// is not part of the definitions: `let ` and the spaces after it on the
/// first, and as many leading spaces (at most 4) on the others.
fn let_drop(text: &str) -> impl Fn(usize, &str) -> usize {
    let first = text.lines().next().unwrap_or("");
    let lead = first.len() - first.trim_start().len();
    let after_let = first.trim_start().strip_prefix("let").unwrap_or("");
    let gap = after_let.len() - after_let.trim_start().len();
    let first_drop = lead + 3 + gap;
    move |i, l: &str| {
        if i == 0 {
            first_drop
        } else {
            (l.len() - l.trim_start_matches(' ').len()).min(4)
        }
    }
}

/// `() -> T` becomes `T`, keeping a context: `Num a => () -> a` is `Num a => a`.
fn strip_unit_arg(t: &str) -> String {
    match t.split_once("=> ") {
        Some((ctx, rest)) => format!("{ctx}=> {}", rest.strip_prefix("() -> ").unwrap_or(rest)),
        None => t.strip_prefix("() -> ").unwrap_or(t).to_string(),
    }
}

fn looks_like_definition(input: &str) -> bool {
    let first = input.lines().next().unwrap_or("");
    let mut depth = 0i32;
    let b = first.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = if i > 0 { b[i - 1] } else { b' ' };
                let next = b.get(i + 1).copied().unwrap_or(b' ');
                if !b"=<>/!:".contains(&prev) && next != b'=' && next != b'>' {
                    return true;
                }
            }
            b':' if depth == 0 && b.get(i + 1) == Some(&b':') => return true,
            _ => {}
        }
    }
    false
}

/// The names a definition binds: the first word of each unindented line
/// (`f x = ..`, `f :: ..`), or the operator of `x <+> y = ..`.
fn defined_names(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    for l in text.lines() {
        if l.starts_with(char::is_whitespace) || l.is_empty() {
            continue;
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        let Some(w) = words.first() else { continue };
        if w.starts_with(['(', '[', '~']) && !w.starts_with("(,") {
            // A pattern binding, `(a, b) = e`: the variables before `=`.
            let lhs = l.split(" = ").next().unwrap_or("");
            for word in lhs.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\'')) {
                if word.starts_with(|c: char| c.is_lowercase()) {
                    v.push(word.to_string());
                }
            }
            if lhs.starts_with('(') && !lhs.contains(',') && v.is_empty() {
                // `(<+>) = ...` is an operator's definition.
                v.push(lhs.trim_matches(['(', ')', ' ']).to_string());
            }
        } else if w.starts_with(|c: char| c.is_lowercase() || c == '_') {
            v.push(
                w.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
                    .to_string(),
            );
        } else if let Some(op) = words
            .get(1)
            .filter(|o| o.chars().all(|c| "!#$%&*+./<=>?@\\^|-~:".contains(c)))
        {
            v.push(op.to_string());
        }
    }
    v
}

fn module_of(text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("module "))
        .and_then(|r| r.split(|c: char| c.is_whitespace() || c == '(').next())
        .map(String::from)
        .unwrap_or_else(|| "Main".to_string())
}

/// The Prelude's exported names (from its export list), for completion.
fn prelude_names() -> Vec<String> {
    let Some((_, src)) = gph_compiler::front::modules::library_source("Prelude") else {
        return Vec::new();
    };
    let start = src.find("module Prelude").unwrap_or(0);
    let end = src[start..]
        .find(") where")
        .map_or(src.len(), |e| start + e);
    src[start..end]
        .lines()
        .map(|l| l.split("--").next().unwrap_or(""))
        .flat_map(|l| {
            l.split(|c: char| c == ',' || c == '(' || c == ')' || c.is_whitespace())
                .filter(|w| !w.is_empty() && *w != "module" && *w != "Prelude" && *w != "..")
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

struct Completion {
    names: Arc<Mutex<Vec<String>>>,
    files: FilenameCompleter,
}

impl Completer for Completion {
    type Candidate = Pair;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        // A file's name after a command that takes one, or in a string.
        let takes_file = [
            ":load ",
            ":l ",
            ":cd ",
            ":edit ",
            ":e ",
            ":profile ",
            ":trace ",
            ":eventlog ",
            ":set grid ",
            ":!",
        ]
        .iter()
        .any(|c| line.starts_with(c));
        let in_string = line[..pos].matches('"').count() % 2 == 1;
        if takes_file || in_string {
            return self.files.complete_path(line, pos);
        }
        let start = line[..pos]
            .rfind(|c: char| {
                !(c.is_alphanumeric() || c == '_' || c == '\'' || c == '.' || c == ':')
            })
            .map_or(0, |i| i + 1);
        let word = &line[start..pos];
        if word.is_empty() {
            return Ok((pos, Vec::new()));
        }
        let names = self.names.lock().unwrap();
        let found = names
            .iter()
            .filter(|n| n.starts_with(word))
            .map(|n| Pair {
                display: n.clone(),
                replacement: n.clone(),
            })
            .collect();
        Ok((start, found))
    }
}

impl Hinter for Completion {
    type Hint = String;
}
impl Highlighter for Completion {}
impl Validator for Completion {}
impl Helper for Completion {}

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
