//! The expression a graph stands for, as Haskell-like text.
//!
//! * A node reached more than once (shared, or on a cycle) is printed once,
//!   as a `let` binding named after the variable it was bound to
//!   (`let y = 1 + 2 in y * y`, `let xs = 1 : xs in xs`; `t1`, `t2` when
//!   it had none); values that print as a word (numbers, characters,
//!   constructors without fields, functions, globals) are repeated
//!   instead.
//! * Literals print as Haskell literals (`-3` in parentheses where an
//!   argument goes, Doubles and Chars as `show` prints them). A list whose
//!   spine is evaluated prints as `[1,2,3]` (and as `"abc"` when its
//!   characters are evaluated); a partly evaluated one as `1 : 2 : rest`,
//!   where `rest` is the expression of the unevaluated tail
//!   (`1 : 2 : take 1 xs`), or `"ab" ++ rest` when the evaluated part is
//!   characters.
//! * A function is shown by name: a global (`map`), a method selected from
//!   a dictionary (`+`, `show`), a primitive as the operation it is
//!   (`primIntAdd` is `+`), a local function qualified by the function it
//!   is local to (`sum.go`, `map.go`; not those of the expression itself
//!   nor an instance's methods). A lambda is `\x -> body`, a section
//!   `(* 2)` or `(2 -)`, an arithmetic sequence `[1 .. n]`; a `case`
//!   waiting for its scrutinee is `case e of { alternatives }`, the
//!   alternatives as the (desugared) source has them.
//! * Dictionaries are left out (arguments that are dictionaries, and the
//!   dictionary parameters of lambdas).
//! * In the whole expression (`Stepper::show`), a shared node under
//!   evaluation (a black hole) has its binding marked `{-blackhole-}`, and
//!   an expression that is a global function shows its definition.
//!
//! Nothing recurses per node: a first walk counts references, a second
//! prints from a stack of tasks. With a limit, both stop after about that
//! many characters (the text then ends in `...`).

use super::machine::Addr;
use super::machine::{Machine, Node, DICT, GLOBAL, NONE, ON_STACK};
use super::template::*;
use std::collections::{HashMap, HashSet};

/// Renders the graph of `start` (its own content, even when it is a named
/// global); `whole`: it is the whole expression (see the module doc).
pub fn render(p: &Program, m: &Machine, start: Addr, limit: Option<usize>, whole: bool) -> String {
    if start == NONE {
        return String::new();
    }
    let mut s = Shower {
        p,
        m,
        limit: limit.unwrap_or(usize::MAX),
        start: m.resolve_ind(start),
        refs: HashMap::new(),
        names: HashMap::new(),
        used: HashSet::new(),
        pending: Vec::new(),
        ctxs: Vec::new(),
        whole,
        truncated: false,
        counting: true,
        out: String::new(),
    };
    s.count();
    s.print()
}

#[derive(Clone, Copy)]
struct Ctx<'a> {
    frame: &'a FrameInfo,
    env: Option<&'a [Addr]>,
    parent: usize,
}

const NO_CTX: usize = usize::MAX;

enum Var {
    Node(Addr),
    /// A variable bound in the template: its name, and whether it holds a
    /// dictionary.
    Name(NameId, bool),
}

enum Task<'a> {
    Text(&'a str),
    Own(String),
    /// A node: its name if it is a shared one.
    Node(Addr, u8),
    /// A node's content.
    Content(Addr, u8),
    Tmpl(&'a T, usize, u8),
}

/// How a node is shown.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// Printed as one word, never named.
    Atom,
    /// A dictionary: left out.
    Hidden,
    Compound,
}

struct Shower<'a> {
    p: &'a Program,
    m: &'a Machine,
    limit: usize,
    start: Addr,
    refs: HashMap<Addr, u32>,
    names: HashMap<Addr, String>,
    used: HashSet<String>,
    pending: Vec<Addr>,
    ctxs: Vec<Ctx<'a>>,
    whole: bool,
    truncated: bool,
    /// In the first walk (collecting the names templates use).
    counting: bool,
    out: String,
}

impl Machine {
    /// Follows plain indirections only.
    pub fn resolve_ind(&self, mut a: Addr) -> Addr {
        for _ in 0..1_000_000 {
            match self.node(a) {
                Node::Ind(t) => a = *t,
                _ => break,
            }
        }
        a
    }
}

impl<'a> Shower<'a> {
    fn node(&self, a: Addr) -> &'a Node {
        self.m.node(a)
    }

    /// The node shown for `a`: through indirections, and through a
    /// method's name once the method is a data value.
    fn disp(&self, mut a: Addr) -> Addr {
        for _ in 0..1_000_000 {
            match self.node(a) {
                Node::Ind(t) => a = *t,
                Node::Method(_, t) => {
                    let r = self.m.resolve(*t);
                    if is_value(self.node(r)) {
                        a = *t;
                    } else {
                        return a;
                    }
                }
                _ => return a,
            }
        }
        a
    }

    fn hidden(&self, a: Addr) -> bool {
        let c = &self.m.heap[a as usize];
        c.flags & DICT != 0 || matches!(&c.node, Node::Data(k, _) if self.p.cons[*k as usize].class)
    }

    fn kind(&self, a: Addr) -> Shape {
        if self.hidden(a) {
            return Shape::Hidden;
        }
        let c = &self.m.heap[a as usize];
        if a != self.start && c.flags & GLOBAL != 0 {
            return Shape::Atom;
        }
        match &c.node {
            Node::App(..) | Node::Case(..) => Shape::Compound,
            Node::Data(_, fs) if !fs.is_empty() => Shape::Compound,
            Node::Closure(code, _) if self.p.codes[*code as usize].name.is_none() => {
                Shape::Compound
            }
            _ => Shape::Atom,
        }
    }

    fn named(&self, a: Addr) -> bool {
        self.kind(a) == Shape::Compound && self.refs.get(&a).is_some_and(|n| *n > 1)
    }

    // ------------------------------------------------------------ templates

    fn ctx(&mut self, frame: &'a FrameInfo, env: Option<&'a [Addr]>, parent: usize) -> usize {
        if self.counting {
            // The template's own variables: no shared node takes their names.
            for (s, n) in frame.names.iter().enumerate() {
                if frame.capture_of[s].is_none() {
                    self.used.insert(self.p.name(*n).to_string());
                }
            }
        }
        self.ctxs.push(Ctx { frame, env, parent });
        self.ctxs.len() - 1
    }

    fn var(&self, mut ctx: usize, mut s: Slot) -> Var {
        loop {
            let Some(c) = self.ctxs.get(ctx) else {
                return Var::Name(0, false);
            };
            let slot = s as usize;
            match c.frame.capture_of.get(slot).copied().flatten() {
                Some(k) => match c.env {
                    Some(env) => return Var::Node(env.get(k as usize).copied().unwrap_or(NONE)),
                    None => {
                        s = c.frame.captures[k as usize].0;
                        ctx = c.parent;
                    }
                },
                None => {
                    return Var::Name(
                        c.frame.names.get(slot).copied().unwrap_or(0),
                        c.frame.dict.get(slot).copied().unwrap_or(false),
                    )
                }
            }
        }
    }

    /// Whether a template argument is a dictionary.
    fn t_hidden(&self, t: &T, ctx: usize) -> bool {
        match t {
            T::App(_, _, d) => *d,
            T::Global(g) => self.p.globals[*g as usize].dict,
            T::ConApp(c, _) | T::Con(c) => self.p.cons[*c as usize].class,
            T::Var(s) => match self.var(ctx, *s) {
                Var::Node(a) => a != NONE && self.hidden(self.disp(a)),
                Var::Name(_, d) => d,
            },
            _ => false,
        }
    }

    // ------------------------------------------------------------ counting

    /// Counts the references to each compound node reachable as printed.
    fn count(&mut self) {
        let mut todo: Vec<Addr> = vec![self.start];
        let mut seen = 0usize;
        let mut tmpl: Vec<(&'a T, usize)> = Vec::new();
        while let Some(a) = todo.pop() {
            if a == NONE {
                continue;
            }
            let n = {
                let n = self.refs.entry(a).or_insert(0);
                *n += 1;
                *n
            };
            if n > 1 || self.kind(a) != Shape::Compound {
                continue;
            }
            seen += 1;
            if seen > self.limit {
                break;
            }
            let mut kids: Vec<Addr> = Vec::new();
            match self.node(a) {
                Node::App(f, x) => {
                    kids.push(self.disp(*f));
                    let x = self.disp(*x);
                    if !self.hidden(x) {
                        kids.push(x);
                    }
                }
                Node::Data(_, fs) => {
                    for f in fs.iter() {
                        let f = self.disp(*f);
                        if !self.hidden(f) {
                            kids.push(f);
                        }
                    }
                }
                Node::Closure(c, env) => {
                    let code = &self.p.codes[*c as usize];
                    let ctx = self.ctx(&code.frame, Some(env), NO_CTX);
                    tmpl.push((&code.body, ctx));
                }
                Node::Case(c, s, env) => {
                    kids.push(self.disp(*s));
                    let info = &self.p.cases[*c as usize];
                    let ctx = self.ctx(&info.frame, Some(env), NO_CTX);
                    for alt in &info.alts {
                        tmpl.push((&alt.body, ctx));
                    }
                    if let Some((d, _)) = &info.default {
                        tmpl.push((d, ctx));
                    }
                    tmpl.reverse();
                }
                _ => {}
            }
            // The nodes the templates reach, in printing order.
            while let Some((t, ctx)) = tmpl.pop() {
                self.template_refs(t, ctx, &mut kids, &mut tmpl);
            }
            todo.extend(kids.into_iter().rev());
        }
        self.ctxs.clear();
        self.counting = false;
    }

    /// One template node's references; sub-templates go to `more` (to be
    /// taken in order: pushed reversed).
    fn template_refs(
        &mut self,
        t: &'a T,
        ctx: usize,
        kids: &mut Vec<Addr>,
        more: &mut Vec<(&'a T, usize)>,
    ) {
        let mut sub: Vec<(&'a T, usize)> = Vec::new();
        match t {
            T::Var(s) => {
                if let Var::Node(a) = self.var(ctx, *s) {
                    if a != NONE {
                        let a = self.disp(a);
                        if !self.hidden(a) {
                            kids.push(a);
                        }
                    }
                }
            }
            T::ConApp(_, args) => sub.extend(args.iter().map(|x| (x, ctx))),
            T::App(f, args, false) => {
                sub.push((f, ctx));
                for x in args {
                    if !self.t_hidden(x, ctx) {
                        sub.push((x, ctx));
                    }
                }
            }
            T::Lam(c) => {
                let code = &self.p.codes[*c as usize];
                let inner = self.ctx(&code.frame, None, ctx);
                sub.push((&code.body, inner));
            }
            T::Let(binds, body, _) => {
                sub.extend(binds.iter().map(|(_, x)| (x, ctx)));
                sub.push((body, ctx));
            }
            T::Case(c) => {
                let info = &self.p.cases[*c as usize];
                sub.push((&info.scrut, ctx));
                let inner = self.ctx(&info.frame, None, ctx);
                sub.extend(info.alts.iter().map(|a| (&a.body, inner)));
                if let Some((d, _)) = &info.default {
                    sub.push((d, inner));
                }
            }
            _ => {}
        }
        more.extend(sub.into_iter().rev());
    }

    // ------------------------------------------------------------ printing

    fn name_of(&mut self, a: Addr) -> String {
        if let Some(n) = self.names.get(&a) {
            return n.clone();
        }
        let hint = self.m.heap[a as usize].hint;
        let base = if hint != 0 {
            self.p.name(hint).to_string()
        } else {
            "t".to_string()
        };
        let mut k = 1;
        let mut name = if base == "t" {
            "t1".to_string()
        } else {
            base.clone()
        };
        while self.used.contains(&name) {
            k += 1;
            name = format!("{base}{k}");
        }
        self.used.insert(name.clone());
        self.names.insert(a, name.clone());
        self.pending.push(a);
        name
    }

    fn full(&self) -> bool {
        self.out.len() > self.limit
    }

    fn print(&mut self) -> String {
        let start = self.start;
        self.run(vec![Task::Node(start, 0)]);
        let body = std::mem::take(&mut self.out);
        let mut binds: Vec<String> = Vec::new();
        let mut i = 0;
        while i < self.pending.len() && !self.truncated && body.len() + binds.len() < self.limit {
            let a = self.pending[i];
            i += 1;
            let name = self.names[&a].clone();
            let mark = self.whole
                && self.m.heap[a as usize].flags & ON_STACK != 0
                && !self.m.is_pap(self.p, a);
            let mut tasks = vec![Task::Own(format!("{name} = "))];
            if mark {
                tasks.push(Task::Text("{-blackhole-} "));
            }
            tasks.push(Task::Content(a, 0));
            self.out.clear();
            self.run(tasks);
            binds.push(std::mem::take(&mut self.out));
        }
        let mut text = if binds.is_empty() {
            body
        } else {
            format!("let {} in {}", binds.join("; "), body)
        };
        if self.truncated || text.len() > self.limit {
            let mut cut = self.limit.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("...");
        }
        text
    }

    fn run(&mut self, first: Vec<Task<'a>>) {
        let mut stack: Vec<Task<'a>> = first.into_iter().rev().collect();
        while let Some(t) = stack.pop() {
            if self.full() {
                self.truncated = true;
                return;
            }
            let mut parts: Vec<Task<'a>> = Vec::new();
            match t {
                Task::Text(s) => self.out.push_str(s),
                Task::Own(s) => self.out.push_str(&s),
                Task::Node(a, prec) => {
                    if a == NONE {
                        self.out.push('?');
                        continue;
                    }
                    let a = self.disp(a);
                    if self.named(a) {
                        let n = self.name_of(a);
                        self.out.push_str(&n);
                    } else if self.kind(a) == Shape::Compound && !self.refs.contains_key(&a) {
                        // Beyond what the first walk looked at.
                        self.truncated = true;
                        return;
                    } else {
                        self.content(a, prec, &mut parts);
                    }
                }
                Task::Content(a, prec) => {
                    let a = self.disp(a);
                    self.content(a, prec, &mut parts);
                }
                Task::Tmpl(t, ctx, prec) => self.template(t, ctx, prec, &mut parts),
            }
            stack.extend(parts.into_iter().rev());
        }
    }

    /// The word an atom prints as (operators in parentheses), and whether
    /// it is an operator.
    fn atom_name(&self, a: Addr) -> Option<(String, bool)> {
        let c = &self.m.heap[a as usize];
        let evaluated_global = a != self.start
            && c.flags & GLOBAL != 0
            && c.hint != 0
            && !matches!(c.node, Node::Fun(_) | Node::Caf(_) | Node::Method(..));
        let name: String = if evaluated_global {
            self.p.name(c.hint).to_string()
        } else {
            match &c.node {
                Node::Fun(g) | Node::Caf(g) | Node::Method(g, _) => self.global_name(*g),
                Node::ConFun(k) => self.p.cons[*k as usize].display.to_string(),
                Node::Data(k, fs) if fs.is_empty() => self.p.cons[*k as usize].display.to_string(),
                Node::Closure(code, _) => match self.p.codes[*code as usize].name {
                    Some(n) => self.p.name(n).to_string(),
                    None => return None,
                },
                _ => return None,
            }
        };
        let op = is_op(&name);
        Some((name, op))
    }

    fn global_name(&self, g: GlobalId) -> String {
        let info = &self.p.globals[g as usize];
        match &info.kind {
            GKind::Prim(pi) => prim_display(&pi.name).to_string(),
            _ => info.display.to_string(),
        }
    }

    fn content(&mut self, a: Addr, prec: u8, parts: &mut Vec<Task<'a>>) {
        if self.hidden(a) {
            parts.push(Task::Text("<dict>"));
            return;
        }
        // A function asked for by itself (the whole expression is one):
        // its definition.
        if let (true, Node::Fun(g)) = (a == self.start && self.whole, self.node(a)) {
            if let GKind::Code(c) = self.p.globals[*g as usize].kind {
                let code = &self.p.codes[c as usize];
                let ctx = self.ctx(&code.frame, Some(&[]), NO_CTX);
                return self.lambda(code, ctx, prec, parts);
            }
        }
        if let Some((name, op)) = self.atom_name(a) {
            parts.push(Task::Own(if op { format!("({name})") } else { name }));
            return;
        }
        let node = self.node(a);
        match node {
            Node::Int(n) => parts.push(Task::Own(neg_paren(n.to_string(), *n < 0, prec))),
            Node::Integer(z) => {
                let s = match &**z {
                    gph_code::values::Z::S(i) => i.to_string(),
                    gph_code::values::Z::B(b) => b.to_string(),
                };
                let neg = s.starts_with('-');
                parts.push(Task::Own(neg_paren(s, neg, prec)));
            }
            Node::Double(d) => {
                let s = gph_code::values::show_double(*d);
                let neg = s.starts_with('-');
                parts.push(Task::Own(neg_paren(s, neg, prec)));
            }
            Node::Char(c) => parts.push(Task::Own(show_char(*c))),
            Node::Str(s, off) => {
                let rest = s.get(*off as usize..).unwrap_or("");
                parts.push(Task::Own(show_string(rest.chars().map(u32::from))))
            }
            Node::App(..) => self.app(a, prec, parts),
            Node::Data(k, fs) => self.data(a, *k, fs, prec, parts),
            Node::Closure(c, env) => {
                let code = &self.p.codes[*c as usize];
                let ctx = self.ctx(&code.frame, Some(env), NO_CTX);
                self.lambda(code, ctx, prec, parts);
            }
            Node::Case(c, s, env) => {
                let info = &self.p.cases[*c as usize];
                let ctx = self.ctx(&info.frame, Some(env), NO_CTX);
                if prec > 0 {
                    parts.push(Task::Text("("));
                }
                parts.push(Task::Text("case "));
                parts.push(Task::Node(*s, 0));
                parts.push(Task::Text(" of { "));
                self.alts(info, ctx, parts);
                parts.push(Task::Text(" }"));
                if prec > 0 {
                    parts.push(Task::Text(")"));
                }
            }
            Node::Bottom(m) => parts.push(Task::Own(format!(
                "error {}",
                show_string(m.chars().map(u32::from))
            ))),
            Node::Hole => parts.push(Task::Text("<hole>")),
            Node::Free => parts.push(Task::Text("<freed>")),
            Node::Ind(t) => parts.push(Task::Node(*t, prec)),
            Node::Fun(_) | Node::Caf(_) | Node::ConFun(_) | Node::Method(..) => {
                parts.push(Task::Text("?"))
            }
        }
    }

    fn app(&mut self, a: Addr, prec: u8, parts: &mut Vec<Task<'a>>) {
        let mut args: Vec<Addr> = Vec::new();
        let mut x = a;
        while let Node::App(f, arg) = self.node(x) {
            args.push(*arg);
            let f = self.disp(*f);
            x = f;
            if self.named(f) || !matches!(self.node(f), Node::App(..)) || self.hidden(f) {
                break;
            }
        }
        args.reverse();
        let visible: Vec<Addr> = args
            .into_iter()
            .filter(|a| !self.hidden(self.disp(*a)))
            .collect();
        let head = x;
        let name = if self.named(head) {
            None
        } else {
            self.atom_name(head).map(|(n, _)| n)
        };
        let items: Vec<Item<'a>> = visible.iter().map(|a| Item::Node(*a)).collect();
        self.apply(Item::Node(head), name, items, prec, parts);
    }

    fn data(&mut self, a: Addr, k: ConId, fs: &'a [Addr], prec: u8, parts: &mut Vec<Task<'a>>) {
        let p = self.p;
        if k == p.cons_con && fs.len() == 2 {
            return self.list(a, prec, parts);
        }
        let info = &p.cons[k as usize];
        if p.tuple_size(k).is_some() {
            parts.push(Task::Text("("));
            for (i, f) in fs.iter().enumerate() {
                if i > 0 {
                    parts.push(Task::Text(", "));
                }
                parts.push(Task::Node(*f, 0));
            }
            parts.push(Task::Text(")"));
            return;
        }
        // An existential constructor's dictionaries are not shown.
        let items: Vec<Item<'a>> = fs
            .iter()
            .filter(|f| !self.hidden(**f))
            .map(|f| Item::Node(*f))
            .collect();
        let name = Some(info.display.to_string());
        self.apply(Item::Own(paren_op(&info.display)), name, items, prec, parts);
    }

    /// A cons cell: `[1, 2, 3]`, `"abc"`, or `1 : 2 : rest`.
    fn list(&mut self, a: Addr, prec: u8, parts: &mut Vec<Task<'a>>) {
        let p = self.p;
        let mut heads: Vec<Addr> = Vec::new();
        let mut x = a;
        let end;
        let mut capped = false;
        loop {
            match self.node(x) {
                Node::Data(k, fs) if *k == p.cons_con && fs.len() == 2 => {
                    heads.push(fs[0]);
                    let t = self.disp(fs[1]);
                    if self.named(t) || heads.len() > self.limit {
                        capped = heads.len() > self.limit;
                        end = t;
                        break;
                    }
                    x = t;
                }
                _ => {
                    end = x;
                    break;
                }
            }
        }
        let end_node = if end == NONE {
            None
        } else {
            Some(self.node(end))
        };
        let proper = !capped
            && !self.named(end)
            && matches!(end_node, Some(Node::Data(k, _)) if *k == p.nil);
        let str_end = !capped && !self.named(end) && matches!(end_node, Some(Node::Str(..)));
        if proper || str_end {
            let chars: Option<Vec<u32>> = heads
                .iter()
                .map(|h| match self.node(self.disp(*h)) {
                    Node::Char(c) => Some(*c),
                    _ => None,
                })
                .collect();
            if let Some(mut cs) = chars {
                if let Some(Node::Str(s, off)) = end_node {
                    cs.extend(s.get(*off as usize..).unwrap_or("").chars().map(u32::from));
                }
                parts.push(Task::Own(show_string(cs.into_iter())));
                return;
            }
        }
        if proper {
            parts.push(Task::Text("["));
            for (i, h) in heads.iter().enumerate() {
                if i > 0 {
                    parts.push(Task::Text(","));
                }
                parts.push(Task::Node(*h, 0));
            }
            parts.push(Task::Text("]"));
            return;
        }
        if prec > 5 {
            parts.push(Task::Text("("));
        }
        // Evaluated characters before an unevaluated tail: "abc" ++ rest.
        let chars: Option<Vec<u32>> = heads
            .iter()
            .map(|h| match self.node(self.disp(*h)) {
                Node::Char(c) => Some(*c),
                _ => None,
            })
            .collect();
        if let (Some(cs), false) = (chars, capped) {
            parts.push(Task::Own(show_string(cs.into_iter())));
            // The rest in parentheses when it is an operator application:
            // `"ab" ++ (xs ++ ys)` tells the evaluated part from the calls.
            parts.push(Task::Text(" ++ "));
            parts.push(Task::Node(end, 6));
            if prec > 5 {
                parts.push(Task::Text(")"));
            }
            return;
        }
        for h in &heads {
            parts.push(Task::Node(*h, 6));
            parts.push(Task::Text(" : "));
        }
        if capped {
            parts.push(Task::Text("..."));
        } else {
            parts.push(Task::Node(end, 5));
        }
        if prec > 5 {
            parts.push(Task::Text(")"));
        }
    }

    /// `f a b`, or `a op b` for an operator with two arguments.
    /// `f a b`, `a op b` for an operator with two arguments, `(a op)`
    /// with one, `[a .. b]` for the arithmetic sequences; `name` is the
    /// head's name.
    fn apply(
        &mut self,
        head: Item<'a>,
        name: Option<String>,
        args: Vec<Item<'a>>,
        prec: u8,
        parts: &mut Vec<Task<'a>>,
    ) {
        let seq: Option<&[&'static str]> = match (name.as_deref(), args.len()) {
            (Some("enumFrom"), 1) => Some(&["[", " ..]"]),
            (Some("enumFromThen"), 2) => Some(&["[", ", ", " ..]"]),
            (Some("enumFromTo"), 2) => Some(&["[", " .. ", "]"]),
            (Some("enumFromThenTo"), 3) => Some(&["[", ", ", " .. ", "]"]),
            _ => None,
        };
        if let Some(texts) = seq {
            for (t, x) in texts.iter().zip(args) {
                parts.push(Task::Text(t));
                parts.push(x.task(0));
            }
            if let Some(last) = texts.last() {
                parts.push(Task::Text(last));
            }
            return;
        }
        let op = name.filter(|n| is_op(n));
        if let (Some(op), 3..) = (&op, args.len()) {
            // (f . g) x
            if prec > 10 {
                parts.push(Task::Text("("));
            }
            let mut args = args.into_iter();
            let (l, r) = (args.next(), args.next());
            let two: Vec<Item<'a>> = l.into_iter().chain(r).collect();
            self.apply(head, Some(op.clone()), two, 11, parts);
            for x in args {
                parts.push(Task::Text(" "));
                parts.push(x.task(11));
            }
            if prec > 10 {
                parts.push(Task::Text(")"));
            }
            return;
        }
        if let (Some(op), 2) = (&op, args.len()) {
            let (fp, assoc) = fixity(op);
            let (lp, rp) = match assoc {
                Assoc::Left => (fp, fp + 1),
                Assoc::Right => (fp + 1, fp),
                Assoc::None => (fp + 1, fp + 1),
            };
            if prec > fp {
                parts.push(Task::Text("("));
            }
            let mut it = args.into_iter();
            let (l, r) = (it.next(), it.next());
            if let Some(l) = l {
                parts.push(l.task(lp));
            }
            let op_text = if op.starts_with(|c: char| c.is_alphabetic()) {
                format!(" `{op}` ")
            } else {
                format!(" {op} ")
            };
            parts.push(Task::Own(op_text));
            if let Some(r) = r {
                parts.push(r.task(rp));
            }
            if prec > fp {
                parts.push(Task::Text(")"));
            }
            return;
        }
        if let (Some(op), 1) = (&op, args.len()) {
            // A left section: (e op).
            let (fp, _) = fixity(op);
            let op_text = if op.starts_with(|c: char| c.is_alphabetic()) {
                format!(" `{op}`)")
            } else {
                format!(" {op})")
            };
            parts.push(Task::Text("("));
            if let Some(x) = args.into_iter().next() {
                parts.push(x.task(fp + 1));
            }
            parts.push(Task::Own(op_text));
            return;
        }
        if args.is_empty() {
            parts.push(head.task(prec));
            return;
        }
        if prec > 10 {
            parts.push(Task::Text("("));
        }
        parts.push(head.task(10));
        for x in args {
            parts.push(Task::Text(" "));
            parts.push(x.task(11));
        }
        if prec > 10 {
            parts.push(Task::Text(")"));
        }
    }

    fn lambda(&mut self, code: &'a Code, ctx: usize, prec: u8, parts: &mut Vec<Task<'a>>) {
        let params: Vec<&str> = code
            .params
            .iter()
            .filter(|s| !code.frame.dict[**s as usize])
            .map(|s| self.p.name(code.frame.names[*s as usize]))
            .collect();
        if params.is_empty() {
            parts.push(Task::Tmpl(&code.body, ctx, prec));
            return;
        }
        // A right section: (op e).
        if let (true, T::App(f, args, false)) = (code.section, &code.body) {
            let visible: Vec<&'a T> = args.iter().filter(|a| !self.t_hidden(a, ctx)).collect();
            let op = match &**f {
                T::Global(g) => Some(self.global_name(*g)),
                T::Con(c) => Some(self.p.cons[*c as usize].display.to_string()),
                _ => None,
            };
            if let (Some(op), [T::Var(v), rhs]) = (op, &visible[..]) {
                if is_op(&op) && code.params.first() == Some(v) {
                    parts.push(Task::Own(format!("({op} ")));
                    parts.push(Task::Tmpl(rhs, ctx, 11));
                    parts.push(Task::Text(")"));
                    return;
                }
            }
        }
        if prec > 0 {
            parts.push(Task::Text("("));
        }
        parts.push(Task::Own(format!("\\{} -> ", params.join(" "))));
        parts.push(Task::Tmpl(&code.body, ctx, 0));
        if prec > 0 {
            parts.push(Task::Text(")"));
        }
    }

    fn alts(&mut self, info: &'a CaseInfo, ctx: usize, parts: &mut Vec<Task<'a>>) {
        let names = |s: &Slot| self.p.name(info.frame.names[*s as usize]);
        let binder = names(&info.binder);
        let mut first = true;
        for alt in &info.alts {
            if !first {
                parts.push(Task::Text("; "));
            }
            first = false;
            // An existential constructor's dictionaries are bound unseen.
            let vars: Vec<&str> = alt
                .vars
                .iter()
                .filter(|s| !info.frame.dict.get(**s as usize).copied().unwrap_or(false))
                .map(names)
                .collect();
            let pat = match &alt.key {
                AltKey::Lit(l) => lit_text(l),
                AltKey::Con(k) => {
                    let c = &self.p.cons[*k as usize];
                    if *k == self.p.cons_con && vars.len() == 2 {
                        format!("{} : {}", vars[0], vars[1])
                    } else if self.p.tuple_size(*k).is_some() {
                        format!("({})", vars.join(", "))
                    } else if vars.is_empty() {
                        c.display.to_string()
                    } else if is_op(&c.display) && vars.len() == 2 {
                        format!("{} {} {}", vars[0], c.display, vars[1])
                    } else {
                        format!("{} {}", c.display, vars.join(" "))
                    }
                }
            };
            let pat = if alt.binder_used {
                if pat.contains(' ') {
                    format!("{binder}@({pat})")
                } else {
                    format!("{binder}@{pat}")
                }
            } else {
                pat
            };
            parts.push(Task::Own(format!("{pat} -> ")));
            parts.push(Task::Tmpl(&alt.body, ctx, 0));
        }
        if let Some((d, used)) = &info.default {
            if !first {
                parts.push(Task::Text("; "));
            }
            parts.push(Task::Own(format!(
                "{} -> ",
                if *used { binder } else { "_" }
            )));
            parts.push(Task::Tmpl(d, ctx, 0));
        }
    }

    fn template(&mut self, t: &'a T, ctx: usize, prec: u8, parts: &mut Vec<Task<'a>>) {
        let p = self.p;
        match t {
            T::Var(s) => match self.var(ctx, *s) {
                Var::Node(a) => parts.push(Task::Node(a, prec)),
                Var::Name(n, _) => {
                    let name = p.name(n);
                    parts.push(Task::Own(if is_op(name) {
                        format!("({name})")
                    } else {
                        name.to_string()
                    }))
                }
            },
            T::Global(g) => {
                let name = self.global_name(*g);
                parts.push(Task::Own(if is_op(&name) {
                    format!("({name})")
                } else {
                    name
                }));
            }
            T::Lit(l) => {
                let s = lit_text(l);
                let neg = s.starts_with('-');
                parts.push(Task::Own(neg_paren(s, neg, prec)));
            }
            T::Str(s) => parts.push(Task::Own(show_string(s.chars().map(u32::from)))),
            T::Con(c) => {
                let d = &p.cons[*c as usize].display;
                parts.push(Task::Own(if is_op(d) {
                    format!("({d})")
                } else {
                    d.to_string()
                }));
            }
            T::ConApp(c, args) => {
                if p.cons[*c as usize].class {
                    parts.push(Task::Text("<dict>"));
                    return;
                }
                if *c == p.cons_con {
                    // [a, b, c] when the spine is all there.
                    let mut elems: Vec<&'a T> = Vec::new();
                    let mut x: &'a T = t;
                    loop {
                        match x {
                            T::ConApp(k, a) if *k == p.cons_con && a.len() == 2 => {
                                elems.push(&a[0]);
                                x = &a[1];
                            }
                            _ => break,
                        }
                    }
                    if matches!(x, T::Con(k) if *k == p.nil) {
                        parts.push(Task::Text("["));
                        for (i, e) in elems.iter().enumerate() {
                            if i > 0 {
                                parts.push(Task::Text(","));
                            }
                            parts.push(Task::Tmpl(e, ctx, 0));
                        }
                        parts.push(Task::Text("]"));
                        return;
                    }
                }
                if p.tuple_size(*c).is_some() {
                    parts.push(Task::Text("("));
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            parts.push(Task::Text(", "));
                        }
                        parts.push(Task::Tmpl(a, ctx, 0));
                    }
                    parts.push(Task::Text(")"));
                    return;
                }
                let d = &p.cons[*c as usize].display;
                let op = Some(d.to_string());
                let items = args
                    .iter()
                    .filter(|a| !self.t_hidden(a, ctx))
                    .map(|a| Item::Tmpl(a, ctx))
                    .collect();
                self.apply(Item::Own(paren_op(d)), op, items, prec, parts);
            }
            T::App(f, args, dict) => {
                if *dict {
                    parts.push(Task::Text("<dict>"));
                    return;
                }
                let visible: Vec<Item<'a>> = args
                    .iter()
                    .filter(|a| !self.t_hidden(a, ctx))
                    .map(|a| Item::Tmpl(a, ctx))
                    .collect();
                let op = match &**f {
                    T::Global(g) => Some(self.global_name(*g)),
                    T::Con(c) => Some(p.cons[*c as usize].display.to_string()),
                    T::Var(s) => match self.var(ctx, *s) {
                        Var::Node(a) if a != NONE => {
                            let a = self.disp(a);
                            self.atom_name(a).map(|(n, _)| n)
                        }
                        Var::Name(n, _) => Some(p.name(n).to_string()),
                        _ => None,
                    },
                    _ => None,
                };
                self.apply(Item::Tmpl(f, ctx), op, visible, prec, parts);
            }
            T::Lam(c) => {
                let code = &p.codes[*c as usize];
                let inner = self.ctx(&code.frame, None, ctx);
                self.lambda(code, inner, prec, parts);
            }
            T::Let(binds, body, _) => {
                if prec > 0 {
                    parts.push(Task::Text("("));
                }
                let frame = self.ctxs.get(ctx).map(|c| c.frame);
                parts.push(Task::Text("let "));
                for (i, (s, rhs)) in binds.iter().enumerate() {
                    if i > 0 {
                        parts.push(Task::Text("; "));
                    }
                    let name = frame.map_or("_", |f| p.name(f.names[*s as usize]));
                    parts.push(Task::Own(format!("{name} = ")));
                    parts.push(Task::Tmpl(rhs, ctx, 0));
                }
                parts.push(Task::Text(" in "));
                parts.push(Task::Tmpl(body, ctx, 0));
                if prec > 0 {
                    parts.push(Task::Text(")"));
                }
            }
            T::Case(c) => {
                let info = &p.cases[*c as usize];
                let inner = self.ctx(&info.frame, None, ctx);
                if prec > 0 {
                    parts.push(Task::Text("("));
                }
                parts.push(Task::Text("case "));
                parts.push(Task::Tmpl(&info.scrut, ctx, 0));
                parts.push(Task::Text(" of { "));
                self.alts(info, inner, parts);
                parts.push(Task::Text(" }"));
                if prec > 0 {
                    parts.push(Task::Text(")"));
                }
            }
        }
    }
}

/// The head or an argument of an application: a node or a template.
enum Item<'a> {
    Node(Addr),
    Tmpl(&'a T, usize),
    Own(String),
}

impl<'a> Item<'a> {
    fn task(self, prec: u8) -> Task<'a> {
        match self {
            Item::Node(a) => Task::Node(a, prec),
            Item::Tmpl(t, ctx) => Task::Tmpl(t, ctx, prec),
            Item::Own(s) => Task::Own(s),
        }
    }
}

fn is_value(n: &Node) -> bool {
    matches!(
        n,
        Node::Int(_)
            | Node::Integer(_)
            | Node::Double(_)
            | Node::Char(_)
            | Node::Str(..)
            | Node::Data(..)
    )
}

fn paren_op(name: &str) -> String {
    if is_op(name) {
        format!("({name})")
    } else {
        name.to_string()
    }
}

fn neg_paren(s: String, neg: bool, prec: u8) -> String {
    if neg && prec > 6 {
        format!("({s})")
    } else {
        s
    }
}

/// Whether a name is an operator (printed infix, or in parentheses).
pub fn is_op(name: &str) -> bool {
    name.starts_with(|c: char| !(c.is_alphanumeric() || "_([\"'".contains(c)))
}

#[derive(Clone, Copy)]
enum Assoc {
    Left,
    Right,
    None,
}

/// The Prelude's fixities (others: infixl 9).
fn fixity(op: &str) -> (u8, Assoc) {
    use Assoc::*;
    match op {
        "." => (9, Right),
        "!!" => (9, Left),
        "^" | "^^" | "**" => (8, Right),
        "*" | "/" | ":%" | "%" | ".&." => (7, Left),
        "+" | "-" => (6, Left),
        "<>" => (6, Right),
        ":" | "++" => (5, Right),
        ".|." => (5, Left),
        "==" | "/=" | "<" | "<=" | ">" | ">=" => (4, None),
        "<$>" | "<$" | "<*>" | "*>" | "<*" => (4, Left),
        "&&" => (3, Right),
        "||" => (2, Right),
        ">>" | ">>=" => (1, Left),
        "=<<" => (1, Right),
        "$" | "$!" => (0, Right),
        _ => (9, Left),
    }
}

/// How a primitive is shown: as the operation it implements.
pub fn prim_display(name: &str) -> &str {
    match name {
        "intAdd" | "integerAdd" | "doubleAdd" => "+",
        "intSub" | "integerSub" | "doubleSub" => "-",
        "intMul" | "integerMul" | "doubleMul" => "*",
        "doubleDiv" => "/",
        "doublePow" => "**",
        "intQuot" | "integerQuot" => "quot",
        "intRem" | "integerRem" => "rem",
        "intDiv" | "integerDiv" => "div",
        "intMod" | "integerMod" => "mod",
        "intNegate" | "integerNegate" | "doubleNegate" => "negate",
        "intEq" | "integerEq" | "doubleEq" | "charEq" => "==",
        "intNe" | "integerNe" | "doubleNe" | "charNe" => "/=",
        "intLt" | "integerLt" | "doubleLt" | "charLt" => "<",
        "intLe" | "integerLe" | "doubleLe" | "charLe" => "<=",
        "intGt" | "integerGt" | "doubleGt" | "charGt" => ">",
        "intGe" | "integerGe" | "doubleGe" | "charGe" => ">=",
        "intAnd" | "integerAnd" => ".&.",
        "intOr" | "integerOr" => ".|.",
        "intXor" | "integerXor" => "xor",
        "intShiftL" | "integerShiftL" => "shiftL",
        "intShiftR" | "integerShiftR" => "shiftR",
        "intShiftRL" => "shiftRL",
        "intComplement" => "complement",
        "intPopCount" => "popCount",
        "intClz" => "countLeadingZeros",
        "intCtz" => "countTrailingZeros",
        "intToInteger" => "toInteger",
        "intToDouble" => "fromIntegral",
        "integerToInt" | "integerToDouble" => "fromInteger",
        "intShow" | "integerShow" | "doubleShow" | "floatShow" => "show",
        "doubleExp" => "exp",
        "doubleLog" => "log",
        "doubleSqrt" => "sqrt",
        "doubleSin" => "sin",
        "doubleCos" => "cos",
        "doubleTan" => "tan",
        "doubleAsin" => "asin",
        "doubleAcos" => "acos",
        "doubleAtan" => "atan",
        "doubleSinh" => "sinh",
        "doubleCosh" => "cosh",
        "doubleTanh" => "tanh",
        "doubleAsinh" => "asinh",
        "doubleAcosh" => "acosh",
        "doubleAtanh" => "atanh",
        "doubleLog1p" => "log1p",
        "doubleExpm1" => "expm1",
        "floatExp" => "exp",
        "floatLog" => "log",
        "floatSin" => "sin",
        "floatCos" => "cos",
        "floatTan" => "tan",
        "floatAsin" => "asin",
        "floatAcos" => "acos",
        "floatAtan" => "atan",
        "floatSinh" => "sinh",
        "floatCosh" => "cosh",
        "floatTanh" => "tanh",
        "floatAsinh" => "asinh",
        "floatAcosh" => "acosh",
        "floatAtanh" => "atanh",
        "floatLog1p" => "log1p",
        "floatExpm1" => "expm1",
        "floatPow" => "**",
        "doubleIsNaN" => "isNaN",
        "doubleIsInfinite" => "isInfinite",
        "doubleIsNegativeZero" => "isNegativeZero",
        "doubleTruncate" => "truncate",
        "doubleDecodeMantissa" => "decodeMantissa",
        "doubleDecodeExponent" => "decodeExponent",
        "doubleEncode" => "encodeFloat",
        "doubleToFloat" => "toFloat",
        "charOrd" => "ord",
        "charChr" => "chr",
        "charGeneralCategory" => "generalCategory",
        "charToUpper" => "toUpper",
        "charToLower" => "toLower",
        "charToTitle" => "toTitle",
        n => n,
    }
}

/// A literal as Haskell writes it.
pub fn lit_text(l: &LitV) -> String {
    match l {
        LitV::Int(n) => n.to_string(),
        LitV::Integer(z) => match z {
            gph_code::values::Z::S(i) => i.to_string(),
            gph_code::values::Z::B(b) => b.to_string(),
        },
        LitV::Double(d) => gph_code::values::show_double(*d),
        LitV::Char(c) => show_char(*c as u32),
    }
}

const ASCII_NAMES: [&str; 33] = [
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR",
    "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
    "FS", "GS", "RS", "US", "SP",
];

/// GHC's `showLitChar` of a code point, with the one after it (for `\&`).
fn lit_char(n: u32, next: Option<u32>, out: &mut String) {
    if n > 127 {
        out.push('\\');
        out.push_str(&n.to_string());
        if next.is_some_and(|d| (b'0' as u32..=b'9' as u32).contains(&d)) {
            out.push_str("\\&");
        }
        return;
    }
    let c = char::from_u32(n).unwrap_or('?');
    match c {
        '\x7f' => out.push_str("\\DEL"),
        '\\' => out.push_str("\\\\"),
        _ if n >= 32 => out.push(c),
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0b' => out.push_str("\\v"),
        '\x0e' => {
            out.push_str("\\SO");
            if next == Some('H' as u32) {
                out.push_str("\\&");
            }
        }
        _ => {
            out.push('\\');
            out.push_str(ASCII_NAMES[n as usize]);
        }
    }
}

/// A character literal, as `show` writes it.
pub fn show_char(c: u32) -> String {
    if c == '\'' as u32 {
        return "'\\''".into();
    }
    let mut s = String::from("'");
    lit_char(c, None, &mut s);
    s.push('\'');
    s
}

/// A string literal (of code points), as `show` writes it.
pub fn show_string(cs: impl Iterator<Item = u32>) -> String {
    let mut s = String::from("\"");
    let mut it = cs.peekable();
    while let Some(c) = it.next() {
        if c == '"' as u32 {
            s.push_str("\\\"");
        } else {
            lit_char(c, it.peek().copied(), &mut s);
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_print_as_show_does() {
        let chars = |s: &str| s.chars().map(u32::from).collect::<Vec<_>>().into_iter();
        assert_eq!(show_char('a' as u32), "'a'");
        assert_eq!(show_char('\'' as u32), "'\\''");
        assert_eq!(show_char('"' as u32), "'\"'");
        assert_eq!(show_char('\n' as u32), "'\\n'");
        assert_eq!(show_char(1), "'\\SOH'");
        assert_eq!(show_char(0xd800), "'\\55296'");
        assert_eq!(show_string(chars("a\"b\\")), "\"a\\\"b\\\\\"");
        assert_eq!(show_string(chars("\u{e9}1")), "\"\\233\\&1\"");
        assert_eq!(show_string(chars("\u{e}H")), "\"\\SO\\&H\"");
        assert!(is_op("+") && is_op(":") && !is_op("map") && !is_op("[]") && !is_op("(,)"));
    }
}
