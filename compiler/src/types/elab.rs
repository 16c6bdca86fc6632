//! The elaborated program: the renamed program with overloading made
//! explicit (dictionary passing), for the desugarer. See the module
//! documentation of `types` for the meaning of each form.

use super::ty::Global;
use gph_syntax::lexer::Sym;
use gph_syntax::Span;
use num_bigint::BigInt;

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub modules: Vec<Module>,
}

#[derive(Clone, Debug)]
pub struct Module {
    pub name: Sym,
    pub datas: Vec<DataDef>,
    pub classes: Vec<ClassDef>,
    pub instances: Vec<InstanceDef>,
    pub foreigns: Vec<ForeignDef>,
    /// Top-level value bindings (user bindings, then class default methods),
    /// all mutually recursive.
    pub binds: Vec<Binding>,
}

/// A `data` or `newtype` declaration.
#[derive(Clone, Debug)]
pub struct DataDef {
    pub name: Global,
    pub params: usize,
    pub newtype: bool,
    pub cons: Vec<ConDef>,
}

#[derive(Clone, Debug)]
pub struct ConDef {
    pub name: Global,
    /// Position among the constructors of its type (0-based).
    pub tag: usize,
    pub arity: usize,
    /// Per field: declared strict (`!t`).
    pub strict: Vec<bool>,
    /// GADTs: its result fixes its type's parameters (a match refines).
    pub refines: bool,
}

/// A class: the layout of its dictionary record.
#[derive(Clone, Debug)]
pub struct ClassDef {
    pub name: Global,
    /// Fields `0 .. supers.len()`: the superclass dictionaries.
    pub supers: Vec<Global>,
    /// Fields `supers.len() ..`: the methods. Each method's global name is
    /// also a value: the selector (`\d -> field of d`).
    pub methods: Vec<Global>,
    /// Per method: the global binding of its default implementation, if the
    /// class gives one (a function of the class dictionary, in `binds`).
    pub defaults: Vec<Option<Global>>,
}

/// An instance: a dictionary, or a function from the dictionaries of its
/// context to a dictionary.
#[derive(Clone, Debug)]
pub struct InstanceDef {
    pub dfun: Global,
    pub class: Global,
    /// Dictionary parameters, one per constraint of the instance context.
    pub dicts: Vec<Sym>,
    /// The name of the dictionary being built, in scope in `supers` and
    /// `methods` (a recursive binding: methods that use the same instance
    /// refer to it instead of building a new one).
    pub this: Sym,
    /// The superclass dictionaries (fields `0 .. supers.len()`).
    pub supers: Vec<Dict>,
    /// One binding per class method, in the class's order. A method the
    /// instance does not define is the default method applied to `this`, or
    /// `NoMethod`.
    pub methods: Vec<Binding>,
    /// The dictionary is the one parameter itself (an instance derived
    /// through a newtype: the underlying type's dictionary, as newtypes
    /// are erased); `supers` and `methods` are empty.
    pub alias: bool,
}

#[derive(Clone, Debug)]
pub struct ForeignDef {
    pub name: Global,
    pub prim: Sym,
    /// The number of arguments of its type.
    pub arity: usize,
}

/// How a value name is bound.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Name {
    Global(Global),
    /// A local variable (lambda, pattern, let/where binder, or a name made
    /// up by the checker; made-up names start with `$` and cannot clash
    /// with the user's). Ordinary lexical scoping, shadowing possible.
    Local(Sym),
}

#[derive(Clone, Debug)]
pub enum Binding {
    /// `name dicts... = \clauses`: a function (or a variable, when its
    /// clauses have no arguments) that first takes the dictionaries of its
    /// constraints.
    Fun {
        name: Name,
        dicts: Vec<Sym>,
        clauses: Vec<Clause>,
        span: Span,
    },
    /// A pattern binding (lazy, never overloaded).
    Pat { pat: Pat, rhs: Rhs, span: Span },
}

#[derive(Clone, Debug)]
pub struct Clause {
    pub args: Vec<Pat>,
    pub rhs: Rhs,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Rhs {
    pub body: RhsBody,
    /// `where` bindings, in scope in guards and bodies.
    pub wheres: Vec<Binding>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum RhsBody {
    Plain(Expr),
    /// Tried in order; falls through to the next clause/alternative when
    /// no guard holds.
    Guarded(Vec<Guarded>),
}

#[derive(Clone, Debug)]
pub struct Guarded {
    /// Boolean guards (`Stmt::Expr`), pattern guards (`Stmt::Bind`), `let`.
    pub guards: Vec<Stmt>,
    pub body: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Bind(Pat, Expr, Span),
    Let(Vec<Binding>, Span),
    Expr(Expr),
}

#[derive(Clone, Debug)]
pub struct Alt {
    pub pat: Pat,
    pub rhs: Rhs,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Lit {
    /// A `Gph.Prim.Int` (wrapped to 64 bits as `fromInteger` would).
    Int(i64),
    /// A `Gph.Prim.Integer`.
    Integer(BigInt),
    /// A `Gph.Prim.Double`.
    Double(f64),
    Char(char),
    /// A `[Char]`.
    Str(Sym),
    /// A `Prelude.Rational` (`numerator :% denominator`, in lowest terms,
    /// denominator positive): the argument of `fromRational`.
    Rational(BigInt, BigInt),
    /// The `[Char]` "Pattern match failure in do expression at LOC", LOC
    /// being the location of the span in GHC's format (the argument `fail`
    /// gets when a `do` pattern does not match).
    DoFailMsg(Span),
}

#[derive(Clone, Debug)]
pub enum Expr {
    Var(Name, Span),
    /// A data constructor (user, Prelude, or built-in: `[]`, `:`, `()`,
    /// `(,)`, `(,,)`, ... with the empty module name).
    Con(Global, Span),
    Lit(Lit, Span),
    App(Box<Expr>, Box<Expr>, Span),
    Lambda(Vec<Pat>, Box<Expr>, Span),
    Let(Vec<Binding>, Box<Expr>, Span),
    If(Box<Expr>, Box<Expr>, Box<Expr>, Span),
    Case(Box<Expr>, Vec<Alt>, Span),
    Tuple(Vec<Expr>, Span),
    List(Vec<Expr>, Span),
    /// `[e | stmts]` (generators, boolean guards, `let`), lists only.
    Comprehension(Box<Expr>, Vec<Stmt>, Span),
    /// A dictionary passed as an argument.
    Dict(Dict),
    /// A run-time error "No instance nor default method for class operation
    /// METHOD" (the instance's location in the span, GHC's message:
    /// `LOC: No instance nor default method for class operation METHOD`).
    NoMethod(Global, Span),
    /// Checker-internal placeholders; never present in `typecheck`'s result.
    Pending(u32),
}

/// A dictionary expression.
#[derive(Clone, Debug)]
pub enum Dict {
    /// A dictionary parameter (of a binding, an instance, or `this`).
    Var(Sym),
    /// An instance's dictionary function applied to the dictionaries of its
    /// context (none for an instance without context).
    Inst(Global, Vec<Dict>),
    /// Field `index` of a dictionary of class `class`: a superclass.
    Super(Box<Dict>, Global, usize),
    /// A `Typeable` dictionary the checker made (GHC solves Typeable for
    /// every type the same way): the type's constructor and the
    /// dictionaries of its arguments.
    Typeable(Global, Vec<Dict>),
    /// A dictionary that refers to itself: `let name = dict in name`, with
    /// `Var(name)` inside (an instance whose context leads back to the
    /// constraint it solves: `Show (f (Fix f)) => Show (Fix f)`).
    Rec(Sym, Box<Dict>),
    /// Checker-internal; never present in `typecheck`'s result.
    Hole(u32),
}

#[derive(Clone, Debug)]
pub enum Pat {
    Var(Sym, Span),
    Wildcard(Span),
    /// A literal at a primitive type: `Int`, `Integer`, `Double`, `Char`,
    /// `[Char]` (`Lit::Str`); compared with the primitive equality.
    Lit(Lit, Span),
    /// A literal at another type: matches `v` when `eq v value` is `True`
    /// (`eq` is `==` at that type, `value` e.g. `fromInteger d 3`).
    Overloaded {
        eq: Box<Expr>,
        value: Box<Expr>,
        span: Span,
    },
    /// A constructor pattern (user, Prelude or built-in `[]`, `:`, `()`,
    /// tuples); always with all its arguments.
    Con(Global, Vec<Pat>, Span),
    Tuple(Vec<Pat>, Span),
    List(Vec<Pat>, Span),
    As(Sym, Box<Pat>, Span),
    Lazy(Box<Pat>, Span),
    Bang(Box<Pat>, Span),
    /// A view pattern: matches `v` when `f v` matches the pattern.
    View(Box<Expr>, Box<Pat>, Span),
    /// Checker-internal; never present in `typecheck`'s result.
    Pending(u32, Span),
}

impl Pat {
    pub fn span(&self) -> Span {
        match self {
            Pat::Var(_, s)
            | Pat::Wildcard(s)
            | Pat::Lit(_, s)
            | Pat::Overloaded { span: s, .. }
            | Pat::Con(_, _, s)
            | Pat::Tuple(_, s)
            | Pat::List(_, s)
            | Pat::As(_, _, s)
            | Pat::Lazy(_, s)
            | Pat::Bang(_, s)
            | Pat::View(_, _, s)
            | Pat::Pending(_, s) => *s,
        }
    }
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Var(_, s)
            | Expr::Con(_, s)
            | Expr::Lit(_, s)
            | Expr::App(_, _, s)
            | Expr::Lambda(_, _, s)
            | Expr::Let(_, _, s)
            | Expr::If(_, _, _, s)
            | Expr::Case(_, _, s)
            | Expr::Tuple(_, s)
            | Expr::List(_, s)
            | Expr::Comprehension(_, _, s)
            | Expr::NoMethod(_, s) => *s,
            Expr::Dict(_) | Expr::Pending(_) => Span::default(),
        }
    }
    pub fn app(f: Expr, a: Expr, span: Span) -> Expr {
        Expr::App(Box::new(f), Box::new(a), span)
    }
    pub fn global(g: Global, span: Span) -> Expr {
        Expr::Var(Name::Global(g), span)
    }
    pub fn local(s: Sym, span: Span) -> Expr {
        Expr::Var(Name::Local(s), span)
    }
}

// ---------------------------------------------------------------- printing

use std::fmt::{self, Write};

impl fmt::Display for Dict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dict::Var(v) => write!(f, "{v}"),
            Dict::Inst(g, args) if args.is_empty() => write!(f, "{g}"),
            Dict::Inst(g, args) => {
                write!(f, "({g}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                write!(f, ")")
            }
            Dict::Super(d, c, i) => write!(f, "{d}.{}#{i}", c.name),
            Dict::Typeable(g, args) => {
                write!(f, "(Typeable {g}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                write!(f, ")")
            }
            Dict::Rec(n, d) => write!(f, "(rec {n} = {d})"),
            Dict::Hole(h) => write!(f, "?hole{h}"),
        }
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Name::Global(g) => write!(f, "{g}"),
            Name::Local(s) => write!(f, "{s}"),
        }
    }
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lit::Int(i) => write!(f, "{i}#Int"),
            Lit::Integer(i) => write!(f, "{i}#Integer"),
            Lit::Double(d) => write!(f, "{d:?}#Double"),
            Lit::Char(c) => write!(f, "{c:?}"),
            Lit::Str(s) => write!(f, "{:?}", &**s),
            Lit::Rational(n, d) => write!(f, "({n} % {d})#Rational"),
            Lit::DoFailMsg(_) => write!(f, "<do pattern failure message>"),
        }
    }
}

/// A compact, Haskell-like rendering of the elaborated program (for
/// debugging and tests): dictionary arguments in braces.
pub struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn expr(&self, e: &Expr, prec: u8) -> String {
        gph_syntax::stack::guard();
        let mut s = String::new();
        let paren = |s: String, p: bool| if p { format!("({s})") } else { s };
        match e {
            Expr::Var(n, _) => s.push_str(&n.to_string()),
            Expr::Con(g, _) => s.push_str(&g.to_string()),
            Expr::Lit(l, _) => s.push_str(&l.to_string()),
            Expr::Dict(d) => {
                let _ = write!(s, "{{{d}}}");
            }
            Expr::NoMethod(g, _) => {
                let _ = write!(s, "<no method {g}>");
            }
            Expr::Pending(i) => {
                let _ = write!(s, "<pending {i}>");
            }
            Expr::App(..) => {
                let mut args = Vec::new();
                let mut h = e;
                while let Expr::App(f, a, _) = h {
                    args.push(&**a);
                    h = f;
                }
                args.reverse();
                let mut t = self.expr(h, 2);
                for a in args {
                    t.push(' ');
                    t.push_str(&self.expr(a, 2));
                }
                return paren(t, prec >= 2);
            }
            Expr::Lambda(ps, b, _) => {
                let ps: Vec<String> = ps.iter().map(|p| self.pat(p, 2)).collect();
                return paren(
                    format!("\\{} -> {}", ps.join(" "), self.expr(b, 0)),
                    prec >= 1,
                );
            }
            Expr::Let(bs, b, _) => {
                let bs: Vec<String> = bs.iter().map(|x| self.binding_inline(x)).collect();
                return paren(
                    format!("let {{ {} }} in {}", bs.join("; "), self.expr(b, 0)),
                    prec >= 1,
                );
            }
            Expr::If(c, t, f, _) => {
                return paren(
                    format!(
                        "if {} then {} else {}",
                        self.expr(c, 0),
                        self.expr(t, 0),
                        self.expr(f, 0)
                    ),
                    prec >= 1,
                )
            }
            Expr::Case(sc, alts, _) => {
                let alts: Vec<String> = alts
                    .iter()
                    .map(|a| format!("{} -> {}", self.pat(&a.pat, 0), self.rhs_inline(&a.rhs)))
                    .collect();
                return paren(
                    format!("case {} of {{ {} }}", self.expr(sc, 0), alts.join("; ")),
                    prec >= 1,
                );
            }
            Expr::Tuple(es, _) => {
                let es: Vec<String> = es.iter().map(|x| self.expr(x, 0)).collect();
                let _ = write!(s, "({})", es.join(", "));
            }
            Expr::List(es, _) => {
                let es: Vec<String> = es.iter().map(|x| self.expr(x, 0)).collect();
                let _ = write!(s, "[{}]", es.join(", "));
            }
            Expr::Comprehension(b, ss, _) => {
                let ss: Vec<String> = ss.iter().map(|x| self.stmt(x)).collect();
                let _ = write!(s, "[{} | {}]", self.expr(b, 0), ss.join(", "));
            }
        }
        s
    }

    fn stmt(&self, s: &Stmt) -> String {
        match s {
            Stmt::Bind(p, e, _) => format!("{} <- {}", self.pat(p, 0), self.expr(e, 0)),
            Stmt::Let(bs, _) => {
                let bs: Vec<String> = bs.iter().map(|x| self.binding_inline(x)).collect();
                format!("let {{ {} }}", bs.join("; "))
            }
            Stmt::Expr(e) => self.expr(e, 0),
        }
    }

    fn pat(&self, p: &Pat, prec: u8) -> String {
        gph_syntax::stack::guard();
        match p {
            Pat::Var(v, _) => v.to_string(),
            Pat::Wildcard(_) => "_".into(),
            Pat::Lit(l, _) => l.to_string(),
            Pat::Overloaded { eq, value, .. } => {
                format!("<{} == {}>", self.expr(eq, 2), self.expr(value, 2))
            }
            Pat::Con(c, ps, _) if ps.is_empty() => c.to_string(),
            Pat::Con(c, ps, _) => {
                let ps: Vec<String> = ps.iter().map(|x| self.pat(x, 2)).collect();
                let s = format!("{c} {}", ps.join(" "));
                if prec >= 2 {
                    format!("({s})")
                } else {
                    s
                }
            }
            Pat::Tuple(ps, _) => {
                let ps: Vec<String> = ps.iter().map(|x| self.pat(x, 0)).collect();
                format!("({})", ps.join(", "))
            }
            Pat::List(ps, _) => {
                let ps: Vec<String> = ps.iter().map(|x| self.pat(x, 0)).collect();
                format!("[{}]", ps.join(", "))
            }
            Pat::As(v, p, _) => format!("{v}@{}", self.pat(p, 2)),
            Pat::Lazy(p, _) => format!("~{}", self.pat(p, 2)),
            Pat::Bang(p, _) => format!("!{}", self.pat(p, 2)),
            Pat::View(f, p, _) => format!("({} -> {})", self.expr(f, 0), self.pat(p, 0)),
            Pat::Pending(i, _) => format!("<pending {i}>"),
        }
    }

    fn rhs_inline(&self, r: &Rhs) -> String {
        let mut s = match &r.body {
            RhsBody::Plain(e) => self.expr(e, 0),
            RhsBody::Guarded(gs) => gs
                .iter()
                .map(|g| {
                    let gs: Vec<String> = g.guards.iter().map(|x| self.stmt(x)).collect();
                    format!("| {} = {}", gs.join(", "), self.expr(&g.body, 0))
                })
                .collect::<Vec<_>>()
                .join(" "),
        };
        if !r.wheres.is_empty() {
            let ws: Vec<String> = r.wheres.iter().map(|x| self.binding_inline(x)).collect();
            let _ = write!(s, " where {{ {} }}", ws.join("; "));
        }
        s
    }

    fn binding_inline(&self, b: &Binding) -> String {
        self.binding_clauses(b).join("; ")
    }

    fn binding_clauses(&self, b: &Binding) -> Vec<String> {
        match b {
            Binding::Fun {
                name,
                dicts,
                clauses,
                ..
            } => {
                let head = std::iter::once(name.to_string())
                    .chain(dicts.iter().map(|d| format!("{{{d}}}")))
                    .collect::<Vec<_>>()
                    .join(" ");
                clauses
                    .iter()
                    .map(|c| {
                        let args: Vec<String> = c.args.iter().map(|p| self.pat(p, 2)).collect();
                        let sep = if args.is_empty() { "" } else { " " };
                        format!(
                            "{head}{sep}{} = {}",
                            args.join(" "),
                            self.rhs_inline(&c.rhs)
                        )
                    })
                    .collect()
            }
            Binding::Pat { pat, rhs, .. } => {
                vec![format!("{} = {}", self.pat(pat, 0), self.rhs_inline(rhs))]
            }
        }
    }

    fn binding(&mut self, b: &Binding) {
        for c in self.binding_clauses(b) {
            self.line(&c);
        }
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer {
            out: String::new(),
            indent: 0,
        };
        for d in &self.datas {
            let cons: Vec<String> = d
                .cons
                .iter()
                .map(|c| {
                    let fields: Vec<&str> = c
                        .strict
                        .iter()
                        .map(|&s| if s { "!_" } else { "_" })
                        .collect();
                    format!("{} {}", c.name, fields.join(" "))
                        .trim_end()
                        .to_string()
                })
                .collect();
            let kw = if d.newtype { "newtype" } else { "data" };
            p.line(&format!(
                "{kw} {}/{} = {}",
                d.name,
                d.params,
                cons.join(" | ")
            ));
        }
        for c in &self.classes {
            let supers: Vec<String> = c.supers.iter().map(|s| s.to_string()).collect();
            let methods: Vec<String> = c
                .methods
                .iter()
                .zip(&c.defaults)
                .map(|(m, d)| match d {
                    Some(d) => format!("{} (default {d})", m.name),
                    None => m.name.to_string(),
                })
                .collect();
            p.line(&format!(
                "class {} {{ supers: [{}]; methods: [{}] }}",
                c.name,
                supers.join(", "),
                methods.join(", ")
            ));
        }
        for i in &self.instances {
            let dicts: Vec<String> = i.dicts.iter().map(|d| format!("{{{d}}}")).collect();
            p.line(&format!(
                "instance {} {} {} = {} where",
                i.class,
                i.dfun,
                dicts.join(" "),
                i.this
            ));
            p.indent += 1;
            for (k, s) in i.supers.iter().enumerate() {
                p.line(&format!("super#{k} = {s}"));
            }
            for m in &i.methods {
                p.binding(m);
            }
            p.indent -= 1;
        }
        for fd in &self.foreigns {
            p.line(&format!(
                "foreign {} = prim {:?}/{}",
                fd.name, &*fd.prim, fd.arity
            ));
        }
        for b in &self.binds {
            p.binding(b);
        }
        write!(f, "{}", p.out)
    }
}
