//! The template-instantiation machine (Peyton Jones & Lester, ch. 2, with
//! the dump of Mark 4 and updates of Mark 3) over the stepper's templates.
//!
//! The heap is a vector of nodes addressed by index, with a mark-sweep
//! collector (addresses never move, so a node keeps its identity, and its
//! name in `show`, from step to step). The spine stack holds the
//! application nodes being unwound; the dump holds the stack heights of the
//! suspended evaluations (a primitive's or a `case`'s argument being
//! evaluated). Nothing recurses in Rust per reduction: each call of
//! [`Machine::advance`] unwinds iteratively until one reduction happens.
//!
//! * A node on the stack that is a thunk (`@`, `case`, CAF) is *under
//!   evaluation*: a black hole. Entering it again (pushing it while it is
//!   there) is the `<<loop>>` error, as in the real machine; a partial
//!   application on the stack is a value and may be shared freely.
//! * The root of every redex is overwritten with its result
//!   (instantiated in place, or an indirection to an existing node), so the
//!   second use of a shared expression finds its value.
//! * Normal form is reached as `print` would force it: the root to weak
//!   head normal form, then each constructor's fields, left to right
//!   (`nf`, a stack of nodes still to force). A cyclic value is finished
//!   when every node of it has been forced once.

use super::prims::{self, PrimOut};
use super::template::*;
use super::{show, Rule};
use gph_code::values::Z;
use std::rc::Rc;

pub type Addr = u32;
pub const NONE: Addr = u32::MAX;

#[derive(Clone, Debug)]
pub enum Node {
    /// An application of a function to one argument.
    App(Addr, Addr),
    Int(i64),
    Integer(Box<Z>),
    Double(f64),
    /// A character's code point (surrogates included, as in Haskell).
    Char(u32),
    /// What is left of a string literal from this byte offset: a list of
    /// characters unpacked one cell at a time (without a step) when a
    /// `case` looks at it.
    Str(Rc<str>, u32),
    /// A constructor with its fields.
    Data(ConId, Box<[Addr]>),
    /// A constructor used as a function.
    ConFun(ConId),
    /// A global function (supercombinator, primitive, selector).
    Fun(GlobalId),
    /// A global without arguments, not yet evaluated.
    Caf(GlobalId),
    /// A lambda (or `let`-bound function) with its environment.
    Closure(CodeId, Box<[Addr]>),
    /// A `case` waiting for its scrutinee, with the environment of its
    /// alternatives.
    Case(CaseId, Addr, Box<[Addr]>),
    Ind(Addr),
    /// A method selected from a dictionary: an indirection shown as the
    /// method's name (the selector global) while it is not a data value.
    Method(GlobalId, Addr),
    /// Raises this error when evaluated (a cycle of indirections, an
    /// undefined global).
    Bottom(Rc<str>),
    /// A `letrec` binding being built.
    Hole,
    Free,
}

/// Node flags.
pub const ON_STACK: u8 = 1;
pub const DICT: u8 = 2;
pub const NF_SEEN: u8 = 4;
const MARK: u8 = 8;
/// The node of a global (shown by its name once evaluated).
pub const GLOBAL: u8 = 16;

#[derive(Clone, Debug)]
pub struct Cell {
    pub node: Node,
    /// A name for `show` when the node is shared (a `let` variable or the
    /// parameter it was passed for); 0: none.
    pub hint: NameId,
    pub flags: u8,
}

/// One reduction.
pub struct Reduced {
    pub rule: Rule,
    /// Dictionary plumbing (method selection on a dictionary, building an
    /// instance dictionary): folded into the next visible step.
    pub admin: bool,
    pub redex: String,
    pub result: String,
}

pub enum Event {
    Reduced(Reduced),
    /// In normal form.
    Done,
    /// Stopped by an error (see `Machine::error`).
    Error,
}

/// What a reduction needs first.
enum Need {
    /// Evaluate this node, then try again.
    Eval(Addr),
    Done(Event),
}

type R<T> = Result<T, String>;

const MIN_GC: usize = 1 << 20;

/// The longest error message (`error` of a longer or cyclic string shows
/// this much of it).
const MAX_MESSAGE: usize = 1 << 20;

pub struct Machine {
    pub heap: Vec<Cell>,
    free: Vec<Addr>,
    pub stack: Vec<Addr>,
    pub dump: Vec<usize>,
    pub nf: Vec<Addr>,
    pub root: Addr,
    /// Each global's node (`NONE` until used).
    pub globals: Vec<Addr>,
    /// Each constructor's shared node (nullary value or function).
    cons: Vec<Addr>,
    pub error: Option<String>,
    pub done: bool,
    /// Reductions so far (visible and dictionary ones).
    pub reductions: u64,
    allocated: usize,
    next_gc: usize,
    /// The limit of the redex and result texts of a step (`None`: no
    /// texts, for running fast).
    pub text_limit: Option<usize>,
}

impl Machine {
    pub fn new(p: &Program) -> Machine {
        Machine {
            heap: Vec::new(),
            free: Vec::new(),
            stack: Vec::new(),
            dump: Vec::new(),
            nf: Vec::new(),
            root: NONE,
            globals: vec![NONE; p.globals.len()],
            cons: vec![NONE; p.cons.len()],
            error: None,
            done: false,
            reductions: 0,
            allocated: 0,
            next_gc: MIN_GC,
            text_limit: Some(200),
        }
    }

    /// Makes the entry's node the root.
    pub fn start(&mut self, p: &Program, entry: GlobalId) {
        let r = self.global_node(p, entry);
        self.root = r;
        // The root is the expression itself, not a name for it.
        if let Node::Caf(g) = self.heap[r as usize].node {
            if let GKind::Code(c) = p.globals[g as usize].kind {
                let code = &p.codes[c as usize];
                let mut frame = vec![NONE; code.frame.size];
                self.inst_into(p, &code.body, &mut frame, &code.frame.names, r);
            }
        }
        self.nf.push(r);
    }

    // ------------------------------------------------------------ heap

    pub fn alloc(&mut self, node: Node) -> Addr {
        self.allocated += 1;
        let cell = Cell {
            node,
            hint: 0,
            flags: 0,
        };
        match self.free.pop() {
            Some(a) => {
                self.heap[a as usize] = cell;
                a
            }
            None => {
                self.heap.push(cell);
                (self.heap.len() - 1) as Addr
            }
        }
    }

    #[inline]
    pub fn node(&self, a: Addr) -> &Node {
        &self.heap[a as usize].node
    }

    fn set(&mut self, a: Addr, node: Node) {
        self.heap[a as usize].node = node;
    }

    /// Follows indirections (method names included).
    pub fn resolve(&self, mut a: Addr) -> Addr {
        // A cycle of indirections is never built (see `update_ind`), but
        // stay finite whatever happens.
        for _ in 0..1_000_000 {
            match self.node(a) {
                Node::Ind(t) | Node::Method(_, t) => a = *t,
                _ => return a,
            }
        }
        a
    }

    /// The node of a global (made on first use).
    pub fn global_node(&mut self, p: &Program, g: GlobalId) -> Addr {
        let mut g = g;
        for _ in 0..1000 {
            match &p.globals[g as usize].kind {
                GKind::Alias(h) => g = *h,
                GKind::ConAlias(c) => return self.con_node(p, *c),
                _ => break,
            }
        }
        let n = self.globals[g as usize];
        if n != NONE {
            return n;
        }
        let info = &p.globals[g as usize];
        let node = match &info.kind {
            GKind::Code(_) if p.arity(g) == 0 => Node::Caf(g),
            GKind::Prim(pi) if pi.arity == 0 => Node::Bottom(Rc::from(unsupported(&pi.name))),
            GKind::Missing | GKind::Alias(_) | GKind::ConAlias(_) => Node::Bottom(Rc::from(
                format!("internal error: {} is undefined", info.name),
            )),
            _ => Node::Fun(g),
        };
        let a = self.alloc(node);
        self.heap[a as usize].flags |= GLOBAL | if info.dict { DICT } else { 0 };
        self.heap[a as usize].hint = info.display_id;
        self.globals[g as usize] = a;
        a
    }

    pub fn con_node(&mut self, p: &Program, c: ConId) -> Addr {
        let n = self.cons[c as usize];
        if n != NONE {
            return n;
        }
        let info = &p.cons[c as usize];
        let node = if info.arity == 0 {
            Node::Data(c, Box::new([]))
        } else {
            Node::ConFun(c)
        };
        let a = self.alloc(node);
        if info.class {
            self.heap[a as usize].flags |= DICT;
        }
        self.cons[c as usize] = a;
        a
    }

    fn bool_node(&mut self, p: &Program, b: bool) -> Addr {
        self.con_node(p, if b { p.true_con } else { p.false_con })
    }

    fn hint(&mut self, a: Addr, name: NameId, p: &Program) {
        let c = &mut self.heap[a as usize];
        if c.hint == 0 && c.flags & (DICT | GLOBAL) == 0 && good_hint(p.name(name)) {
            c.hint = name;
        }
    }

    // ------------------------------------------------------------ instantiation

    /// Builds the graph of a template; returns its node.
    fn inst(&mut self, p: &Program, t: &T, fr: &mut [Addr], nm: &[NameId]) -> Addr {
        gph_syntax::stack::guard();
        match t {
            T::Var(s) => match fr.get(*s as usize) {
                Some(&a) if a != NONE => a,
                _ => self.alloc(Node::Bottom(Rc::from(
                    "internal error: an unbound variable",
                ))),
            },
            T::Global(g) => self.global_node(p, *g),
            T::Con(c) => self.con_node(p, *c),
            T::App(f, args, dict) => {
                let mut h = self.inst(p, f, fr, nm);
                for a in args {
                    let x = self.inst(p, a, fr, nm);
                    h = self.alloc(Node::App(h, x));
                }
                if *dict {
                    self.heap[h as usize].flags |= DICT;
                }
                h
            }
            T::Let(..) => {
                let body = self.let_binds(p, t, fr, nm);
                self.inst(p, body, fr, nm)
            }
            _ => {
                let a = self.alloc(Node::Hole);
                self.inst_into(p, t, fr, nm, a);
                a
            }
        }
    }

    /// Allocates a `let`'s bindings into the frame; returns its body.
    fn let_binds<'t>(&mut self, p: &Program, t: &'t T, fr: &mut [Addr], nm: &[NameId]) -> &'t T {
        let T::Let(binds, body, rec) = t else {
            return t;
        };
        if *rec {
            for (s, _) in binds {
                fr[*s as usize] = self.alloc(Node::Hole);
            }
            for (s, rhs) in binds {
                let a = fr[*s as usize];
                self.inst_into(p, rhs, fr, nm, a);
            }
        } else {
            for (s, rhs) in binds {
                fr[*s as usize] = self.inst(p, rhs, fr, nm);
            }
        }
        // Names for show: the let's variables.
        for (slot, _) in binds {
            let a = fr[*slot as usize];
            let n = nm.get(*slot as usize).copied().unwrap_or(0);
            self.hint(a, n, p);
        }
        body
    }

    /// Builds the graph of a template in node `a` (the root of a redex, or
    /// a `letrec` hole).
    fn inst_into(&mut self, p: &Program, t: &T, fr: &mut [Addr], nm: &[NameId], a: Addr) {
        gph_syntax::stack::guard();
        let node = match t {
            T::Var(_) | T::Global(_) | T::Con(_) => {
                let x = self.inst(p, t, fr, nm);
                return self.update_ind(a, x);
            }
            T::Lit(l) => lit_node(l),
            T::Str(s) => Node::Str(s.clone(), 0),
            T::ConApp(c, args) => {
                let fs: Box<[Addr]> = args.iter().map(|x| self.inst(p, x, fr, nm)).collect();
                if p.cons[*c as usize].class {
                    self.heap[a as usize].flags |= DICT;
                }
                Node::Data(*c, fs)
            }
            T::App(f, args, dict) => {
                let mut h = self.inst(p, f, fr, nm);
                let (last, init) = args.split_last().expect("an application has arguments");
                for x in init {
                    let x = self.inst(p, x, fr, nm);
                    h = self.alloc(Node::App(h, x));
                }
                let x = self.inst(p, last, fr, nm);
                if *dict {
                    self.heap[a as usize].flags |= DICT;
                }
                Node::App(h, x)
            }
            T::Lam(c) => {
                let env = p.codes[*c as usize]
                    .frame
                    .captures
                    .iter()
                    .map(|(o, _)| fr[*o as usize])
                    .collect();
                Node::Closure(*c, env)
            }
            T::Case(c) => {
                let info = &p.cases[*c as usize];
                let s = self.inst(p, &info.scrut, fr, nm);
                let env = info
                    .frame
                    .captures
                    .iter()
                    .map(|(o, _)| fr[*o as usize])
                    .collect();
                Node::Case(*c, s, env)
            }
            T::Let(..) => {
                let body = self.let_binds(p, t, fr, nm);
                return self.inst_into(p, body, fr, nm, a);
            }
        };
        self.set(a, node);
    }

    /// Node `a` becomes an indirection to `x` (or the `<<loop>>` error when
    /// `x` is `a` itself through indirections).
    fn update_ind(&mut self, a: Addr, x: Addr) {
        if self.resolve(x) == a {
            self.set(a, Node::Bottom(Rc::from("<<loop>>")));
        } else {
            self.set(a, Node::Ind(x));
        }
    }

    // ------------------------------------------------------------ the stack

    fn is_thunk(&self, a: Addr) -> bool {
        matches!(self.node(a), Node::App(..) | Node::Case(..) | Node::Caf(..))
    }

    /// Pushes a node to unwind or evaluate; a thunk already under
    /// evaluation is the `<<loop>>` error.
    fn push(&mut self, p: &Program, a: Addr) -> R<()> {
        if self.is_thunk(a) {
            let c = &self.heap[a as usize];
            if c.flags & ON_STACK != 0 && !self.is_pap(p, a) {
                return Err("<<loop>>".into());
            }
            self.heap[a as usize].flags |= ON_STACK;
        }
        self.stack.push(a);
        Ok(())
    }

    fn pop(&mut self) {
        if let Some(a) = self.stack.pop() {
            self.heap[a as usize].flags &= !ON_STACK;
        }
    }

    fn truncate(&mut self, n: usize) {
        while self.stack.len() > n {
            self.pop();
        }
    }

    /// Evaluates `a` first (saving the current evaluation on the dump).
    fn eval(&mut self, p: &Program, a: Addr) -> R<()> {
        self.dump.push(self.stack.len());
        self.push(p, a)
    }

    /// A function's arity (0 for anything else).
    fn arity(&self, p: &Program, a: Addr) -> usize {
        match self.node(a) {
            Node::Fun(g) => p.arity(*g),
            Node::ConFun(c) => p.cons[*c as usize].arity,
            Node::Closure(c, _) => p.codes[*c as usize].params.len(),
            _ => 0,
        }
    }

    /// Whether an application is partial (a value).
    pub fn is_pap(&self, p: &Program, a: Addr) -> bool {
        let mut n = 0;
        let mut x = a;
        loop {
            match self.node(x) {
                Node::App(f, _) => {
                    n += 1;
                    x = *f;
                }
                Node::Ind(t) | Node::Method(_, t) => x = *t,
                _ => break,
            }
            if n > 100_000 {
                return false;
            }
        }
        let ar = self.arity(p, x);
        ar > n
    }

    /// Weak head normal form.
    pub fn is_whnf(&self, p: &Program, a: Addr) -> bool {
        let a = self.resolve(a);
        match self.node(a) {
            Node::App(..) => self.is_pap(p, a),
            Node::Case(..) | Node::Caf(..) | Node::Bottom(_) | Node::Hole | Node::Free => false,
            Node::Ind(_) | Node::Method(..) => false,
            _ => true,
        }
    }

    /// The argument of the `i`-th application below the function on top.
    fn arg(&self, i: usize) -> Addr {
        let n = self.stack.len();
        match self.node(self.stack[n - 2 - i]) {
            Node::App(_, x) => *x,
            _ => NONE,
        }
    }

    /// Unpacks one cell of a string literal in place.
    fn expand_str(&mut self, p: &Program, a: Addr) {
        let Node::Str(s, off) = self.node(a) else {
            return;
        };
        let (s, off) = (s.clone(), *off as usize);
        match s.get(off..).and_then(|r| r.chars().next()) {
            None => self.set(a, Node::Data(p.nil, Box::new([]))),
            Some(c) => {
                let h = self.alloc(Node::Char(c as u32));
                let t = self.alloc(Node::Str(s, (off + c.len_utf8()) as u32));
                self.set(a, Node::Data(p.cons_con, Box::new([h, t])));
            }
        }
    }

    // ------------------------------------------------------------ running

    fn fail(&mut self, e: String) -> Event {
        self.error = Some(e);
        Event::Error
    }

    /// The next node the normal form still needs evaluated.
    fn next_nf(&mut self, p: &Program) -> Option<Addr> {
        while let Some(a) = self.nf.pop() {
            let a = self.resolve(a);
            if self.heap[a as usize].flags & NF_SEEN != 0 {
                continue;
            }
            if !self.is_whnf(p, a) {
                self.nf.push(a);
                return Some(a);
            }
            self.heap[a as usize].flags |= NF_SEEN;
            if let Node::Data(c, fs) = self.node(a) {
                if !p.cons[*c as usize].class {
                    let fs: Vec<Addr> = fs.iter().rev().copied().collect();
                    self.nf.extend(fs);
                }
            }
        }
        None
    }

    /// Runs until one reduction (or the end).
    pub fn advance(&mut self, p: &Program) -> Event {
        if self.error.is_some() {
            return Event::Error;
        }
        if self.done {
            return Event::Done;
        }
        if self.allocated >= self.next_gc {
            self.gc();
        }
        loop {
            if self.stack.is_empty() {
                match self.next_nf(p) {
                    Some(a) => {
                        if let Err(e) = self.push(p, a) {
                            return self.fail(e);
                        }
                    }
                    None => {
                        self.done = true;
                        return Event::Done;
                    }
                }
            }
            let top = *self.stack.last().expect("not empty");
            let r = match self.node(top) {
                Node::Ind(t) | Node::Method(_, t) => {
                    let t = *t;
                    self.pop();
                    self.push(p, t).map(|()| None)
                }
                Node::App(f, _) => {
                    let f = *f;
                    self.push(p, f).map(|()| None)
                }
                Node::Case(_, s, _) => {
                    let s = self.resolve(*s);
                    if matches!(self.node(s), Node::Str(..)) {
                        self.expand_str(p, s);
                    }
                    if self.is_whnf(p, s) {
                        self.case_select(p, top, s).map(Some)
                    } else {
                        self.eval(p, s).map(|()| None)
                    }
                }
                Node::Caf(g) => {
                    let g = *g;
                    Ok(Some(self.caf(p, g)))
                }
                Node::Bottom(m) => Err(m.to_string()),
                Node::Hole => Err("<<loop>>".into()),
                Node::Free => Err("internal error: a freed node was reached".into()),
                _ => {
                    let arity = self.arity(p, top);
                    let base = self.dump.last().copied().unwrap_or(0);
                    let nargs = self.stack.len() - 1 - base;
                    if arity > 0 && nargs >= arity {
                        match self.reduce(p, top, arity) {
                            Ok(Need::Eval(a)) => self.eval(p, a).map(|()| None),
                            Ok(Need::Done(e)) => Ok(Some(e)),
                            Err(e) => Err(e),
                        }
                    } else {
                        // Weak head normal form: back to what waited for it.
                        match self.dump.pop() {
                            Some(b) => self.truncate(b),
                            None => self.truncate(0),
                        }
                        Ok(None)
                    }
                }
            };
            match r {
                Ok(None) => continue,
                Ok(Some(e)) => {
                    if let Event::Reduced(_) = e {
                        self.reductions += 1;
                    }
                    return e;
                }
                Err(e) => return self.fail(e),
            }
        }
    }

    /// Renders a node for a step's text.
    fn text(&self, p: &Program, a: Addr) -> String {
        match self.text_limit {
            Some(l) => show::render(p, self, a, Some(l), false),
            None => String::new(),
        }
    }

    /// Replaces the redex of `arity` arguments on top of the stack by
    /// `f(root)`, producing the step's texts (unless `admin`).
    fn rewrite(
        &mut self,
        p: &Program,
        arity: usize,
        rule: Rule,
        admin: bool,
        f: impl FnOnce(&mut Machine, Addr),
    ) -> Need {
        let n = self.stack.len();
        let root = self.stack[n - 1 - arity];
        let redex = if admin {
            String::new()
        } else {
            self.text(p, root)
        };
        self.truncate(n - arity);
        f(self, root);
        let result = if admin {
            String::new()
        } else {
            let r = self.resolve_shown(root);
            self.text(p, r)
        };
        Need::Done(Event::Reduced(Reduced {
            rule,
            admin,
            redex,
            result,
        }))
    }

    /// What a step's result is shown as: through plain indirections.
    fn resolve_shown(&self, mut a: Addr) -> Addr {
        while let Node::Ind(t) = self.node(a) {
            a = *t;
        }
        a
    }

    fn caf(&mut self, p: &Program, g: GlobalId) -> Event {
        let info = &p.globals[g as usize];
        let GKind::Code(c) = info.kind else {
            return self.fail(format!("internal error: {} is not a CAF", info.name));
        };
        let rule = Rule::Instantiate(info.display.to_string());
        let admin = info.dict;
        match self.rewrite(p, 0, rule, admin, |m, root| {
            let code = &p.codes[c as usize];
            let mut frame = vec![NONE; code.frame.size];
            m.run_code(p, c, &mut frame, root);
        }) {
            Need::Done(e) => e,
            Need::Eval(_) => Event::Error,
        }
    }

    /// Instantiates a code's body into `root` with the frame filled.
    fn run_code(&mut self, p: &Program, c: CodeId, frame: &mut [Addr], root: Addr) {
        let code = &p.codes[c as usize];
        self.inst_into(p, &code.body, frame, &code.frame.names, root);
    }

    fn reduce(&mut self, p: &Program, top: Addr, arity: usize) -> R<Need> {
        let args: Vec<Addr> = (0..arity).map(|i| self.arg(i)).collect();
        if args.contains(&NONE) {
            return Err("internal error: a broken spine".into());
        }
        match self.node(top).clone() {
            Node::Fun(g) => {
                let info = &p.globals[g as usize];
                match &info.kind {
                    GKind::Code(c) => {
                        let rule = Rule::Instantiate(info.display.to_string());
                        Ok(self.apply_code(p, *c, &[], &args, rule, info.dict))
                    }
                    GKind::Selector { field, method } => {
                        let d = self.resolve(args[0]);
                        if !self.is_whnf(p, d) {
                            return Ok(Need::Eval(d));
                        }
                        let Node::Data(_, fs) = self.node(d) else {
                            return Err(
                                "internal error: a method selected from a non-dictionary".into()
                            );
                        };
                        let Some(&x) = fs.get(*field) else {
                            return Err("internal error: a dictionary without the method".into());
                        };
                        let method = *method;
                        let rule = Rule::Instantiate(info.display.to_string());
                        Ok(self.rewrite(p, 1, rule, true, |m, root| {
                            if method && m.resolve(x) != root {
                                m.set(root, Node::Method(g, x));
                            } else {
                                m.update_ind(root, x);
                            }
                        }))
                    }
                    GKind::Prim(pi) => self.prim(p, pi, &args),
                    _ => Err(format!("internal error: {} applied", info.name)),
                }
            }
            Node::Closure(c, env) => {
                let code = &p.codes[c as usize];
                let rule = Rule::Instantiate(match (code.name, self.text_limit) {
                    (Some(n), _) => p.name(n).to_string(),
                    (None, Some(_)) => show::render(p, self, top, Some(40), false),
                    (None, None) => lambda_name(p, code),
                });
                Ok(self.apply_code(p, c, &env, &args, rule, false))
            }
            Node::ConFun(c) => {
                let info = &p.cons[c as usize];
                for (i, s) in info.strict.iter().enumerate() {
                    if *s {
                        let a = self.resolve(args[i]);
                        if !self.is_whnf(p, a) {
                            return Ok(Need::Eval(a));
                        }
                    }
                }
                let rule = Rule::Construct(info.display.to_string());
                let class = info.class;
                Ok(self.rewrite(p, arity, rule, class, |m, root| {
                    m.set(root, Node::Data(c, args.into_boxed_slice()));
                }))
            }
            _ => Err("internal error: applying a value".into()),
        }
    }

    fn apply_code(
        &mut self,
        p: &Program,
        c: CodeId,
        env: &[Addr],
        args: &[Addr],
        rule: Rule,
        admin: bool,
    ) -> Need {
        let code = &p.codes[c as usize];
        let mut frame = vec![NONE; code.frame.size];
        for (i, (_, s)) in code.frame.captures.iter().enumerate() {
            frame[*s as usize] = env.get(i).copied().unwrap_or(NONE);
        }
        for (i, s) in code.params.iter().enumerate() {
            frame[*s as usize] = args[i];
            if !code.frame.dict[*s as usize] {
                let a = self.resolve(args[i]);
                if self.is_thunk(a) || matches!(self.node(a), Node::Data(_, fs) if !fs.is_empty()) {
                    self.hint(a, code.frame.names[*s as usize], p);
                }
            }
        }
        self.rewrite(p, args.len(), rule, admin, |m, root| {
            m.run_code(p, c, &mut frame, root)
        })
    }

    fn case_select(&mut self, p: &Program, node: Addr, s: Addr) -> R<Event> {
        let Node::Case(c, _, env) = self.node(node).clone() else {
            return Err("internal error: not a case".into());
        };
        let info = &p.cases[c as usize];
        let (key, fields): (Option<AltKey>, Vec<Addr>) = match self.node(s) {
            Node::Data(k, fs) => (Some(AltKey::Con(*k)), fs.to_vec()),
            Node::Int(n) => (Some(AltKey::Lit(LitV::Int(*n))), vec![]),
            Node::Integer(z) => (Some(AltKey::Lit(LitV::Integer((**z).clone()))), vec![]),
            Node::Double(d) => (Some(AltKey::Lit(LitV::Double(*d))), vec![]),
            Node::Char(ch) => (
                char::from_u32(*ch).map(|c| AltKey::Lit(LitV::Char(c))),
                vec![],
            ),
            _ => (None, vec![]),
        };
        let alt = key
            .as_ref()
            .and_then(|k| info.alts.iter().find(|a| &a.key == k));
        let shown = key.as_ref().map_or("_".into(), |k| key_name(p, k));
        let (body, vars): (&T, &[Slot]) = match alt {
            Some(a) => (&a.body, &a.vars),
            None => match &info.default {
                Some((d, _)) => (d, &[]),
                None => return Err("internal error: no alternative matches".into()),
            },
        };
        let admin = matches!(key, Some(AltKey::Con(k)) if p.cons[k as usize].class);
        let mut frame = vec![NONE; info.frame.size];
        for (i, (_, slot)) in info.frame.captures.iter().enumerate() {
            frame[*slot as usize] = env.get(i).copied().unwrap_or(NONE);
        }
        frame[info.binder as usize] = s;
        for (v, f) in vars.iter().zip(&fields) {
            frame[*v as usize] = *f;
            let x = self.resolve(*f);
            if self.is_thunk(x) || matches!(self.node(x), Node::Data(_, fs) if !fs.is_empty()) {
                self.hint(x, info.frame.names[*v as usize], p);
            }
        }
        let names = &info.frame.names;
        match self.rewrite(p, 0, Rule::CaseSelect(shown), admin, |m, root| {
            m.inst_into(p, body, &mut frame, names, root);
        }) {
            Need::Done(e) => Ok(e),
            Need::Eval(_) => Err("internal error".into()),
        }
    }

    fn prim(&mut self, p: &Program, pi: &PrimInfo, args: &[Addr]) -> R<Need> {
        if pi.unsupported {
            return Err(unsupported(&pi.name));
        }
        let name = &*pi.name;
        // Arguments evaluated first: seq's and pseq's first, error's whole
        // message, the strict ones of the others.
        match name {
            "seq" | "pseq" => {
                let a = self.resolve(args[0]);
                if !self.is_whnf(p, a) {
                    return Ok(Need::Eval(a));
                }
            }
            "error" => {
                if let Some(a) = self.unevaluated_in_string(p, args[0]) {
                    return Ok(Need::Eval(a));
                }
            }
            _ => {
                for (i, s) in pi.strict.iter().enumerate() {
                    if *s {
                        let a = self.resolve(args[i]);
                        if matches!(self.node(a), Node::Str(..)) {
                            continue;
                        }
                        if !self.is_whnf(p, a) {
                            return Ok(Need::Eval(a));
                        }
                    }
                }
            }
        }
        let vals: Vec<Addr> = args.iter().map(|a| self.resolve(*a)).collect();
        let out = prims::apply(p, self, pi, &vals)?;
        let rule = match name {
            "par" => Rule::Spark,
            _ => Rule::Primitive(show::prim_display(name).to_string()),
        };
        if let PrimOut::Error(m) = out {
            return Err(m);
        }
        Ok(
            self.rewrite(p, args.len(), rule, false, |m, root| match out {
                PrimOut::Node(n) => m.set(root, n),
                PrimOut::Bool(b) => {
                    let x = m.bool_node(p, b);
                    m.update_ind(root, x)
                }
                PrimOut::Ind(x) => m.update_ind(root, x),
                PrimOut::Error(_) => {}
            }),
        )
    }

    /// The first unevaluated part of a string (spine or character), if any
    /// (an error message longer than `MAX_MESSAGE`, or cyclic, is cut).
    fn unevaluated_in_string(&mut self, p: &Program, s: Addr) -> Option<Addr> {
        let mut x = self.resolve(s);
        for _ in 0..MAX_MESSAGE {
            match self.node(x) {
                Node::Str(..) => return None,
                Node::Data(_, fs) if fs.len() == 2 => {
                    let (h, t) = (fs[0], fs[1]);
                    let h = self.resolve(h);
                    if !self.is_whnf(p, h) {
                        return Some(h);
                    }
                    x = self.resolve(t);
                }
                Node::Data(..) => return None,
                _ if !self.is_whnf(p, x) => return Some(x),
                _ => return None,
            }
        }
        None
    }

    /// The characters of an evaluated string (as far as it is evaluated).
    pub fn string_of(&self, s: Addr) -> String {
        let mut out = String::new();
        let mut x = self.resolve(s);
        for _ in 0..MAX_MESSAGE {
            match self.node(x) {
                Node::Str(s, off) => {
                    out.push_str(s.get(*off as usize..).unwrap_or(""));
                    return out;
                }
                Node::Data(_, fs) if fs.len() == 2 => {
                    if let Node::Char(c) = self.node(self.resolve(fs[0])) {
                        out.push(char::from_u32(*c).unwrap_or('\u{fffd}'));
                    }
                    x = self.resolve(fs[1]);
                }
                _ => return out,
            }
        }
        out.push_str("...");
        out
    }

    /// An evaluated list of characters as a String (`None`: not one).
    pub fn string_value(&self, p: &Program, s: Addr) -> Option<String> {
        let mut out = String::new();
        let mut x = self.resolve(s);
        // Not a cyclic one: at most one character a node.
        for _ in 0..=self.heap.len() {
            match self.node(x) {
                Node::Str(s, off) => {
                    out.push_str(s.get(*off as usize..)?);
                    return Some(out);
                }
                Node::Data(k, fs) if *k == p.cons_con && fs.len() == 2 => {
                    let Node::Char(c) = self.node(self.resolve(fs[0])) else {
                        return None;
                    };
                    out.push(char::from_u32(*c).unwrap_or('\u{fffd}'));
                    x = self.resolve(fs[1]);
                }
                Node::Data(k, _) if *k == p.nil => return Some(out),
                _ => return None,
            }
        }
        None
    }

    // ------------------------------------------------------------ collection

    /// Mark-sweep: frees what the root, the stack, the normal-form stack
    /// and the globals do not reach.
    pub fn gc(&mut self) {
        let mut work: Vec<Addr> = Vec::new();
        work.push(self.root);
        work.extend(self.stack.iter().copied());
        work.extend(self.nf.iter().copied());
        work.extend(self.globals.iter().copied().filter(|a| *a != NONE));
        work.extend(self.cons.iter().copied().filter(|a| *a != NONE));
        while let Some(a) = work.pop() {
            if a == NONE {
                continue;
            }
            let c = &mut self.heap[a as usize];
            if c.flags & MARK != 0 {
                continue;
            }
            c.flags |= MARK;
            children(&c.node, &mut work);
        }
        self.free.clear();
        let mut live = 0;
        for (i, c) in self.heap.iter_mut().enumerate() {
            if c.flags & MARK != 0 {
                c.flags &= !MARK;
                live += 1;
            } else {
                if !matches!(c.node, Node::Free) {
                    c.node = Node::Free;
                    c.flags = 0;
                    c.hint = 0;
                }
                self.free.push(i as Addr);
            }
        }
        self.free.reverse();
        self.allocated = 0;
        self.next_gc = MIN_GC.max(live);
    }
}

/// The nodes a node points to.
pub fn children(n: &Node, out: &mut Vec<Addr>) {
    match n {
        Node::App(f, x) => {
            out.push(*f);
            out.push(*x);
        }
        Node::Data(_, fs) | Node::Closure(_, fs) => out.extend(fs.iter().copied()),
        Node::Case(_, s, env) => {
            out.push(*s);
            out.extend(env.iter().copied());
        }
        Node::Ind(t) | Node::Method(_, t) => out.push(*t),
        _ => {}
    }
}

pub fn lit_node(l: &LitV) -> Node {
    match l {
        LitV::Int(n) => Node::Int(*n),
        LitV::Integer(z) => Node::Integer(Box::new(z.clone())),
        LitV::Double(d) => Node::Double(*d),
        LitV::Char(c) => Node::Char(*c as u32),
    }
}

/// A name worth showing for a shared node (not the desugarer's `a`, a
/// dictionary or an internal name).
fn good_hint(n: &str) -> bool {
    !n.is_empty() && n != "a" && !n.starts_with('$') && n != "fail"
}

fn unsupported(name: &str) -> String {
    format!(":step works on pure expressions, not IO actions (primitive `{name}`)")
}

/// `\x y` for a step's rule.
pub fn lambda_name(p: &Program, code: &Code) -> String {
    let mut s = String::from("\\");
    let mut first = true;
    for slot in &code.params {
        if code.frame.dict[*slot as usize] {
            continue;
        }
        if !first {
            s.push(' ');
        }
        first = false;
        s.push_str(p.name(code.frame.names[*slot as usize]));
    }
    s
}

/// The constructor or literal an alternative matched, as shown in a rule.
fn key_name(p: &Program, k: &AltKey) -> String {
    match k {
        AltKey::Con(c) => p.cons[*c as usize].display.to_string(),
        AltKey::Lit(l) => show::lit_text(l),
    }
}
