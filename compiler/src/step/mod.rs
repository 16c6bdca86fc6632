//! The stepper behind the REPL's `:step`, `:steps` and `:graph`: graph
//! reduction shown one step at a time, by a template-instantiation machine
//! (Peyton Jones & Lester, "Implementing Functional Languages: a
//! tutorial", ch. 2) over the program's Core, and the heap graph in
//! Graphviz form.
//!
//! # API
//!
//! ```text
//! Stepper::new(file: &SourceFile, entry: &str, opts: &Options)
//!     -> Result<Stepper, (SourceMap, Vec<Diagnostic>)>
//!                                   compile `file`; the machine holds the graph of
//!                                   `entry`'s right-hand side (`gph'it` or
//!                                   `Interactive.gph'it`); an IO action is an error
//! stepper.step() -> Option<Step>    one reduction; None in normal form or on an error
//! stepper.error() -> Option<&str>   the error that stopped it (`Prelude.head: empty
//!                                   list`, `divide by zero`, `<<loop>>`), as `gph run`
//! stepper.show() -> String          the expression now
//! stepper.show_limited(n) -> String the same, cut after about n characters (`...`)
//! stepper.graph() -> Graph          the heap graph reachable from it; .to_dot()
//! stepper.graph_limited(n) -> Graph at most n nodes
//! stepper.run(n) -> u64             up to n steps without their texts (fast)
//! stepper.is_done() -> bool         in normal form
//! stepper.steps(), .reductions()    steps shown so far; reductions including folded ones
//! stepper.set_text_limit(Option<usize>)  the length of a step's redex and result
//!                                   texts (default 200; None: no texts)
//! stepper.output() -> Option<String>  the value as a String, when it is a string
//! Step { rule: Rule, redex: String, result: String, folded: u32 }
//! Rule::{Instantiate(f), Primitive(op), CaseSelect(con), Construct(con), Spark}
//!                                   Display: `unfold map`, `prim +`, `case :`, `pack :%`, `spark`
//! Graph { root, nodes: Vec<GraphNode { id, kind: NodeKind, label }>,
//!         edges: Vec<GraphEdge { from, to, label }>, truncated }
//! NodeKind::{Thunk, Value, Function, BlackHole, Indirection}
//! ```
//!
//! # The machine
//!
//! The input is the desugared Core of the whole program (`crate::desugar`),
//! before the simplifier: functions are the user's and the Prelude's as
//! written (`map f = go where go ...` stays a local `go`, `sum` keeps its
//! strict accumulator loop), and their variables keep the source names.
//! `template` compiles it, `machine` runs it (a spine stack, a dump for
//! the arguments of primitives and `case` scrutinees, updates in place,
//! black holes), `prims` has the primitives (with the runtime's own
//! functions for their results), `show` prints the graph as an expression
//! and `dot` draws it.
//!
//! A step is one reduction: unfolding a function, lambda or CAF
//! (instantiating its body in place of the redex), a primitive, the choice
//! of a `case` alternative, building a constructor with strict fields, or a
//! spark (`par a b` is `b`). Updating the redex is part of each step (the
//! root of the redex is overwritten with the result, or with an
//! indirection to it when it is an existing node), so the second use of a
//! shared expression finds its value with no step of its own: in
//! `(\y -> y * y) (1 + 2)` the `+` fires once.
//!
//! # Dictionaries
//!
//! Type classes are dictionaries in Core. The steps that only move
//! dictionaries around (selecting a method from an instance dictionary,
//! building a dictionary, choosing the alternative of a dictionary record)
//! are *folded*: [`Stepper::step`] performs them silently before the next
//! visible step, and counts them in [`Step::folded`]. A method selected
//! from a dictionary is shown under the method's name (`+`, `show`,
//! `showsPrec`), the primitive that implements it as the operation
//! (`primIntegerAdd` is `+`), an instance's method by the name it has in
//! the instance, and dictionary arguments and parameters are left out. So
//! `1 + 2` at `Integer` is the single step `1 + 2 ==> 3`.
//!
//! # Normal form
//!
//! The stepper evaluates as `print` forces a value: to weak head normal
//! form, then each constructor's fields, left to right. A cyclic value
//! (`let xs = 1 : xs in xs`) is finished when each of its nodes has been
//! evaluated once.

mod dot;
mod machine;
mod prims;
mod show;
mod template;
#[cfg(test)]
mod tests;

pub use dot::{Graph, GraphEdge, GraphNode, NodeKind};

use crate::Options;
use gph_syntax::{Diagnostic, SourceFile, SourceMap, Span};
use machine::{Event, Machine};
use std::fmt;
use template::Program;

/// What a step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A function, lambda (`\x y`) or CAF unfolded: its body instantiated.
    Instantiate(String),
    /// A primitive operation (`+`, `==`, `show`, `seq`, `error`).
    Primitive(String),
    /// A `case` took the alternative of this constructor or literal (`_`:
    /// the default).
    CaseSelect(String),
    /// A constructor with strict fields built once they were evaluated.
    Construct(String),
    /// `par a b` became `b` (on a parallel machine `a` would be sparked).
    Spark,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Instantiate(n) => write!(f, "unfold {n}"),
            Rule::Primitive(n) => write!(f, "prim {n}"),
            Rule::CaseSelect(c) => write!(f, "case {c}"),
            Rule::Construct(c) => write!(f, "pack {c}"),
            Rule::Spark => write!(f, "spark"),
        }
    }
}

/// One reduction step: the redex and what replaced it, as text.
#[derive(Clone, Debug)]
pub struct Step {
    pub rule: Rule,
    pub redex: String,
    pub result: String,
    /// Dictionary steps done silently before this one.
    pub folded: u32,
}

/// At most this many dictionary steps are folded into one visible step
/// (a program that does nothing else still shows progress).
const MAX_FOLDED: u32 = 10_000;

pub struct Stepper {
    prog: Program,
    m: Machine,
    steps: u64,
}

fn error_at_start(
    sources: SourceMap,
    diags: Vec<Diagnostic>,
    msg: String,
) -> (SourceMap, Vec<Diagnostic>) {
    let mut diags = diags;
    diags.push(Diagnostic::error(Span { start: 0, end: 0 }, msg));
    (sources, diags)
}

impl Stepper {
    /// Compiles `file` (a whole program that defines the top-level binding
    /// `entry`, e.g. `Interactive.gph'it` or `gph'it`) and prepares the
    /// machine with the graph of `entry`'s right-hand side. Errors are the
    /// compiler's diagnostics, or one saying that `entry` is an IO action.
    /// The stepper works on the desugared Core whatever `opts` say (the
    /// optimiser would make the steps unlike the source).
    pub fn new(
        file: &SourceFile,
        entry: &str,
        opts: &Options,
    ) -> Result<Stepper, (SourceMap, Vec<Diagnostic>)> {
        let (program, sources, mut diags) = crate::front_end(file);
        let Some(p) = program.filter(|_| !diags.iter().any(Diagnostic::is_error)) else {
            return Err((sources, diags));
        };
        let typed = crate::types::typecheck(&p.modules, opts.interactive_from);
        diags.extend(typed.diagnostics);
        if diags.iter().any(Diagnostic::is_error) {
            return Err((sources, diags));
        }
        let entry = if template::split_qual(entry).0.is_empty() {
            format!("{}.{entry}", p.main)
        } else {
            entry.to_string()
        };
        let short = template::split_qual(&entry).1;
        if let Some((_, ty)) = typed.types_of_main.iter().find(|(n, _)| n == short) {
            if ty == "IO" || ty.starts_with("IO ") {
                return Err(error_at_start(
                    sources,
                    diags,
                    ":step works on pure expressions, not IO actions".into(),
                ));
            }
        }
        let (core, more) = crate::desugar::desugar(&typed.elaborated, &sources);
        diags.extend(
            more.into_iter()
                .filter(|d| crate::in_main_file(&sources, d)),
        );
        if !core.binds.iter().any(|(n, _)| **n == *entry) {
            return Err(error_at_start(
                sources,
                diags,
                format!("the program has no `{short}`"),
            ));
        }
        let mut c = template::Compiler::new(&core);
        c.entry = Some(entry.as_str().into());
        let g = c.global(&entry.as_str().into());
        c.finish();
        if let Some(e) = c.error.take() {
            return Err(error_at_start(
                sources,
                diags,
                format!("internal error: {e}"),
            ));
        }
        let prog = c.prog;
        let mut m = Machine::new(&prog);
        m.start(&prog, g);
        Ok(Stepper { prog, m, steps: 0 })
    }

    /// The expression now, as text (see `show` for the conventions).
    pub fn show(&self) -> String {
        show::render(&self.prog, &self.m, self.m.root, None, true)
    }

    /// [`Stepper::show`] cut after about `max_chars` characters (ending in
    /// `...`); its cost is bounded by the limit, not by the graph.
    pub fn show_limited(&self, max_chars: usize) -> String {
        show::render(&self.prog, &self.m, self.m.root, Some(max_chars), true)
    }

    /// One reduction step (dictionary steps before it folded in), or `None`
    /// when the expression is in normal form or an error was raised (then
    /// [`Stepper::error`] says which).
    pub fn step(&mut self) -> Option<Step> {
        let mut folded = 0;
        loop {
            match self.m.advance(&self.prog) {
                Event::Reduced(r) => {
                    if r.admin && folded < MAX_FOLDED {
                        folded += 1;
                        continue;
                    }
                    self.steps += 1;
                    return Some(Step {
                        rule: r.rule,
                        redex: r.redex,
                        result: r.result,
                        folded,
                    });
                }
                Event::Done | Event::Error => return None,
            }
        }
    }

    /// Up to `max_steps` steps without producing their texts; returns how
    /// many were done (fewer: finished or stopped by an error).
    pub fn run(&mut self, max_steps: u64) -> u64 {
        let saved = self.m.text_limit.take();
        let mut n = 0;
        while n < max_steps && self.step().is_some() {
            n += 1;
        }
        self.m.text_limit = saved;
        n
    }

    /// The error that stopped the machine, with `gph run`'s message.
    pub fn error(&self) -> Option<&str> {
        self.m.error.as_deref()
    }

    /// Whether the expression is in normal form.
    pub fn is_done(&self) -> bool {
        self.m.done
    }

    /// Visible steps so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Reductions so far, the folded dictionary steps included.
    pub fn reductions(&self) -> u64 {
        self.m.reductions
    }

    /// How long a step's redex and result texts may be (`None`: none are
    /// made, for speed).
    pub fn set_text_limit(&mut self, limit: Option<usize>) {
        self.m.text_limit = limit;
    }

    /// The heap graph reachable from the expression now.
    pub fn graph(&self) -> Graph {
        dot::graph(&self.prog, &self.m, self.m.root, usize::MAX)
    }

    /// [`Stepper::graph`] with at most `max_nodes` nodes.
    pub fn graph_limited(&self, max_nodes: usize) -> Graph {
        dot::graph(&self.prog, &self.m, self.m.root, max_nodes)
    }

    /// The value as a Haskell String, when it is an evaluated list of
    /// characters (what `putStrLn` of it would print).
    pub fn output(&self) -> Option<String> {
        self.m.string_value(&self.prog, self.m.root)
    }
}
