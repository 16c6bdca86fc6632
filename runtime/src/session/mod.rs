//! A REPL session's machine: values that live from one evaluation to the
//! next, as in GHCi.
//!
//! The REPL compiles the program again for every input (the loaded file,
//! the session's definitions, the input; the library only as far as they
//! reach: about 0.2 s, most of it the front end), and each
//! evaluation is a run of the machine, on as many PEs and whichever engine
//! the session is set to. What makes it a session:
//!
//! * **One program that only grows** (`link`): each compiled program is
//!   linked into the session's, and what is unchanged keeps its number. A
//!   value made by an earlier evaluation (a thunk, a partial application, a
//!   constructor) names code by number, so its code is still there.
//! * **One heap that survives the runs** (`saved`): after a run, the main
//!   PE's evaluated CAFs and the values bound to names are copied out;
//!   before the next run's main thread starts they are copied into its
//!   main PE and put in its CAF table. So `let xs = map (*2) [1..3]` is
//!   evaluated once however often it is used, and `:sprint xs` shows how
//!   far (GHCi's behaviour), and `x <- getLine` runs the action once.
//! * **Bound values** (`x <- action`, `it`): the REPL declares the name as
//!   a top-level CAF of the program text (`x :: T`, with a body that is
//!   never run) and asks the session to bind the run's result to it; every
//!   later run finds the value in that CAF's slot.
//!
//! The other PEs of a parallel evaluation start with empty heaps, as in any
//! run: what they need of the session's values they fetch from the main
//! PE, GUM's virtual shared heap. What they computed and the main PE did
//! not fetch is gone when the run ends; a CAF that would refer to it starts
//! again unevaluated (`saved`'s rules).

pub mod graph;
pub mod link;
pub mod saved;
pub mod sprint;

pub use graph::{GraphOf, NodeSort};

use crate::code::ScId;
use crate::code::{self, GlobalId, Program, IORES};
use crate::machine::heap::{h_info, h_kind, kind, Ptr};
use crate::machine::pe::{Pe, Stop};
use crate::machine::thread::Thread;
use crate::{Config, Exit, RunIo, Stats, Tuning};
use saved::Saved;
use std::io::{IsTerminal, Write};

/// The session's machine state between evaluations.
#[derive(Default)]
pub struct Session {
    linker: link::Linker,
    saved: Saved,
    /// The names values are bound to (global names, `Interactive.x`).
    bound: Vec<String>,
}

/// What a run of a session needs (`crate::run`).
#[derive(Clone, Copy)]
pub struct SessionRun<'a> {
    pub(crate) saved: &'a Saved,
    pub(crate) bound: &'a [String],
    /// The name main's result is bound to, if any.
    pub(crate) bind: Option<&'a str>,
}

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    /// Runs `program`'s main with the session's values, on stdin and
    /// stdout; `bind` names the global that gets main's result (`x` of
    /// `x <- action`, as `Module.x`). Its values are kept for the next run
    /// even when this one fails.
    pub fn run(&mut self, program: &Program, config: &Config, bind: Option<&str>) -> (Exit, Stats) {
        if let Err(e) = self.linker.link(program) {
            return (Exit::Error(e), Stats::default());
        }
        // The host's stdout: the process's, or the browser page's.
        let tty = std::io::stdout().is_terminal();
        self.run_linked(
            config,
            bind,
            &mut crate::host::stdout(),
            tty,
            &mut LineAtATime,
        )
    }

    /// As `run`, with the given stdout and stdin.
    pub fn run_with(
        &mut self,
        program: &Program,
        config: &Config,
        bind: Option<&str>,
        out: &mut dyn Write,
        input: &mut dyn std::io::Read,
    ) -> (Exit, Stats) {
        if let Err(e) = self.linker.link(program) {
            return (Exit::Error(e), Stats::default());
        }
        self.run_linked(config, bind, out, false, input)
    }

    fn run_linked(
        &mut self,
        config: &Config,
        bind: Option<&str>,
        out: &mut dyn Write,
        line_buffered: bool,
        input: &mut dyn std::io::Read,
    ) -> (Exit, Stats) {
        if let Some(b) = bind {
            if !self.bound.iter().any(|n| n == b) {
                self.bound.push(b.to_string());
            }
        }
        let spec = SessionRun {
            saved: &self.saved,
            bound: &self.bound,
            bind,
        };
        let world = RunIo {
            out,
            line_buffered,
            input,
        };
        let (exit, stats, saved) = crate::run(
            &self.linker.program,
            config,
            &Tuning::default(),
            world,
            Some(spec),
        );
        if let Some(s) = saved {
            self.saved = s;
        }
        (exit, stats)
    }

    /// Links a compiled program in without running it (tests).
    pub fn link(&mut self, program: &Program) -> Result<link::Linked, String> {
        self.linker.link(program)
    }

    /// The session's program.
    pub fn program(&self) -> &Program {
        &self.linker.program
    }

    /// The saved values.
    pub fn saved(&self) -> &Saved {
        &self.saved
    }

    /// The newest global of this name.
    pub fn global(&self, name: &str) -> Option<GlobalId> {
        self.linker.global(name)
    }

    /// The newest supercombinator of this name.
    pub fn sc(&self, name: &str) -> Option<ScId> {
        self.linker.sc(name)
    }

    /// `:sprint`: the value of a global (`Module.name`) as far as it is
    /// evaluated; `_` for one that is not (or is a function). None if
    /// the session has no such global.
    pub fn sprint(&self, name: &str, budget: usize) -> Option<String> {
        match self.root(name) {
            Some(w) => Some(sprint::sprint(self.program(), &self.saved, w, budget)),
            None => self.global(name).map(|_| "_".to_string()),
        }
    }

    /// `:graph NAME`: the heap graph of a global's value as it is now (at
    /// most `max` nodes); None if it has no saved value.
    pub fn graph(&self, name: &str, max: usize) -> Option<GraphOf> {
        let w = self.root(name)?;
        Some(graph::graph(self.program(), &self.saved, w, max))
    }

    /// The saved root of a name: a bound value, or an evaluated CAF.
    pub fn root(&self, name: &str) -> Option<u64> {
        self.saved
            .bound_root(name)
            .or_else(|| self.global(name).and_then(|g| self.saved.caf_root(g)))
    }
}

/// Standard input a line at a time at most: the REPL reads its next
/// command from the same input after the evaluation, so an evaluation
/// must not take more than it asked for into its own buffer (as a
/// program run alone does, a chunk at a time).
struct LineAtATime;

impl std::io::Read for LineAtATime {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::BufRead;
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        let avail = lock.fill_buf()?;
        let line = avail
            .iter()
            .position(|&b| b == b'\n')
            .map_or(avail.len(), |i| i + 1);
        let n = line.min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        lock.consume(n);
        Ok(n)
    }
}

/// Before the main thread starts: the saved graph into the main PE's heap,
/// and its roots into the CAF table.
pub(crate) fn restore(saved: &Saved, program: &Program, pe: &mut Pe) -> Result<(), Stop> {
    if pe.id().0 != 0 {
        return Ok(());
    }
    pe.ensure(&mut Thread::empty(), saved.words())?;
    let l = pe.l;
    let roots = saved.restore(&mut pe.heap, l, &mut pe.raised);
    let slot = |g: GlobalId| l.caf_of_global.get(g.0 as usize).copied().flatten();
    for (g, p) in roots.cafs {
        if let Some(k) = slot(g) {
            pe.cafs[k as usize] = p;
        }
    }
    for (name, p) in roots.bound {
        if let Some(k) = newest_global(program, &name).and_then(slot) {
            pe.cafs[k as usize] = p;
        }
    }
    Ok(())
}

/// The REPL's own names (`Module.gph'it`, the input being evaluated, and
/// whatever the compiler made of it, `gph'it$t1`): evaluated afresh each
/// time, as GHCi evaluates an expression typed again.
fn is_transient(global: &str) -> bool {
    global.starts_with("gph'") || global.contains(".gph'")
}

/// The newest global of this name in a linked program.
fn newest_global(program: &Program, name: &str) -> Option<GlobalId> {
    program
        .global_names
        .iter()
        .rposition(|n| n == name)
        .map(|i| GlobalId(i as u32))
}

/// After the run: the main PE's evaluated CAFs and bound values, and main's
/// result bound to `bind` (when the run succeeded).
pub(crate) fn save(s: &SessionRun, program: &Program, pe: &Pe, result: Option<Ptr>) -> Saved {
    let l = pe.l;
    let heap = &pe.heap;
    if pe.cafs.len() != l.caf_sc.len() {
        // The run stopped before its CAF table was made (a program may
        // have no CAF at all: the REPL's input compiles only what it uses).
        return s.saved.clone();
    }
    let bound_globals: Vec<(String, Option<GlobalId>)> = s
        .bound
        .iter()
        .map(|n| (n.clone(), newest_global(program, n)))
        .collect();
    let slot = |g: GlobalId| l.caf_of_global.get(g.0 as usize).copied().flatten();
    // Only the newest global of a name keeps its value: an older one is
    // a definition since replaced (or an earlier input's `gph'it`), and a
    // value that still refers to it computes it again if it must.
    let mut newest = std::collections::HashMap::new();
    for (i, n) in program.global_names.iter().enumerate() {
        newest.insert(n.as_str(), i);
    }
    let mut cafs = Vec::new();
    for (i, g) in program.globals.iter().enumerate() {
        let gid = GlobalId(i as u32);
        let name = program.global_names.get(i).map_or("", String::as_str);
        if newest.get(name) != Some(&i) || is_transient(name) {
            continue;
        }
        let (code::Global::Caf(_), Some(k)) = (g, slot(gid)) else {
            continue;
        };
        if bound_globals.iter().any(|(_, b)| *b == Some(gid)) {
            continue;
        }
        // Unevaluated ones too: a saved value may refer to the CAF's node
        // (a field of a constructor that the simplifier made a CAF of its
        // own), and the next run must find the same node in the table.
        cafs.push((gid, pe.cafs[k as usize]));
    }
    let mut bound = Vec::new();
    for (name, g) in &bound_globals {
        if Some(name.as_str()) == s.bind {
            continue;
        }
        let p = g.and_then(slot).map(|k| pe.cafs[k as usize]);
        if let Some(p) = p {
            bound.push((name.clone(), p));
        }
    }
    if let (Some(name), Some(r)) = (s.bind, result) {
        // main's result is `IORes r`.
        let r = heap.deref(r);
        let h = heap.hdr(r);
        if h_kind(h) == kind::CON && h_info(h) == IORES.0 {
            bound.push((name.to_string(), heap.field(r, 0)));
        }
    }
    Saved::save(heap, &pe.raised, &cafs, &bound)
}
