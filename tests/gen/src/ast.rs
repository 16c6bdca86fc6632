//! The syntax of generated programs. Every expression and pattern carries
//! its type, so the shrinker can replace a subexpression by a simpler one of
//! the same type; `det` says whether the expression's type is fixed without
//! help from its context (no ambiguity if it is used where the type is
//! otherwise free, as the argument of `show`).

use crate::ty::{Class, Ty};

#[derive(Clone, Debug)]
pub struct Program {
    pub module_header: bool,
    /// Whole-module imports instead of import lists.
    pub open_imports: bool,
    pub fixities: Vec<Fixity>,
    pub datas: Vec<DataDecl>,
    pub decls: Vec<Bind>,
    pub main: Vec<Stmt>,
    /// The last statement of `main` fails at run time (exit status 1).
    pub fails_at_run_time: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assoc {
    Left,
    Right,
    None,
}

#[derive(Clone, Debug)]
pub struct Fixity {
    pub assoc: Assoc,
    pub prec: u8,
    pub op: String,
}

#[derive(Clone, Debug)]
pub struct DataDecl {
    pub name: String,
    pub params: Vec<String>,
    pub newtype: bool,
    pub cons: Vec<ConDecl>,
    pub deriving: Vec<Class>,
}

#[derive(Clone, Debug)]
pub struct ConDecl {
    pub name: String,
    /// (type over the params, strict)
    pub fields: Vec<(Ty, bool)>,
}

impl ConDecl {
    pub fn is_infix(&self) -> bool {
        self.name.starts_with(':')
    }
}

/// A type signature `forall vars. ctx => ty`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sig {
    pub ctx: Vec<(Class, String)>,
    pub ty: Ty,
}

#[derive(Clone, Debug)]
pub enum Bind {
    /// `name p1 .. pn = ...` (n may be 0: a value), with an optional signature.
    Fun(FunBind),
    /// `pat = expr`
    Pat(Pat, Expr),
}

#[derive(Clone, Debug)]
pub struct FunBind {
    pub name: String,
    pub sig: Option<Sig>,
    pub clauses: Vec<Clause>,
}

#[derive(Clone, Debug)]
pub struct Clause {
    pub pats: Vec<Pat>,
    pub rhs: Rhs,
    pub wheres: Vec<Bind>,
}

#[derive(Clone, Debug)]
pub enum Rhs {
    Plain(Expr),
    /// `| g1 = e1 | g2 = e2`
    Guarded(Vec<(Expr, Expr)>),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: E,
    pub ty: Ty,
    pub det: bool,
}

#[derive(Clone, Debug)]
pub enum Lit {
    /// An integral literal (maybe negative, maybe big); its type is the expression's.
    Num(String),
    /// A fractional literal as written (`2.5`, `1.0e-2`).
    Frac(String),
    Char(char),
    Str(String),
}

#[derive(Clone, Debug)]
pub enum E {
    /// A variable, a function, or a library name (operators too: `+`).
    Var(String),
    /// A constructor (`Just`, `True`, `[]`, `:`, `A1`, `:+:`).
    Con(String),
    Lit(Lit),
    /// Prefix application; an operator applied to two arguments prints infix,
    /// to one as a left section.
    App(Box<Expr>, Vec<Expr>),
    /// `a `f` b` or `a + b`: infix application of a name.
    Op(String, Box<Expr>, Box<Expr>),
    /// `(op e)`: a right section.
    SectionR(String, Box<Expr>),
    /// `(- e)`
    Neg(Box<Expr>),
    Lam(Vec<Pat>, Box<Expr>),
    Let(Vec<Bind>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Case(Box<Expr>, Vec<Alt>),
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    /// `[from ..]`, `[from, then ..]`, `[from .. to]`, `[from, then .. to]`
    Range(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    Comp(Box<Expr>, Vec<Qual>),
    Do(Vec<Stmt>),
    /// `(e :: T)`
    Ann(Box<Expr>, Ty),
}

#[derive(Clone, Debug)]
pub struct Alt {
    pub pat: Pat,
    pub rhs: Rhs,
}

#[derive(Clone, Debug)]
pub enum Qual {
    Gen(Pat, Expr),
    Guard(Expr),
    Let(Vec<Bind>),
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Expr(Expr),
    Bind(Pat, Expr),
    Let(Vec<Bind>),
}

#[derive(Clone, Debug)]
pub struct Pat {
    pub kind: P,
    pub ty: Ty,
}

#[derive(Clone, Debug)]
pub enum P {
    Var(String),
    Wild,
    Lit(Lit),
    /// Constructor with arguments; `:` and `:+:` print infix.
    Con(String, Vec<Pat>),
    Tuple(Vec<Pat>),
    List(Vec<Pat>),
    As(String, Box<Pat>),
    Lazy(Box<Pat>),
}

impl Expr {
    pub fn new(kind: E, ty: Ty, det: bool) -> Expr {
        Expr { kind, ty, det }
    }
    pub fn var(name: &str, ty: Ty, det: bool) -> Expr {
        Expr::new(E::Var(name.to_string()), ty, det)
    }
    pub fn con(name: &str, ty: Ty, det: bool) -> Expr {
        Expr::new(E::Con(name.to_string()), ty, det)
    }
    pub fn app(f: Expr, args: Vec<Expr>, ty: Ty, det: bool) -> Expr {
        if args.is_empty() {
            return Expr { ty, det, ..f };
        }
        Expr::new(E::App(Box::new(f), args), ty, det)
    }
    pub fn op(name: &str, a: Expr, b: Expr, ty: Ty, det: bool) -> Expr {
        Expr::new(E::Op(name.to_string(), Box::new(a), Box::new(b)), ty, det)
    }
    pub fn ann(e: Expr) -> Expr {
        let ty = e.ty.clone();
        Expr::new(E::Ann(Box::new(e), ty.clone()), ty, true)
    }
    pub fn str(s: &str) -> Expr {
        Expr::new(E::Lit(Lit::Str(s.to_string())), Ty::string(), true)
    }
    pub fn int(n: i64, ty: Ty) -> Expr {
        Expr::new(E::Lit(Lit::Num(n.to_string())), ty, false)
    }

    /// How many expressions `self` has, bindings and alternatives included.
    pub fn size(&self) -> usize {
        let mut n = 0;
        self.walk(&mut |_| n += 1);
        n
    }

    /// Visits every expression in `self`, bindings and alternatives included.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        self.walk_pruned(&mut |e| {
            f(e);
            true
        })
    }
}

impl Clause {
    /// A clause without `where` bindings.
    pub fn new(pats: Vec<Pat>, rhs: Rhs) -> Clause {
        Clause {
            pats,
            rhs,
            wheres: vec![],
        }
    }
}

impl Bind {
    /// `name = rhs`, with a signature or not.
    pub fn value(name: &str, sig: Option<Sig>, rhs: Expr) -> Bind {
        Bind::Fun(FunBind {
            name: name.to_string(),
            sig,
            clauses: vec![Clause::new(vec![], Rhs::Plain(rhs))],
        })
    }

    /// The names this binding defines.
    pub fn binders(&self) -> Vec<String> {
        match self {
            Bind::Fun(fb) => vec![fb.name.clone()],
            Bind::Pat(p, _) => p.binders(),
        }
    }
}

impl Pat {
    pub fn new(kind: P, ty: Ty) -> Pat {
        Pat { kind, ty }
    }
    pub fn var(name: &str, ty: Ty) -> Pat {
        Pat::new(P::Var(name.to_string()), ty)
    }
    pub fn wild(ty: Ty) -> Pat {
        Pat::new(P::Wild, ty)
    }

    pub fn binders(&self) -> Vec<String> {
        let mut v = Vec::new();
        self.collect(&mut v);
        v
    }

    fn collect(&self, v: &mut Vec<String>) {
        match &self.kind {
            P::Var(n) => v.push(n.clone()),
            P::Wild | P::Lit(_) => {}
            P::Con(_, ps) | P::Tuple(ps) | P::List(ps) => ps.iter().for_each(|p| p.collect(v)),
            P::As(n, p) => {
                v.push(n.clone());
                p.collect(v);
            }
            P::Lazy(p) => p.collect(v),
        }
    }

    /// The variables bound, with their types.
    pub fn typed_binders(&self, v: &mut Vec<(String, Ty)>) {
        match &self.kind {
            P::Var(n) => v.push((n.clone(), self.ty.clone())),
            P::Wild | P::Lit(_) => {}
            P::Con(_, ps) | P::Tuple(ps) | P::List(ps) => {
                ps.iter().for_each(|p| p.typed_binders(v))
            }
            P::As(n, p) => {
                v.push((n.clone(), self.ty.clone()));
                p.typed_binders(v);
            }
            P::Lazy(p) => p.typed_binders(v),
        }
    }

    /// Matches every value (no constructor or literal to test).
    pub fn irrefutable(&self) -> bool {
        match &self.kind {
            P::Var(_) | P::Wild | P::Lazy(_) => true,
            P::Tuple(ps) => ps.iter().all(|p| p.irrefutable()),
            P::As(_, p) => p.irrefutable(),
            _ => false,
        }
    }
}

impl Program {
    /// Visits every expression of the declarations and of `main`.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        self.walk_pruned(&mut |e| {
            f(e);
            true
        })
    }
}

/// The pre-order walks over expressions, bindings and alternatives
/// included: `f` returns false to skip the children of the node it was
/// given. `walk_pruned` and `walk_mut` have this one body, so the numbering
/// of nodes the shrinker takes from one holds in the other.
macro_rules! walks {
    ($walk:ident $($mut_:tt)?) => {
        impl Expr {
            pub fn $walk(&$($mut_)? self, f: &mut dyn FnMut(&$($mut_)? Expr) -> bool) {
                if !f(self) {
                    return;
                }
                match &$($mut_)? self.kind {
                    E::Var(_) | E::Con(_) | E::Lit(_) => {}
                    E::App(g, args) => {
                        g.$walk(f);
                        for a in args {
                            a.$walk(f);
                        }
                    }
                    E::Op(_, a, b) => {
                        a.$walk(f);
                        b.$walk(f);
                    }
                    E::SectionR(_, a) | E::Neg(a) | E::Ann(a, _) | E::Lam(_, a) => a.$walk(f),
                    E::Let(bs, body) => {
                        for b in bs {
                            b.$walk(f);
                        }
                        body.$walk(f);
                    }
                    E::If(c, t, e) => {
                        c.$walk(f);
                        t.$walk(f);
                        e.$walk(f);
                    }
                    E::Case(s, alts) => {
                        s.$walk(f);
                        for a in alts {
                            a.rhs.$walk(f);
                        }
                    }
                    E::Tuple(es) | E::List(es) => {
                        for e in es {
                            e.$walk(f);
                        }
                    }
                    E::Range(a, b, c) => {
                        a.$walk(f);
                        if let Some(b) = b {
                            b.$walk(f);
                        }
                        if let Some(c) = c {
                            c.$walk(f);
                        }
                    }
                    E::Comp(e, qs) => {
                        e.$walk(f);
                        for q in qs {
                            match q {
                                Qual::Gen(_, e) | Qual::Guard(e) => e.$walk(f),
                                Qual::Let(bs) => {
                                    for b in bs {
                                        b.$walk(f);
                                    }
                                }
                            }
                        }
                    }
                    E::Do(ss) => {
                        for s in ss {
                            s.$walk(f);
                        }
                    }
                }
            }
        }

        impl Rhs {
            pub fn $walk(&$($mut_)? self, f: &mut dyn FnMut(&$($mut_)? Expr) -> bool) {
                match self {
                    Rhs::Plain(e) => e.$walk(f),
                    Rhs::Guarded(gs) => {
                        for (g, e) in gs {
                            g.$walk(f);
                            e.$walk(f);
                        }
                    }
                }
            }
        }

        impl Bind {
            pub fn $walk(&$($mut_)? self, f: &mut dyn FnMut(&$($mut_)? Expr) -> bool) {
                match self {
                    Bind::Fun(fb) => {
                        for c in &$($mut_)? fb.clauses {
                            c.rhs.$walk(f);
                            for w in &$($mut_)? c.wheres {
                                w.$walk(f);
                            }
                        }
                    }
                    Bind::Pat(_, e) => e.$walk(f),
                }
            }
        }

        impl Stmt {
            pub fn $walk(&$($mut_)? self, f: &mut dyn FnMut(&$($mut_)? Expr) -> bool) {
                match self {
                    Stmt::Expr(e) | Stmt::Bind(_, e) => e.$walk(f),
                    Stmt::Let(bs) => {
                        for b in bs {
                            b.$walk(f);
                        }
                    }
                }
            }
        }

        impl Program {
            pub fn $walk(&$($mut_)? self, f: &mut dyn FnMut(&$($mut_)? Expr) -> bool) {
                for b in &$($mut_)? self.decls {
                    b.$walk(f);
                }
                for s in &$($mut_)? self.main {
                    s.$walk(f);
                }
            }
        }
    };
}

walks!(walk_pruned);
walks!(walk_mut mut);
