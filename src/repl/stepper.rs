//! Watching evaluation: the stepper (`:step`, `:steps`), the heap as a
//! graph (`:graph`), and how much of a value is evaluated (`:sprint`,
//! `:print`).

use super::source::Placed;
use super::{Session, IT};
use gph_syntax::Span;
use std::sync::atomic::Ordering;

/// The most nodes `:graph` draws.
const GRAPH_NODES: usize = 400;

impl Session {
    /// A stepper for `expr` (errors reported against the input).
    fn stepper(&self, expr: &str) -> Option<gph_compiler::step::Stepper> {
        if expr.trim().is_empty() {
            gph_runtime::host_println!("usage: :step EXPR, :steps EXPR or :graph EXPR");
            return None;
        }
        let src = self.source_with(&format!("{IT} =\n"), Some(Placed::indented(expr, 2)), "");
        match gph_compiler::step::Stepper::new(&src.file, IT, &self.options(&src)) {
            Ok(s) => Some(s),
            Err((sources, diags)) => {
                if diags.iter().all(|d| d.span == Span::default()) {
                    for d in &diags {
                        gph_runtime::host_eprintln!("gph: {}", d.message.replace(IT, "it"));
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
                gph_runtime::host_println!("-- {}: {}  ==>  {}", st.rule, st.redex, st.result);
                gph_runtime::host_println!("=> {}", s.show_limited(2000));
                true
            }
            None => {
                match s.error() {
                    Some(e) => gph_runtime::host_println!("** {e}"),
                    None => gph_runtime::host_println!("(normal form after {} steps)", s.steps()),
                }
                false
            }
        }
    }

    /// Shows up to `limit` steps; Ctrl-C stops them.
    fn run_steps(&self, s: &mut gph_compiler::step::Stepper, limit: u64) -> bool {
        for _ in 0..limit {
            if self.interrupt.swap(false, Ordering::SeqCst) {
                gph_runtime::host_println!("(interrupted after {} steps)", s.steps());
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
        gph_runtime::host_println!(
            "(stopped after {} steps: :set steps N shows more)",
            s.steps()
        );
        true
    }

    /// `:steps EXPR`: every step of its evaluation to normal form.
    pub(super) fn steps(&self, expr: &str) {
        let Some(mut s) = self.stepper(expr) else {
            return;
        };
        gph_runtime::host_println!("   {}", s.show_limited(2000));
        self.run_steps(&mut s, self.step_limit);
    }

    /// `:step EXPR`: the first step; then Enter for the next, `:continue`
    /// for the rest, `:graph [FILE]` for the graph now, `:stop` to leave.
    pub(super) fn step_start(&mut self, expr: &str) {
        let Some(mut s) = self.stepper(expr) else {
            return;
        };
        gph_runtime::host_println!("   {}", s.show_limited(2000));
        if Self::show_step(&mut s) {
            gph_runtime::host_println!("(Enter: next step; :continue; :graph [FILE]; :stop)");
            self.stepping = Some(s);
        }
    }

    /// A line typed while stepping; false if it is not about stepping
    /// (then stepping ends and the line is an ordinary input).
    pub(super) fn step_input(&mut self, t: &str) -> bool {
        let Some(mut s) = self.stepping.take() else {
            return false;
        };
        let more = match t {
            "" | ":n" | ":next" => Self::show_step(&mut s),
            ":c" | ":continue" => self.run_steps(&mut s, self.step_limit),
            ":stop" | ":abandon" => {
                gph_runtime::host_println!("(stopped stepping after {} steps)", s.steps());
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
    pub(super) fn graph(&self, arg: &str) {
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
            gph_runtime::host_println!("(the evaluation failed: {e}; the graph is as it stopped)");
        } else if !s.is_done() {
            gph_runtime::host_println!(
                "(not in normal form after {} steps: an infinite or large value, drawn as far as it got)",
                s.steps()
            );
        }
        self.write_graph(&s.graph_limited(GRAPH_NODES), "");
    }

    /// Writes a graph as FILE (default `gph-graph.dot`) and, when Graphviz
    /// is installed, as SVG beside it.
    fn write_graph(&self, g: &gph_compiler::step::Graph, file: &str) {
        // The browser build has no files and no `dot`: the page takes the
        // DOT (`Repl::take_graph`) and draws it.
        if cfg!(target_arch = "wasm32") {
            if g.truncated {
                gph_runtime::host_println!("(only the first {GRAPH_NODES} nodes are drawn)");
            }
            *self.shown.borrow_mut() = Some(("dot".into(), g.to_dot().into_bytes()));
            return;
        }
        let dot_path = if file.is_empty() {
            self.graph_file.as_str()
        } else {
            file
        };
        // The default name was not the user's choice: gph does not write
        // it through a symbolic link (src/files.rs).
        let own = file.is_empty();
        let write = |path: &std::path::Path, bytes: &[u8]| {
            if own {
                crate::files::write_no_follow(path, bytes)
            } else {
                std::fs::write(path, bytes)
            }
        };
        if let Err(e) = write(dot_path.as_ref(), g.to_dot().as_bytes()) {
            gph_runtime::host_eprintln!("gph: cannot write {dot_path}: {e}");
            return;
        }
        if g.truncated {
            gph_runtime::host_println!("(only the first {GRAPH_NODES} nodes are drawn)");
        }
        let svg = std::path::Path::new(dot_path).with_extension("svg");
        // dot writes to its output, gph writes the file.
        let drawn = std::process::Command::new("dot")
            .arg("-Tsvg")
            .arg(dot_path)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success());
        match drawn {
            Some(o) => match write(&svg, &o.stdout) {
                Ok(()) => gph_runtime::host_println!("wrote {dot_path} and {}", svg.display()),
                Err(e) => gph_runtime::host_println!(
                    "wrote {dot_path} (and no SVG: cannot write {}: {e})",
                    svg.display()
                ),
            },
            None => gph_runtime::host_println!(
                "wrote {dot_path} (and no SVG: Graphviz's dot is not installed)"
            ),
        }
    }

    /// `:sprint NAME` / `:print NAME`: how much of a value is evaluated.
    pub(super) fn sprint(&self, name: &str, print: bool) {
        if name.is_empty() {
            gph_runtime::host_println!("usage: :sprint NAME");
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
            (None, _) => gph_runtime::host_eprintln!("gph: `{name}` is not in scope"),
            (Some(s), Some(t)) if print && s == "_" => {
                gph_runtime::host_println!("{name} = (_t1::{t})")
            }
            (Some(s), _) => gph_runtime::host_println!("{name} = {s}"),
        }
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
