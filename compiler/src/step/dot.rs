//! The heap graph reachable from the expression, and its Graphviz text.
//!
//! Every node is drawn once (sharing shows as several edges into it, a
//! cycle as a cycle); dictionaries are left out, as in `show`. Kinds are
//! told apart by shape and colour: thunks (applications, `case`s, CAFs)
//! orange ellipses, values (constructors, literals) green boxes,
//! functions and partial applications blue hexagons, black holes (thunks
//! under evaluation) black octagons, indirections small grey points.

use super::machine::{Addr, Machine, Node, DICT, GLOBAL, NONE, ON_STACK};
use super::show;
use super::template::*;
use std::collections::HashMap;
use std::fmt::Write;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An unevaluated application, `case` or CAF.
    Thunk,
    /// A constructor with its fields, or a literal.
    Value,
    /// A function, or a partial application.
    Function,
    /// A thunk under evaluation (entering it again is `<<loop>>`).
    BlackHole,
    /// An updated node pointing at its value.
    Indirection,
}

#[derive(Clone, Debug)]
pub struct GraphNode {
    /// The heap address (stable from step to step).
    pub id: u32,
    pub kind: NodeKind,
    pub label: String,
}

#[derive(Clone, Debug)]
pub struct GraphEdge {
    pub from: u32,
    pub to: u32,
    /// `fun`/`arg` of an application, the field number of a constructor,
    /// the variable of an environment, `scrut` of a `case`.
    pub label: String,
}

/// The heap graph reachable from the root.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub root: Option<u32>,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    /// Whether nodes were left out for the size limit.
    pub truncated: bool,
}

/// The graph from `root`, at most `max_nodes` nodes.
pub fn graph(p: &Program, m: &Machine, root: Addr, max_nodes: usize) -> Graph {
    let mut g = Graph::default();
    if root == NONE {
        return g;
    }
    g.root = Some(root);
    let mut index: HashMap<Addr, usize> = HashMap::new();
    let mut todo = vec![root];
    while let Some(a) = todo.pop() {
        if index.contains_key(&a) {
            continue;
        }
        if g.nodes.len() >= max_nodes {
            g.truncated = true;
            break;
        }
        index.insert(a, g.nodes.len());
        let cell = &m.heap[a as usize];
        let mut out: Vec<(Addr, String)> = Vec::new();
        let (kind, label) = describe(p, m, a, a == root);
        // A global's node is drawn as its name only (its value is shared
        // by the whole program); so are dictionaries.
        let leaf = a != root && cell.flags & GLOBAL != 0;
        if !leaf {
            match &cell.node {
                Node::App(f, x) => {
                    out.push((*f, "fun".into()));
                    out.push((*x, "arg".into()));
                }
                Node::Data(_, fs) => {
                    for (i, f) in fs.iter().enumerate() {
                        out.push((*f, i.to_string()));
                    }
                }
                Node::Closure(c, env) => {
                    let fr = &p.codes[*c as usize].frame;
                    for (i, x) in env.iter().enumerate() {
                        out.push((*x, p.name(fr.names[fr.captures[i].1 as usize]).to_string()));
                    }
                }
                Node::Case(c, s, env) => {
                    out.push((*s, "scrut".into()));
                    let fr = &p.cases[*c as usize].frame;
                    for (i, x) in env.iter().enumerate() {
                        out.push((*x, p.name(fr.names[fr.captures[i].1 as usize]).to_string()));
                    }
                }
                Node::Ind(t) | Node::Method(_, t) => out.push((*t, String::new())),
                _ => {}
            }
        }
        g.nodes.push(GraphNode { id: a, kind, label });
        for (to, label) in out.into_iter().rev() {
            if to == NONE || hidden(p, m, to) {
                continue;
            }
            g.edges.push(GraphEdge { from: a, to, label });
            todo.push(to);
        }
    }
    g.edges.reverse();
    // Edges into nodes left out for the limit go too.
    g.edges.retain(|e| index.contains_key(&e.to));
    g
}

fn hidden(p: &Program, m: &Machine, a: Addr) -> bool {
    let c = &m.heap[m.resolve(a) as usize];
    m.heap[a as usize].flags & DICT != 0
        || c.flags & DICT != 0
        || matches!(&c.node, Node::Data(k, _) if p.cons[*k as usize].class)
}

fn describe(p: &Program, m: &Machine, a: Addr, is_root: bool) -> (NodeKind, String) {
    let cell = &m.heap[a as usize];
    let under_eval = cell.flags & ON_STACK != 0;
    let one = |a: Addr| show::render(p, m, a, Some(40), false);
    match &cell.node {
        Node::App(..) => {
            if m.is_pap(p, a) {
                (NodeKind::Function, "@".into())
            } else if under_eval {
                (NodeKind::BlackHole, "@".into())
            } else {
                (NodeKind::Thunk, "@".into())
            }
        }
        Node::Case(..) => (
            if under_eval {
                NodeKind::BlackHole
            } else {
                NodeKind::Thunk
            },
            "case".into(),
        ),
        Node::Caf(g) => (
            if under_eval {
                NodeKind::BlackHole
            } else {
                NodeKind::Thunk
            },
            p.globals[*g as usize].display.to_string(),
        ),
        Node::Int(_) | Node::Integer(_) | Node::Double(_) | Node::Char(_) | Node::Str(..) => {
            (NodeKind::Value, one(a))
        }
        Node::Data(k, _) => {
            let label = if !is_root && cell.flags & GLOBAL != 0 && cell.hint != 0 {
                p.name(cell.hint).to_string()
            } else {
                p.cons[*k as usize].display.to_string()
            };
            (NodeKind::Value, label)
        }
        Node::Fun(_) | Node::ConFun(_) | Node::Closure(..) => (NodeKind::Function, one(a)),
        Node::Ind(_) => (NodeKind::Indirection, String::new()),
        Node::Method(g, _) => (
            NodeKind::Indirection,
            p.globals[*g as usize].display.to_string(),
        ),
        Node::Bottom(msg) => (NodeKind::Thunk, format!("error {msg:?}")),
        Node::Hole => (NodeKind::Thunk, "hole".into()),
        Node::Free => (NodeKind::Thunk, "freed".into()),
    }
}

fn escape(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 32 => {}
            c => o.push(c),
        }
    }
    o
}

fn style(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Thunk => "shape=ellipse, style=filled, fillcolor=\"#ffcc80\"",
        NodeKind::Value => "shape=box, style=\"filled,rounded\", fillcolor=\"#c8e6c9\"",
        NodeKind::Function => "shape=hexagon, style=filled, fillcolor=\"#bbdefb\"",
        NodeKind::BlackHole => {
            "shape=octagon, style=filled, fillcolor=black, fontcolor=white"
        }
        NodeKind::Indirection => {
            "shape=circle, width=0.15, style=filled, fillcolor=\"#9e9e9e\", fixedsize=true, fontsize=8"
        }
    }
}

impl Graph {
    /// Graphviz DOT text: one statement per node and edge, a `root`
    /// marker, and a legend of the kinds.
    pub fn to_dot(&self) -> String {
        let mut s = String::new();
        s.push_str("digraph gph {\n");
        s.push_str("  graph [rankdir=TB, fontname=\"monospace\"];\n");
        s.push_str("  node [fontname=\"monospace\", fontsize=11];\n");
        s.push_str("  edge [fontname=\"monospace\", fontsize=9];\n");
        if let Some(r) = self.root {
            s.push_str("  root [shape=plaintext, label=\"root\"];\n");
            let _ = writeln!(s, "  root -> n{r};");
        }
        for n in &self.nodes {
            let label = match n.kind {
                NodeKind::Indirection if n.label.is_empty() => String::new(),
                _ => escape(&n.label),
            };
            let _ = writeln!(s, "  n{} [label=\"{}\", {}];", n.id, label, style(n.kind));
        }
        for e in &self.edges {
            if e.label.is_empty() {
                let _ = writeln!(s, "  n{} -> n{};", e.from, e.to);
            } else {
                let _ = writeln!(
                    s,
                    "  n{} -> n{} [label=\"{}\"];",
                    e.from,
                    e.to,
                    escape(&e.label)
                );
            }
        }
        if self.truncated {
            s.push_str("  more [shape=plaintext, label=\"(more nodes not shown)\"];\n");
        }
        s.push_str("  subgraph cluster_legend {\n");
        s.push_str("    label=\"legend\"; fontsize=10; style=dashed;\n");
        for (name, k) in [
            ("thunk", NodeKind::Thunk),
            ("value", NodeKind::Value),
            ("function / partial application", NodeKind::Function),
            ("black hole (under evaluation)", NodeKind::BlackHole),
            ("indirection", NodeKind::Indirection),
        ] {
            let id = name.split(' ').next().unwrap_or(name);
            let id: String = id.chars().filter(|c| c.is_alphanumeric()).collect();
            let st = match k {
                NodeKind::Indirection => {
                    "shape=circle, width=0.15, style=filled, fillcolor=\"#9e9e9e\", fixedsize=true, fontsize=8"
                        .to_string()
                }
                k => style(k).to_string(),
            };
            let _ = writeln!(
                s,
                "    legend_{id} [label=\"{}\", {st}];",
                if k == NodeKind::Indirection { "" } else { name }
            );
            if k == NodeKind::Indirection {
                let _ = writeln!(
                    s,
                    "    legend_{id}_text [shape=plaintext, label=\"{name}\"];\n    legend_{id} -> legend_{id}_text [style=invis];"
                );
            }
        }
        s.push_str("  }\n");
        s.push_str("}\n");
        s
    }
}
