//! Core → templates: the stepper's program.
//!
//! Every function body (a top-level binding, a lambda, the alternatives of
//! a `case`) becomes a [`Code`] whose variables are slots of a flat frame;
//! what a lambda or a `case` uses of the enclosing frame it captures
//! (flat closures: the addresses are copied into the node). Instantiating
//! a template builds the graph of the expression (tutorial §2.3.3): an
//! application becomes `@` nodes, a constructor applied to all its fields
//! a data node, a `let` allocates its bindings, a lambda a closure, and a
//! `case` a case node holding its scrutinee's graph and its environment;
//! its alternatives stay templates until one is picked.
//!
//! Only the bindings reachable from the entry are compiled. Dictionary
//! plumbing is recognised here, from the names the type checker gives it
//! (see `crate::types`): instance dictionaries `M.$f…`, superclass
//! selectors `M.$p…`, dictionary parameters `$d…` and `$this`, class
//! records `D:…`; method selectors by their shape
//! `\d -> case d of D:C f1 .. fn -> fk`.

use crate::core::{AltCon, Bind, Expr, Lit, Program as CoreProgram, Var};
use gph_code::values::Z;
use gph_syntax::lexer::Sym;
use std::collections::HashMap;
use std::rc::Rc;

pub type Slot = u32;
pub type GlobalId = u32;
pub type ConId = u32;
pub type CodeId = u32;
pub type CaseId = u32;
/// An interned display name.
pub type NameId = u32;

/// A literal value.
#[derive(Clone, Debug, PartialEq)]
pub enum LitV {
    Int(i64),
    Integer(Z),
    Double(f64),
    Char(char),
}

/// An expression to instantiate.
#[derive(Debug)]
pub enum T {
    Var(Slot),
    Global(GlobalId),
    Lit(LitV),
    Str(Rc<str>),
    /// A constructor by itself: a value when nullary, else a function.
    Con(ConId),
    /// A constructor applied to all its fields, none strict.
    ConApp(ConId, Vec<T>),
    /// An application; the flag says it builds a dictionary.
    App(Box<T>, Vec<T>, bool),
    Lam(CodeId),
    /// `let` (`rec`: the bindings see each other) of slots.
    Let(Vec<(Slot, T)>, Box<T>, bool),
    Case(CaseId),
}

/// A frame's layout: what it captures and how its slots are shown.
#[derive(Debug, Default)]
pub struct FrameInfo {
    /// (slot in the enclosing frame, slot in this one), in capture order:
    /// the closure's (or case node's) environment.
    pub captures: Vec<(Slot, Slot)>,
    pub size: usize,
    /// The display name of each slot, and whether it holds a dictionary.
    pub names: Vec<NameId>,
    pub dict: Vec<bool>,
    /// For each slot, its index in the environment when it is captured.
    pub capture_of: Vec<Option<u32>>,
}

/// A function body (or a CAF's, with no parameters) and its frame.
#[derive(Debug)]
pub struct Code {
    /// The binding's name, when it is a top-level or `let`-bound function:
    /// such a closure is shown by its name.
    pub name: Option<NameId>,
    pub params: Vec<Slot>,
    pub body: T,
    pub frame: FrameInfo,
    /// A right section's lambda `\$sec -> op $sec e`, shown as `(op e)`.
    pub section: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AltKey {
    Con(ConId),
    Lit(LitV),
}

#[derive(Debug)]
pub struct AltT {
    pub key: AltKey,
    pub vars: Vec<Slot>,
    pub body: T,
    /// Whether the body uses the case binder (shown as `b@pat`).
    pub binder_used: bool,
}

/// A `case`: the scrutinee is instantiated with the case node; the
/// alternatives run in a frame of their own.
#[derive(Debug)]
pub struct CaseInfo {
    pub scrut: T,
    pub binder: Slot,
    pub alts: Vec<AltT>,
    pub default: Option<(T, bool)>,
    pub frame: FrameInfo,
}

/// A primitive, by its runtime name.
#[derive(Clone, Debug)]
pub struct PrimInfo {
    pub name: Rc<str>,
    pub arity: usize,
    /// Which arguments are evaluated first.
    pub strict: Vec<bool>,
    /// The compiler's description (`None`: unknown to it).
    pub info: Option<crate::back::prims::PrimInfo>,
    /// An IO (or otherwise impure) primitive: `:step` cannot run it.
    pub unsupported: bool,
}

#[derive(Debug)]
pub enum GKind {
    /// A supercombinator (`arity > 0`) or a CAF.
    Code(CodeId),
    Prim(PrimInfo),
    /// A class method's or superclass's selector: field `field` of a
    /// class record; `method` when it selects a method (shown by name).
    Selector {
        field: usize,
        method: bool,
    },
    /// Another global under this name (`seq = primSeq`).
    Alias(GlobalId),
    /// A constructor under this name.
    ConAlias(ConId),
    /// Not defined (cannot happen for a closed program).
    Missing,
}

#[derive(Debug)]
pub struct GlobalInfo {
    pub name: Sym,
    /// How it is shown: the unqualified name (`map`, `+`), a default
    /// method as its method (`$dmshow` is `show`).
    pub display: Rc<str>,
    pub display_id: NameId,
    pub kind: GKind,
    /// An instance dictionary or dictionary function (`$f…`).
    pub dict: bool,
}

#[derive(Debug)]
pub struct ConInfo {
    pub name: Sym,
    pub display: Rc<str>,
    pub arity: usize,
    pub strict: Vec<bool>,
    /// A class record `D:C`.
    pub class: bool,
}

/// The compiled program.
#[derive(Debug, Default)]
pub struct Program {
    pub globals: Vec<GlobalInfo>,
    pub codes: Vec<Code>,
    pub cases: Vec<CaseInfo>,
    pub cons: Vec<ConInfo>,
    pub names: Vec<Rc<str>>,
    pub con_ids: HashMap<Sym, ConId>,
    pub nil: ConId,
    pub cons_con: ConId,
    pub true_con: ConId,
    pub false_con: ConId,
    pub unit: ConId,
}

impl Program {
    pub fn name(&self, n: NameId) -> &str {
        &self.names[n as usize]
    }

    /// A global's arity (0 for a CAF), following aliases.
    pub fn arity(&self, g: GlobalId) -> usize {
        match &self.globals[g as usize].kind {
            GKind::Code(c) => self.codes[*c as usize].params.len(),
            GKind::Prim(p) => p.arity,
            GKind::Selector { .. } => 1,
            GKind::Alias(_) | GKind::ConAlias(_) | GKind::Missing => 0,
        }
    }

    /// A tuple constructor's size (`(,,)` is 3), if it is one.
    pub fn tuple_size(&self, c: ConId) -> Option<usize> {
        let n = &self.cons[c as usize].name;
        (n.starts_with("(,") && n.ends_with(')')).then(|| n.len() - 1)
    }
}

pub use gph_code::split_qual;

fn short(s: &str) -> &str {
    split_qual(s).1
}

/// Whether a global is an instance dictionary or dictionary function.
fn is_dict_global(name: &str) -> bool {
    short(name).starts_with("$f")
}

fn is_dict_var(v: &Var) -> bool {
    v.name.starts_with("$d") || v.name.starts_with("$this")
}

fn is_class_con(name: &str) -> bool {
    short(name).starts_with("D:")
}

/// Whether an expression builds or names a dictionary.
fn is_dict_expr(e: &Expr) -> bool {
    match e {
        Expr::Local(v) => is_dict_var(v),
        Expr::Global(g) => is_dict_global(g),
        Expr::Con(c) => is_class_con(c),
        Expr::App(h, _) => match &**h {
            Expr::Global(g) => is_dict_global(g) || short(g).starts_with("$p"),
            Expr::Con(c) => is_class_con(c),
            _ => false,
        },
        _ => false,
    }
}

/// `\d -> case d of D:C f1 .. fn -> fk`: `k`.
fn selector_field(e: &Expr) -> Option<usize> {
    let Expr::Lam(ps, body) = e else { return None };
    let [d] = &ps[..] else { return None };
    let Expr::Case(s, _, alts, None) = &**body else {
        return None;
    };
    let (Expr::Local(x), [alt]) = (&**s, &alts[..]) else {
        return None;
    };
    let (AltCon::Con(c), Expr::Local(r)) = (&alt.con, &alt.body) else {
        return None;
    };
    if x != d || !is_class_con(c) {
        return None;
    }
    alt.vars.iter().position(|v| v == r)
}

/// How a global is shown.
fn display_of_global(name: &str) -> Rc<str> {
    let s = short(name);
    let s = s.strip_prefix("$dm").unwrap_or(s);
    // The REPL's own bindings (`gph'it`) are GHCi's `it`.
    let s = s.strip_prefix("gph'").unwrap_or(s);
    Rc::from(if s.is_empty() { name } else { s })
}

/// How a constructor is shown: unqualified.
fn display_of_con(name: &str) -> Rc<str> {
    let s = short(name);
    Rc::from(if s.is_empty() { name } else { s })
}

/// How a variable is shown: its name (`go`, `xs`, `acc'`); the type
/// checker's own (`$sec`, `$arg` of a section) without the `$`.
fn display_of_var(v: &Var) -> &str {
    let n = v.name.trim_start_matches('$');
    if n.is_empty() {
        &v.name
    } else {
        n
    }
}

/// A primitive by its runtime name: IO ones (and the few that need the
/// machine's state) are `unsupported`.
fn prim_info(name: &str, arity: usize) -> PrimInfo {
    let info = crate::back::prims::lookup(name);
    let io = info
        .as_ref()
        .is_some_and(|t| t.args.contains(&crate::back::prims::Ty::World));
    let unsupported = io
        || info.is_none()
        || matches!(
            name,
            "instantiate"
                | "performIO"
                | "arrIndex"
                | "arrSize"
                | "sameIORef"
                | "noPe"
                | "selfPe"
                | "edenNewChan"
                | "getArgs"
                | "getEnvironment"
                | "cpuTime"
                | "getProgName"
        );
    let strict = match &info {
        Some(t) if name != "error" => t.args.iter().take(arity).map(|a| a.strict()).collect(),
        _ => vec![false; arity],
    };
    PrimInfo {
        name: Rc::from(name),
        arity,
        strict,
        info,
        unsupported,
    }
}

/// One frame under construction.
#[derive(Default)]
struct Frame {
    /// Variables in scope (innermost last): (variable id, slot).
    scope: Vec<(u32, Slot)>,
    captured: Vec<(u32, Slot)>,
    captures: Vec<(Slot, Slot)>,
    names: Vec<NameId>,
    dict: Vec<bool>,
}

pub struct Compiler<'c> {
    binds: HashMap<&'c str, &'c Expr>,
    prims: HashMap<&'c str, (&'c str, usize)>,
    gids: HashMap<Sym, GlobalId>,
    todo: Vec<GlobalId>,
    frames: Vec<Frame>,
    name_ids: HashMap<Rc<str>, NameId>,
    pub prog: Program,
    /// The entry (its local functions are not qualified).
    pub entry: Option<Sym>,
    /// The function whose local functions are being compiled: they are
    /// shown qualified by it (`sum.go`).
    parent: Option<Rc<str>>,
    /// Compiling an instance's dictionary: its methods' local functions
    /// are shown qualified by the method (`length.go`).
    in_dict: bool,
    /// A variable not in scope (a broken program): the first one.
    pub error: Option<String>,
}

impl<'c> Compiler<'c> {
    pub fn new(core: &'c CoreProgram) -> Compiler<'c> {
        let mut prog = Program::default();
        let mut con_ids = HashMap::new();
        for d in &core.data {
            for c in &d.constrs {
                let id = prog.cons.len() as ConId;
                prog.cons.push(ConInfo {
                    name: c.name.clone(),
                    display: display_of_con(&c.name),
                    arity: c.arity,
                    strict: c.strict.clone(),
                    class: is_class_con(&c.name),
                });
                con_ids.insert(c.name.clone(), id);
            }
        }
        let find = |n: &str, con_ids: &HashMap<Sym, ConId>| con_ids.get(n).copied().unwrap_or(0);
        prog.nil = find("[]", &con_ids);
        prog.cons_con = find(":", &con_ids);
        prog.true_con = find("Gph.Prim.True", &con_ids);
        prog.false_con = find("Gph.Prim.False", &con_ids);
        prog.unit = find("()", &con_ids);
        prog.con_ids = con_ids;
        let mut c = Compiler {
            binds: core.binds.iter().map(|(n, e)| (&**n, e)).collect(),
            prims: core
                .prims
                .iter()
                .map(|(n, p, a)| (&**n, (&**p, *a)))
                .collect(),
            gids: HashMap::new(),
            todo: Vec::new(),
            frames: Vec::new(),
            name_ids: HashMap::new(),
            prog,
            entry: None,
            parent: None,
            in_dict: false,
            error: None,
        };
        c.intern("");
        c
    }

    pub fn intern(&mut self, s: &str) -> NameId {
        if let Some(&n) = self.name_ids.get(s) {
            return n;
        }
        let n = self.prog.names.len() as NameId;
        let r: Rc<str> = Rc::from(s);
        self.prog.names.push(r.clone());
        self.name_ids.insert(r, n);
        n
    }

    /// The id of a global, compiling it (later) on first sight.
    pub fn global(&mut self, name: &Sym) -> GlobalId {
        if let Some(&g) = self.gids.get(name) {
            return g;
        }
        let g = self.prog.globals.len() as GlobalId;
        let display = display_of_global(name);
        let display_id = self.intern(&display);
        self.prog.globals.push(GlobalInfo {
            name: name.clone(),
            display,
            display_id,
            kind: GKind::Missing,
            dict: is_dict_global(name),
        });
        self.gids.insert(name.clone(), g);
        self.todo.push(g);
        g
    }

    /// Compiles every global reached so far, and those they reach.
    pub fn finish(&mut self) {
        while let Some(g) = self.todo.pop() {
            let name = self.prog.globals[g as usize].name.clone();
            let kind = if let Some(&e) = self.binds.get(&*name) {
                self.compile_global(&name, e)
            } else if let Some(&(p, arity)) = self.prims.get(&*name) {
                GKind::Prim(prim_info(p, arity))
            } else {
                GKind::Missing
            };
            self.prog.globals[g as usize].kind = kind;
        }
    }

    fn compile_global(&mut self, name: &Sym, e: &'c Expr) -> GKind {
        match e {
            Expr::Global(h) if h != name => return GKind::Alias(self.global(h)),
            Expr::Con(c) => {
                if let Some(&id) = self.prog.con_ids.get(c) {
                    return GKind::ConAlias(id);
                }
            }
            _ => {}
        }
        if let Some(field) = selector_field(e) {
            return GKind::Selector {
                field,
                method: !short(name).starts_with('$'),
            };
        }
        let (params, body): (&[Var], &Expr) = match e {
            Expr::Lam(ps, b) => (ps, b),
            e => (&[], e),
        };
        let display = display_of_global(name);
        let qualify = !is_dict_global(name) && self.entry.as_ref() != Some(name);
        let saved = std::mem::replace(&mut self.parent, qualify.then(|| display.clone()));
        let saved_dict = std::mem::replace(&mut self.in_dict, is_dict_global(name));
        let code = self.code(Some(&display), params, body, true);
        self.parent = saved;
        self.in_dict = saved_dict;
        GKind::Code(code)
    }

    fn new_slot(&mut self, v: &Var) -> Slot {
        let name = self.intern(display_of_var(v));
        let f = self.frames.last_mut().expect("a frame");
        let s = f.names.len() as Slot;
        f.names.push(name);
        f.dict.push(is_dict_var(v));
        s
    }

    fn bind(&mut self, v: &Var) -> Slot {
        let s = self.new_slot(v);
        let f = self.frames.last_mut().expect("a frame");
        f.scope.push((v.id, s));
        s
    }

    /// The slot of a variable in frame `depth`, capturing it from the
    /// enclosing frames when needed.
    fn resolve(&mut self, depth: usize, v: &Var) -> Option<Slot> {
        let f = &self.frames[depth];
        if let Some(&(_, s)) = f.scope.iter().rev().find(|(id, _)| *id == v.id) {
            return Some(s);
        }
        if let Some(&(_, s)) = f.captured.iter().find(|(id, _)| *id == v.id) {
            return Some(s);
        }
        if depth == 0 {
            return None;
        }
        let outer = self.resolve(depth - 1, v)?;
        let name = self.intern(display_of_var(v));
        let f = &mut self.frames[depth];
        let s = f.names.len() as Slot;
        f.names.push(name);
        f.dict.push(is_dict_var(v));
        f.captured.push((v.id, s));
        f.captures.push((outer, s));
        Some(s)
    }

    fn var(&mut self, v: &Var) -> T {
        let depth = self.frames.len() - 1;
        match self.resolve(depth, v) {
            Some(s) => T::Var(s),
            None => {
                if self.error.is_none() {
                    self.error = Some(format!("variable {v} is not in scope"));
                }
                T::Lit(LitV::Int(0))
            }
        }
    }

    /// Compiles a function body in a frame of its own.
    fn code(&mut self, name: Option<&str>, params: &[Var], body: &'c Expr, top: bool) -> CodeId {
        let saved = if top {
            std::mem::take(&mut self.frames)
        } else {
            Vec::new()
        };
        self.frames.push(Frame::default());
        let ps: Vec<Slot> = params.iter().map(|p| self.bind(p)).collect();
        let section = matches!(params, [p] if p.name.starts_with("$sec"));
        let body = self.expr(body);
        let f = self.frames.pop().expect("pushed");
        if top {
            self.frames = saved;
        }
        let name = name.map(|n| self.intern(n));
        let id = self.prog.codes.len() as CodeId;
        self.prog.codes.push(Code {
            name,
            params: ps,
            body,
            frame: frame_info(f),
            section,
        });
        id
    }

    fn lit(&mut self, l: &Lit) -> T {
        match l {
            Lit::Int(n) => T::Lit(LitV::Int(*n)),
            Lit::Integer(n) => T::Lit(LitV::Integer(Z::norm(n.clone()))),
            Lit::Double(d) => T::Lit(LitV::Double(*d)),
            Lit::Char(c) => T::Lit(LitV::Char(*c)),
            Lit::Str(s) => T::Str(Rc::from(&**s)),
        }
    }

    fn con(&mut self, c: &Sym) -> Option<ConId> {
        let id = self.prog.con_ids.get(c).copied();
        if id.is_none() && self.error.is_none() {
            self.error = Some(format!("unknown constructor {c}"));
        }
        id
    }

    fn expr(&mut self, e: &'c Expr) -> T {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(v) => self.var(v),
            Expr::Global(g) => T::Global(self.global(g)),
            Expr::Lit(l) => self.lit(l),
            Expr::Con(c) => match self.con(c) {
                Some(c) => T::Con(c),
                None => T::Lit(LitV::Int(0)),
            },
            Expr::App(f, args) => {
                if let Expr::Con(c) = &**f {
                    if let Some(id) = self.con(c) {
                        let info = &self.prog.cons[id as usize];
                        if info.arity == args.len() && !info.strict.iter().any(|s| *s) {
                            let args = args.iter().map(|a| self.expr(a)).collect();
                            return T::ConApp(id, args);
                        }
                    }
                }
                let dict = is_dict_expr(e);
                let f = self.expr(f);
                let args = args.iter().map(|a| self.expr(a)).collect();
                T::App(Box::new(f), args, dict)
            }
            Expr::Lam(ps, body) => T::Lam(self.code(None, ps, body, false)),
            Expr::Let(b, body) => match &**b {
                Bind::NonRec(v, rhs) => {
                    let rhs = self.let_rhs(v, rhs);
                    let depth = self.frames.len();
                    let s = self.bind(v);
                    let body = self.expr(body);
                    self.unscope(depth, 1);
                    T::Let(vec![(s, rhs)], Box::new(body), false)
                }
                Bind::Rec(bs) => {
                    let depth = self.frames.len();
                    let slots: Vec<Slot> = bs.iter().map(|(v, _)| self.bind(v)).collect();
                    let rhss: Vec<T> = bs.iter().map(|(v, r)| self.let_rhs(v, r)).collect();
                    let body = self.expr(body);
                    self.unscope(depth, bs.len());
                    T::Let(slots.into_iter().zip(rhss).collect(), Box::new(body), true)
                }
            },
            Expr::Case(s, b, alts, def) => {
                let scrut = self.expr(s);
                self.frames.push(Frame::default());
                let binder = self.bind(b);
                let mut out = Vec::new();
                for a in alts {
                    let key = match &a.con {
                        AltCon::Con(c) => AltKey::Con(self.con(c).unwrap_or(0)),
                        AltCon::Lit(l) => match self.lit(l) {
                            T::Lit(l) => AltKey::Lit(l),
                            _ => AltKey::Lit(LitV::Int(i64::MIN)),
                        },
                    };
                    let n = self.frames.last().map_or(0, |f| f.scope.len());
                    let vars: Vec<Slot> = a.vars.iter().map(|v| self.bind(v)).collect();
                    let body = self.expr(&a.body);
                    let binder_used = uses_var(&a.body, b);
                    if let Some(f) = self.frames.last_mut() {
                        f.scope.truncate(n);
                    }
                    out.push(AltT {
                        key,
                        vars,
                        body,
                        binder_used,
                    });
                }
                let default = def.as_ref().map(|d| (self.expr(d), uses_var(d, b)));
                let f = self.frames.pop().expect("pushed");
                let id = self.prog.cases.len() as CaseId;
                self.prog.cases.push(CaseInfo {
                    scrut,
                    binder,
                    alts: out,
                    default,
                    frame: frame_info(f),
                });
                T::Case(id)
            }
        }
    }

    /// A `let` right-hand side: a lambda is named after its variable.
    fn let_rhs(&mut self, v: &Var, rhs: &'c Expr) -> T {
        match rhs {
            Expr::Lam(ps, body) => {
                // A local function: `go`, shown as `sum.go` (its parent's).
                let plain: Rc<str> = Rc::from(display_of_var(v));
                let shown = match &self.parent {
                    Some(p) => format!("{p}.{plain}"),
                    None => plain.to_string(),
                };
                let saved = self.parent.replace(plain);
                let code = self.code(Some(&shown), ps, body, false);
                self.parent = saved;
                T::Lam(code)
            }
            // A method of an instance defined without parameters
            // (`length = go 0`): its local functions are the method's.
            _ if self.in_dict && self.parent.is_none() && !is_dict_var(v) => {
                let plain: Rc<str> = Rc::from(display_of_var(v));
                let saved = self.parent.replace(plain);
                let t = self.expr(rhs);
                self.parent = saved;
                t
            }
            _ => self.expr(rhs),
        }
    }

    fn unscope(&mut self, depth: usize, n: usize) {
        if let Some(f) = self.frames.get_mut(depth - 1) {
            let keep = f.scope.len().saturating_sub(n);
            f.scope.truncate(keep);
        }
    }
}

fn frame_info(f: Frame) -> FrameInfo {
    let mut capture_of = vec![None; f.names.len()];
    for (i, (_, s)) in f.captures.iter().enumerate() {
        capture_of[*s as usize] = Some(i as u32);
    }
    FrameInfo {
        captures: f.captures,
        size: f.names.len(),
        names: f.names,
        dict: f.dict,
        capture_of,
    }
}

/// Whether `e` mentions the variable.
fn uses_var(e: &Expr, v: &Var) -> bool {
    let mut found = false;
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        if let Expr::Local(x) = e {
            if x == v {
                found = true;
                break;
            }
        }
        e.for_each_child(|c| todo.push(c));
    }
    found
}
