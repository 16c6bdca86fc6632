//! `:graph NAME`: a session value's heap graph as it is now, for drawing —
//! every node once (so sharing and cycles show), constructors and numbers
//! as values, thunks, functions and partial applications with the code
//! they run, errors as what they will raise.

use super::saved::{Saved, SavedNode};
use crate::code::Program;
use crate::machine::heap::kind;
use crate::machine::prims::show_double;
use std::collections::HashMap;

/// What a node is, for drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeSort {
    Thunk,
    Value,
    Function,
}

#[derive(Clone, Debug)]
pub struct GraphNode {
    pub id: u32,
    pub sort: NodeSort,
    pub label: String,
}

/// The graph from a root: its nodes (the root first) and edges (from, to,
/// the field's number).
#[derive(Clone, Debug, Default)]
pub struct GraphOf {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<(u32, u32, String)>,
    /// Whether nodes were left out for the size limit.
    pub truncated: bool,
}

/// The graph of `root`, at most `max` nodes.
pub fn graph(program: &Program, saved: &Saved, root: u64, max: usize) -> GraphOf {
    let mut g = GraphOf::default();
    let mut ids: HashMap<u64, u32> = HashMap::new();
    let mut todo = vec![root];
    let mut edges = Vec::new();
    while let Some(w) = todo.pop() {
        if ids.contains_key(&w) {
            continue;
        }
        if g.nodes.len() >= max {
            g.truncated = true;
            continue;
        }
        let id = ids.len() as u32;
        ids.insert(w, id);
        let sc = |i: u32| program.scs.get(i as usize).map_or("?", |s| s.name.as_str());
        let con = |i: u32| {
            program
                .cons
                .get(i as usize)
                .map_or("?".to_string(), |c| unqualified(&c.name))
        };
        let (sort, label, fields): (NodeSort, String, &[u64]) = match saved.node(w) {
            SavedNode::Static(k, v) => match k {
                kind::CON => (NodeSort::Value, con(v), &[]),
                kind::FUN => (NodeSort::Function, unqualified(sc(v)), &[]),
                kind::INT => (NodeSort::Value, (v as i32).to_string(), &[]),
                kind::CHAR => (
                    NodeSort::Value,
                    char::from_u32(v).map_or("?".into(), |c| format!("{c:?}")),
                    &[],
                ),
                _ => (NodeSort::Value, "?".into(), &[]),
            },
            SavedNode::Heap {
                kind: k,
                info,
                fields,
            } => match k {
                kind::CON => (NodeSort::Value, con(info), fields),
                kind::ARRAY => (NodeSort::Value, "array".into(), fields),
                kind::INT | kind::SMALLINT => (
                    NodeSort::Value,
                    (fields.first().copied().unwrap_or(0) as i64).to_string(),
                    &[],
                ),
                kind::BIGINT => (NodeSort::Value, "big Integer".into(), &[]),
                kind::DOUBLE => (
                    NodeSort::Value,
                    show_double(f64::from_bits(fields.first().copied().unwrap_or(0))),
                    &[],
                ),
                kind::CHAR => (
                    NodeSort::Value,
                    char::from_u32(fields.first().copied().unwrap_or(0) as u32)
                        .map_or("?".into(), |c| format!("{c:?}")),
                    &[],
                ),
                kind::THUNK => (NodeSort::Thunk, code_of(sc(info)), fields),
                kind::PAP => (
                    NodeSort::Function,
                    format!("{} (partial)", unqualified(sc(info))),
                    fields,
                ),
                kind::MUTVAR if info == 0 => (NodeSort::Value, "IORef".into(), fields),
                kind::MUTVAR => (NodeSort::Value, "MVar".into(), fields),
                kind::STR => (NodeSort::Thunk, "string literal".into(), &[]),
                kind::RAISE => (
                    NodeSort::Thunk,
                    format!("error: {}", saved.raised(info)),
                    &[],
                ),
                _ => (NodeSort::Thunk, "?".into(), &[]),
            },
        };
        g.nodes.push(GraphNode { id, sort, label });
        for (i, f) in fields.iter().enumerate().rev() {
            // A thunk's dummy field (no free variables) is not drawn.
            if sort == NodeSort::Thunk && fields.len() == 1 && is_unit(program, saved, *f) {
                continue;
            }
            edges.push((w, *f, i.to_string()));
            todo.push(*f);
        }
    }
    for (from, to, label) in edges.into_iter().rev() {
        if let (Some(&a), Some(&b)) = (ids.get(&from), ids.get(&to)) {
            g.edges.push((a, b, label));
        }
    }
    g
}

fn is_unit(program: &Program, saved: &Saved, w: u64) -> bool {
    matches!(saved.node(w), SavedNode::Static(kind::CON, v)
        if program.cons.get(v as usize).is_some_and(|c| c.name == "()"))
}

/// A thunk's label: the definition its code comes from (`ys$t3`, the
/// compiler's third thunk in `ys`, is "in ys").
fn code_of(sc: &str) -> String {
    let name = unqualified(sc);
    match name.split_once('$') {
        Some((def, _)) if !def.is_empty() => format!("in {def}"),
        _ => name,
    }
}

/// `Module.name` as `name` (a local function's `$` suffix kept).
fn unqualified(name: &str) -> String {
    crate::code::split_qual(name).1.to_string()
}
