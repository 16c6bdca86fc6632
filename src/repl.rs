//! `gph repl`: an interactive session over the loaded file.
//!
//! Each evaluation compiles the whole program again: the loaded file's text,
//! then the session's definitions, then `gph'it = EXPR` and an entry point
//! `gph'main` that prints `gph'it` (or runs it, when it is an `IO` action).
//! Compiling the Prelude and a file takes a few tens of milliseconds, so this
//! keeps the REPL exactly as faithful as `gph run`, with no second compiler.
//! Diagnostics about the appended part are shown against `<interactive>`.

use crate::{report, CompileOpts, MachineOpts};
use gph_syntax::{Diagnostic, SourceFile, SourceMap};
use rustyline::completion::{Completer, Pair};
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
  :load FILE          load a file (its top-level names come into scope)
  :reload             load the same file again
  :type EXPR          show the type of an expression
  :browse             list the loaded file's definitions with their types
  :sc NAME            show the supercombinators and machine code of a definition
  :set +s / :unset +s show time, reductions and allocation after each evaluation
  :help               this text
  :quit               leave (also Ctrl-D)
Ctrl-C interrupts a long evaluation.
";

const IT: &str = "gph'it";
const ENTRY: &str = "gph'main";

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
}

/// What the session's program looks like with some extra text appended.
struct Source {
    file: SourceFile,
    /// Where the appended part starts.
    split: usize,
}

impl Session {
    /// The program text: the file (or an empty module), the session's
    /// imports and definitions, then `extra`.
    fn source(&self, extra: &str) -> Source {
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
        text.push_str(extra);
        let name = self.file.clone().unwrap_or_else(|| "<interactive>".into());
        Source {
            file: SourceFile::new(name, text),
            split,
        }
    }

    /// Shows diagnostics, those in the appended part against `<interactive>`.
    fn report(&self, src: &Source, sources: &SourceMap, diags: &[Diagnostic]) -> bool {
        let mut map = SourceMap::default();
        for f in &sources.files {
            if f.name == src.file.name && f.text == src.file.text && self.file.is_some() {
                let (a, b) = f.text.split_at(src.split);
                map.files
                    .push(SourceFile::with_base(f.name.clone(), a, f.base));
                map.files.push(SourceFile::with_base(
                    "<interactive>",
                    b,
                    f.base + src.split as u32,
                ));
            } else {
                map.files.push(f.clone());
            }
        }
        report(&map, diags)
    }

    /// The types of the main module's bindings, or the diagnostics.
    fn types(&self, src: &Source, quiet: bool) -> Option<Vec<(String, String)>> {
        let out = gph_compiler::dump(&src.file, gph_compiler::Stage::Types, &self.compiler);
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
        self.defs.clear();
        self.imports.clear();
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
            ":load", ":reload", ":type", ":browse", ":sc", ":set", ":unset", ":help", ":quit",
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
        let src = self.source(&format!("{IT} () =\n{}\n", indent(expr)));
        let ts = self.types(&src, false)?;
        let t = ts.into_iter().find(|(n, _)| n == IT)?.1;
        Some(strip_unit_arg(&t))
    }

    fn eval(&mut self, input: &str) {
        // An expression, or else a definition.
        let expr_src = self.source(&format!("{IT} =\n{}\n", indent(input)));
        let type_of_it = |src: &Source| {
            self.types(src, true)
                .and_then(|ts| ts.into_iter().find(|(n, _)| n == IT).map(|(_, t)| t))
        };
        let mut body = indent(input);
        let mut ty = type_of_it(&expr_src);
        if ty.is_none() {
            // An action in an unknown monad (`return 'x'`) runs in IO, as in GHCi.
            let as_io = format!("{IT}'io :: IO a -> IO a\n{IT}'io a = a\n");
            let wrapped = format!(
                "{as_io}{IT} =\n  {IT}'io (\n{}\n  )\n",
                indent(&indent(input))
            );
            if let Some(t) = type_of_it(&self.source(&wrapped)) {
                ty = Some(t);
                body = format!("  {IT}'io (\n{}\n  )\n{as_io}", indent(&indent(input)));
            }
        }
        let Some(ty) = ty else {
            if looks_like_definition(input) {
                return self.define(input);
            }
            self.types(&expr_src, false);
            return;
        };
        let entry = if ty == "IO ()" {
            format!("{ENTRY} = {IT}\n")
        } else if ty.starts_with("IO ") {
            format!("{ENTRY} = {IT} >>= print\n")
        } else {
            format!("{ENTRY} = print {IT}\n")
        };
        let shown_result = ty.starts_with("IO ") && ty != "IO ()";
        let src = self.source(&format!("{IT} =\n{body}\n{entry}"));
        let program = match self.compile(&src, shown_result) {
            // A result without Show is not printed.
            None if shown_result => self.compile(
                &self.source(&format!("{IT} =\n{body}\n{ENTRY} = {IT} >> return ()\n")),
                false,
            ),
            p => p,
        };
        if let Some(p) = program {
            self.run(&p);
        }
    }

    /// The program with `gph'main` as its entry, or its errors (shown
    /// unless `quiet`).
    fn compile(&self, src: &Source, quiet: bool) -> Option<gph_runtime::code::Program> {
        let (program, sources, diags) =
            gph_compiler::compile_entry(&src.file, ENTRY, &self.compiler);
        if quiet && diags.iter().any(Diagnostic::is_error) || self.report(src, &sources, &diags) {
            return None;
        }
        program
    }

    fn run(&self, program: &gph_runtime::code::Program) {
        let mut config = match self
            .machine
            .config(self.file.as_deref().unwrap_or("<interactive>"), Vec::new())
        {
            Ok(c) => c,
            Err(e) => {
                eprintln!("gph: {e}");
                return;
            }
        };
        self.interrupt.store(false, Ordering::SeqCst);
        config.interrupt = Some(self.interrupt.clone());
        let start = Instant::now();
        let (exit, stats) = gph_runtime::run_main(program, &config);
        let elapsed = start.elapsed();
        match exit {
            gph_runtime::Exit::Success => {}
            gph_runtime::Exit::Error(m) => eprintln!("gph: {m}"),
            gph_runtime::Exit::ExitWith(c) => eprintln!("gph: the program exited with status {c}"),
        }
        if self.timing {
            println!(
                "({:.2} secs, {} reductions, {} bytes)",
                elapsed.as_secs_f64(),
                stats.reductions,
                stats.allocated_bytes
            );
        }
    }

    fn define(&mut self, text: &str) {
        let bound = defined_names(text);
        // A new definition replaces an older one of the same name.
        let old: Vec<(Vec<String>, String)> = self
            .defs
            .iter()
            .filter(|(ns, _)| !ns.iter().any(|n| bound.contains(n)))
            .cloned()
            .collect();
        let previous = std::mem::replace(&mut self.defs, old);
        self.defs.push((bound, text.to_string()));
        let src = self.source("");
        if self.types(&src, false).is_none() {
            self.defs = previous;
        } else {
            self.refresh_names();
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
        if t.is_empty() {
            return true;
        }
        if let Some(cmd) = t.strip_prefix(':') {
            let (c, arg) = cmd.split_once(char::is_whitespace).unwrap_or((cmd, ""));
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
                "set" | "unset" if arg == "+s" => self.timing = c == "set",
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
        if t.starts_with("let ") && !line.contains(" in ") {
            self.define(&dedent_let(line));
            return true;
        }
        self.eval(line);
        true
    }
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

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `let f x = ...` (possibly over several lines): the definitions without
/// `let`, the following lines moved left by as much as the first.
fn dedent_let(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim_start();
    let mut out = first
        .strip_prefix("let ")
        .unwrap_or(first)
        .trim_start()
        .to_string();
    for l in lines {
        let spaces = l.len() - l.trim_start_matches(' ').len();
        out.push('\n');
        out.push_str(&l[spaces.min(4)..]);
    }
    out
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
        if w.starts_with(|c: char| c.is_lowercase() || c == '_') {
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
    let Some((_, src)) = gph_compiler::modules::library_source("Prelude") else {
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
}

impl Completer for Completion {
    type Candidate = Pair;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
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
pub fn repl(file: Option<String>, machine: MachineOpts, compiler: CompileOpts) -> Result<(), ()> {
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        // Ctrl-C during an evaluation stops it; at the prompt rustyline sees it.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    let names = Arc::new(Mutex::new(Vec::new()));
    let mut session = Session {
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
    editor.set_helper(Some(Completion { names }));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!("gph repl: :help for the commands, :quit to leave");
    session.load(file);
    loop {
        let line = match editor.readline("gph> ") {
            Ok(l) => l,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("gph: {e}");
                break;
            }
        };
        let _ = editor.add_history_entry(line.as_str());
        let input = if line.trim() == ":{" {
            let mut block = Vec::new();
            loop {
                match editor.readline("gph| ") {
                    Ok(l) if l.trim() == ":}" => break,
                    Ok(l) => {
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
        if !session.input(&input) {
            break;
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(())
}
