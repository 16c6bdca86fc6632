//! Core: the small explicit language the front end produces and the back end
//! (lambda lifting, code generation) consumes.
//!
//! Variables, literals, constructors, application, lambda, `let`/`letrec`,
//! and `case` on one constructor level with a default. Pattern matching,
//! guards, `where`, comprehensions and `do` are gone, and so is overloading:
//! dictionaries are ordinary values (see `desugar`). A class `C` is a data
//! type `C` with one constructor `D:C` (superclass dictionaries, then
//! methods); its methods are selector functions; instances are top-level
//! dictionaries (or functions from the dictionaries of their context to
//! one); an overloaded function takes its dictionaries as its first
//! arguments.
//!
//! A [`Program`] is one recursive group of every module's bindings;
//! [`crate::core::lint`] checks that it is closed and keeps its invariants.

use gph_syntax::lexer::Sym;
use num_bigint::BigInt;
use std::fmt::{self, Write};

/// A local variable: its source name (for printing) and a unique number.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Var {
    pub name: Sym,
    pub id: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Int(i64),
    Integer(BigInt),
    Double(f64),
    Char(char),
    /// A string literal, unpacked lazily into a list of characters.
    Str(Sym),
}

#[derive(Clone, Debug)]
pub enum Expr {
    Local(Var),
    /// A top-level value by its original name, `Module.name`.
    Global(Sym),
    Lit(Lit),
    /// A data constructor by its original name (a function of its fields).
    Con(Sym),
    App(Box<Expr>, Vec<Expr>),
    Lam(Vec<Var>, Box<Expr>),
    Let(Box<Bind>, Box<Expr>),
    /// `case e of b { alts; _ -> default }`: evaluates `e` to weak head normal
    /// form, binds it to `b`, and picks an alternative.
    Case(Box<Expr>, Var, Vec<Alt>, Option<Box<Expr>>),
}

#[derive(Clone, Debug)]
pub enum Bind {
    NonRec(Var, Expr),
    Rec(Vec<(Var, Expr)>),
}

#[derive(Clone, Debug)]
pub struct Alt {
    pub con: AltCon,
    pub vars: Vec<Var>,
    pub body: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AltCon {
    Con(Sym),
    Lit(Lit),
}

/// A data type's constructors, in declaration order (the order gives the tags).
#[derive(Clone, Debug)]
pub struct DataType {
    pub name: Sym,
    pub constrs: Vec<Constr>,
}

#[derive(Clone, Debug)]
pub struct Constr {
    pub name: Sym,
    pub arity: usize,
    pub strict: Vec<bool>,
    /// A GADT constructor whose result fixes its type's parameters: in its
    /// alternatives a variable may have another type than outside (the
    /// strictness analysis takes no evidence on representations from them).
    pub refines: bool,
}

/// A whole program: data types and top-level bindings (one recursive group).
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub data: Vec<DataType>,
    pub binds: Vec<(Sym, Expr)>,
    /// Runtime primitives: (original name, primitive name, arity).
    pub prims: Vec<(Sym, Sym, usize)>,
}

impl Expr {
    /// The same node with `f` applied to each direct sub-expression: the
    /// default case of a bottom-up rewrite, so each pass writes only the
    /// nodes it changes.
    pub fn map_children(&self, mut f: impl FnMut(&Expr) -> Expr) -> Expr {
        gph_syntax::stack::guard();
        match self {
            Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => self.clone(),
            Expr::App(h, args) => Expr::App(Box::new(f(h)), args.iter().map(&mut f).collect()),
            Expr::Lam(vs, b) => Expr::Lam(vs.clone(), Box::new(f(b))),
            Expr::Let(b, body) => {
                let b = match &**b {
                    Bind::NonRec(v, r) => Bind::NonRec(v.clone(), f(r)),
                    Bind::Rec(bs) => Bind::Rec(bs.iter().map(|(v, r)| (v.clone(), f(r))).collect()),
                };
                Expr::Let(Box::new(b), Box::new(f(body)))
            }
            Expr::Case(s, b, alts, d) => Expr::Case(
                Box::new(f(s)),
                b.clone(),
                alts.iter()
                    .map(|a| Alt {
                        con: a.con.clone(),
                        vars: a.vars.clone(),
                        body: f(&a.body),
                    })
                    .collect(),
                d.as_ref().map(|d| Box::new(f(d))),
            ),
        }
    }

    /// Calls `f` on each direct sub-expression (the default case of a walk).
    pub fn for_each_child<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        gph_syntax::stack::guard();
        match self {
            Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => {}
            Expr::App(h, args) => {
                f(h);
                args.iter().for_each(f);
            }
            Expr::Lam(_, b) => f(b),
            Expr::Let(b, body) => {
                match &**b {
                    Bind::NonRec(_, r) => f(r),
                    Bind::Rec(bs) => bs.iter().for_each(|(_, r)| f(r)),
                }
                f(body)
            }
            Expr::Case(s, _, alts, d) => {
                f(s);
                alts.iter().for_each(|a| f(&a.body));
                if let Some(d) = d {
                    f(d)
                }
            }
        }
    }

    /// Calls `f` on each direct sub-expression, which it may change.
    pub fn for_each_child_mut(&mut self, mut f: impl FnMut(&mut Expr)) {
        gph_syntax::stack::guard();
        match self {
            Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => {}
            Expr::App(h, args) => {
                f(h);
                args.iter_mut().for_each(f);
            }
            Expr::Lam(_, b) => f(b),
            Expr::Let(b, body) => {
                match &mut **b {
                    Bind::NonRec(_, r) => f(r),
                    Bind::Rec(bs) => bs.iter_mut().for_each(|(_, r)| f(r)),
                }
                f(body)
            }
            Expr::Case(s, _, alts, d) => {
                f(s);
                alts.iter_mut().for_each(|a| f(&mut a.body));
                if let Some(d) = d {
                    f(d)
                }
            }
        }
    }

    pub fn app(f: Expr, args: Vec<Expr>) -> Expr {
        if args.is_empty() {
            return f;
        }
        match f {
            Expr::App(g, mut a) => {
                a.extend(args);
                Expr::App(g, a)
            }
            f => Expr::App(Box::new(f), args),
        }
    }
    pub fn global(name: &str) -> Expr {
        Expr::Global(Sym::from(name))
    }
}

// ------------------------------------------------------------ printing

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.name, self.id)
    }
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lit::Int(n) => write!(f, "{n}#"),
            Lit::Integer(n) => write!(f, "{n}"),
            Lit::Double(d) => write!(f, "{d:?}##"),
            Lit::Char(c) => write!(f, "{c:?}"),
            Lit::Str(s) => write!(f, "{:?}", &**s),
        }
    }
}

fn name(s: &str) -> String {
    // Operators print in parentheses, as in Haskell; generated names
    // (`$fShowInt`, `$p1Ord`) and built-in syntax (`[]`, `(,)`) do not.
    let (_, last) = gph_code::split_qual(s);
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let generated = last.starts_with('$') && last[1..].starts_with(ident);
    if !last.is_empty()
        && !generated
        && !last.starts_with(|c: char| ident(c) || c == '(' || c == '[')
    {
        format!("({s})")
    } else {
        s.to_string()
    }
}

struct Printer {
    out: String,
}

impl Printer {
    fn nl(&mut self, indent: usize) {
        self.out.push('\n');
        for _ in 0..indent {
            self.out.push(' ');
        }
    }

    fn atom(&mut self, e: &Expr, indent: usize) {
        match e {
            Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => self.expr(e, indent),
            _ => {
                self.out.push('(');
                self.expr(e, indent + 1);
                self.out.push(')');
            }
        }
    }

    fn expr(&mut self, e: &Expr, indent: usize) {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(v) => {
                let _ = write!(self.out, "{v}");
            }
            Expr::Global(g) => self.out.push_str(&name(g)),
            Expr::Con(c) => self.out.push_str(&name(c)),
            Expr::Lit(l) => {
                let _ = write!(self.out, "{l}");
            }
            Expr::App(f, args) => {
                self.atom(f, indent);
                for a in args {
                    self.out.push(' ');
                    self.atom(a, indent);
                }
            }
            Expr::Lam(vs, body) => {
                self.out.push('\\');
                let names: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
                self.out.push_str(&names.join(" "));
                self.out.push_str(" ->");
                self.nl(indent + 2);
                self.expr(body, indent + 2);
            }
            Expr::Let(b, body) => {
                match &**b {
                    Bind::NonRec(v, e) => {
                        let _ = write!(self.out, "let {v} = ");
                        self.expr(e, indent + 4);
                    }
                    Bind::Rec(bs) => {
                        self.out.push_str("letrec");
                        for (v, e) in bs {
                            self.nl(indent + 2);
                            let _ = write!(self.out, "{v} = ");
                            self.expr(e, indent + 4);
                        }
                    }
                }
                self.nl(indent);
                self.out.push_str("in ");
                self.expr(body, indent + 3);
            }
            Expr::Case(scrut, b, alts, def) => {
                self.out.push_str("case ");
                self.expr(scrut, indent + 5);
                let _ = write!(self.out, " of {b} {{");
                for a in alts {
                    self.nl(indent + 2);
                    match &a.con {
                        AltCon::Con(c) => self.out.push_str(&name(c)),
                        AltCon::Lit(l) => {
                            let _ = write!(self.out, "{l}");
                        }
                    }
                    for v in &a.vars {
                        let _ = write!(self.out, " {v}");
                    }
                    self.out.push_str(" ->");
                    self.nl(indent + 4);
                    self.expr(&a.body, indent + 4);
                }
                if let Some(d) = def {
                    self.nl(indent + 2);
                    self.out.push_str("_ ->");
                    self.nl(indent + 4);
                    self.expr(d, indent + 4);
                }
                self.nl(indent);
                self.out.push('}');
            }
        }
    }
}

/// Prints an expression as readable, Haskell-like text.
pub fn show_expr(e: &Expr) -> String {
    let mut p = Printer { out: String::new() };
    p.expr(e, 0);
    p.out
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.data {
            let cons: Vec<String> = d
                .constrs
                .iter()
                .map(|c| {
                    let fields: String = c
                        .strict
                        .iter()
                        .map(|s| if *s { " !_" } else { " _" })
                        .collect();
                    format!("{}{}", name(&c.name), fields)
                })
                .collect();
            writeln!(f, "data {} = {}", d.name, cons.join(" | "))?;
        }
        if !self.data.is_empty() {
            writeln!(f)?;
        }
        for (n, e) in &self.binds {
            let mut p = Printer { out: String::new() };
            p.expr(e, 2);
            writeln!(f, "{} =\n  {}\n", name(n), p.out)?;
        }
        Ok(())
    }
}
