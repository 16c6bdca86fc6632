//! The syntax tree the parser produces. Every node carries its span.
//!
//! Operator applications come out of the parser as flat chains (`Expr::OpChain`,
//! `Pat::OpChain`); the fixity pass in the compiler rebuilds them into trees once
//! all fixity declarations are known. Patterns are parsed as expressions and then
//! converted (see `parse::expr_to_pat`), as GHC does.

use crate::lexer::Sym;
use crate::span::Span;

/// A possibly qualified name as written: `map`, `M.map`, `+`, `Data.List.sort`.
#[derive(Clone, Debug, PartialEq)]
pub struct QName {
    pub qual: Option<Sym>,
    pub name: Sym,
    pub span: Span,
}

impl QName {
    pub fn unqual(name: Sym, span: Span) -> QName {
        QName {
            qual: None,
            name,
            span,
        }
    }
    /// Whether this names a constructor (or a type/class): upper case or starts with `:`.
    pub fn is_con(&self) -> bool {
        is_con_name(&self.name)
    }
    pub fn is_operator(&self) -> bool {
        is_operator_name(&self.name)
    }
}

pub fn is_con_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_uppercase() || c == ':' || c == '(' || c == '[')
}

pub fn is_operator_name(s: &str) -> bool {
    !s.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '(' || c == '[')
}

impl std::fmt::Display for QName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.qual {
            Some(q) => write!(f, "{q}.{}", self.name),
            None => write!(f, "{}", self.name),
        }
    }
}

/// An unqualified name at its binding site.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: Sym,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Module {
    pub name: Option<Ident>,
    pub exports: Option<Vec<Entity>>,
    pub imports: Vec<Import>,
    pub decls: Vec<Decl>,
    pub span: Span,
    /// The LANGUAGE extensions its header names (what the passes after the
    /// parser read differently: ScopedTypeVariables).
    pub extensions: Vec<Sym>,
}

/// An item of an export or import list.
#[derive(Clone, Debug)]
pub enum Entity {
    /// A variable or an operator in parentheses.
    Var(QName),
    /// A type or class, with its constructors/methods: none, `(..)`, or listed.
    Type(QName, Option<SubItems>),
    /// `module M` in an export list.
    Module(Ident),
}

#[derive(Clone, Debug)]
pub enum SubItems {
    All,
    Some(Vec<Ident>),
}

#[derive(Clone, Debug)]
pub struct Import {
    pub module: Ident,
    pub qualified: bool,
    pub alias: Option<Ident>,
    /// `Some((hiding, items))` for `import M (..)` or `import M hiding (..)`.
    pub items: Option<(bool, Vec<Entity>)>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assoc {
    Left,
    Right,
    None,
}

#[derive(Clone, Debug)]
pub enum Decl {
    /// `f, g :: Ctx => T`
    Sig {
        names: Vec<Ident>,
        ty: QualType,
        span: Span,
    },
    /// `infixl 6 +, -`
    Fixity {
        assoc: Assoc,
        prec: u8,
        ops: Vec<Ident>,
        span: Span,
    },
    /// One clause of a function: `f p1 p2 | g = e where ...`, or `p1 `op` p2 = e`.
    FunClause {
        name: Ident,
        args: Vec<Pat>,
        rhs: Rhs,
        span: Span,
    },
    /// A pattern binding: `(a, b) = e`, also a plain variable `x = e`.
    PatBind {
        pat: Pat,
        rhs: Rhs,
        span: Span,
    },
    Data(DataDecl),
    /// `type T a = t`
    TypeSyn {
        name: Ident,
        params: Vec<Ident>,
        ty: Type,
        span: Span,
    },
    Class(ClassDecl),
    Instance(InstanceDecl),
    /// `foreign import prim "name" f :: T`: a primitive of the runtime.
    Foreign {
        prim: Sym,
        name: Ident,
        ty: QualType,
        span: Span,
    },
    /// `default (Integer, Double)`
    Default {
        types: Vec<Type>,
        span: Span,
    },
}

impl Decl {
    pub fn span(&self) -> Span {
        crate::stack::guard();
        match self {
            Decl::Sig { span, .. }
            | Decl::Fixity { span, .. }
            | Decl::FunClause { span, .. }
            | Decl::PatBind { span, .. }
            | Decl::TypeSyn { span, .. }
            | Decl::Foreign { span, .. }
            | Decl::Default { span, .. } => *span,
            Decl::Data(d) => d.span,
            Decl::Class(c) => c.span,
            Decl::Instance(i) => i.span,
        }
    }
}

#[derive(Clone, Debug)]
pub struct DataDecl {
    /// `newtype` rather than `data`.
    pub newtype: bool,
    pub context: Vec<Pred>,
    pub name: Ident,
    pub params: Vec<Ident>,
    pub constrs: Vec<ConDecl>,
    pub deriving: Vec<Derived>,
    pub span: Span,
}

/// A class in a deriving clause (or a standalone `deriving instance`).
#[derive(Clone, Debug)]
pub struct Derived {
    pub class: QName,
    /// The class's arguments before the derived type, for a class of
    /// several parameters (`deriving (MonadState Int)`); empty otherwise.
    pub args: Vec<Type>,
    pub strategy: Strategy,
    /// `deriving C via T` (DerivingVia): the instance is T's, T having the
    /// derived type's representation.
    pub via: Option<Type>,
    /// From `deriving instance ctx => C (T a ..)` (StandaloneDeriving):
    /// the context written, its variables renamed to the declaration's
    /// parameters by the derivation (the head's variables, in order, are
    /// the second part). GHC derives there for GADTs and existential
    /// constructors too, with that context.
    pub standalone: Option<(Vec<Pred>, Vec<Sym>)>,
}

/// How an instance is derived (DerivingStrategies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// No strategy written: stock for the classes gph derives, otherwise
    /// newtype (GeneralizedNewtypeDeriving) or anyclass (DeriveAnyClass).
    Default,
    Stock,
    /// The underlying type's instance, unchanged (a newtype is erased).
    Newtype,
    /// An instance with the class's default methods.
    Anyclass,
}

#[derive(Clone, Debug)]
pub struct ConDecl {
    pub name: Ident,
    pub fields: Vec<Field>,
    /// Declared infix: `a :+: b`; or, in GADT syntax, an operator of two
    /// fields with a fixity declaration (as GHC, which shows it infix).
    pub infix: bool,
    /// Record syntax: field labels, in the order of `fields`.
    pub labels: Option<Vec<Ident>>,
    /// ExistentialQuantification (`forall b. Show b => C b`, or a GADT
    /// signature's variables beyond the result's): the type variables the
    /// constructor hides, beyond the type's parameters.
    pub exists: Vec<Ident>,
    /// The constraints the constructor packs with its fields (their
    /// dictionaries are stored in the value, before the fields).
    pub context: Vec<Pred>,
    /// Declared by its signature in GADT syntax.
    pub gadt: bool,
    /// GADTs: the type's parameters its result fixes, with what to (`a ~
    /// Int` for `IntE :: Int -> Expr Int`); a match refines them.
    pub eqs: Vec<(Ident, Type)>,
    pub span: Span,
}

impl ConDecl {
    /// Whether the field's type mentions a type variable the constructor
    /// hides (then the field has no selector function).
    pub fn hides(&self, field: &Field) -> bool {
        let mut vs = Vec::new();
        field.ty.vars_into(&mut vs);
        self.exists.iter().any(|e| vs.contains(&e.name))
    }
}

#[derive(Clone, Debug)]
pub struct Field {
    pub strict: bool,
    /// Marked `~`: lazy even under StrictData.
    pub lazy: bool,
    pub ty: Type,
}

#[derive(Clone, Debug)]
pub struct ClassDecl {
    pub context: Vec<Pred>,
    pub name: Ident,
    /// The first parameter (the only one of a Haskell 2010 class).
    pub tyvar: Ident,
    /// The parameters after the first (MultiParamTypeClasses).
    pub more_vars: Vec<Ident>,
    /// Functional dependencies `a b -> c` (FunctionalDependencies).
    pub fundeps: Vec<(Vec<Ident>, Vec<Ident>)>,
    pub decls: Vec<Decl>,
    pub span: Span,
}

impl ClassDecl {
    /// All its parameters, in order.
    pub fn params(&self) -> Vec<&Ident> {
        std::iter::once(&self.tyvar)
            .chain(&self.more_vars)
            .collect()
    }
}

/// The name of the internal type constructor that stands for the
/// arguments of a constraint on several types (`C a b` is the class `C` at
/// `(#2) a b`): a constraint, an instance head and a class's "type" stay
/// one type each.
pub fn multi_param_name(n: usize) -> String {
    format!("(#{n})")
}

/// Whether the name is one of [`multi_param_name`]'s.
pub fn is_multi_param_name(s: &str) -> bool {
    s.starts_with("(#") && s.ends_with(')') && s[2..s.len() - 1].parse::<usize>().is_ok()
}

/// The arguments of a constraint on several types as one type.
pub fn multi_param(args: Vec<Type>, span: Span) -> Type {
    let con = Type::Con(QName::unqual(
        Sym::from(multi_param_name(args.len()).as_str()),
        span,
    ));
    args.into_iter()
        .fold(con, |f, a| Type::App(Box::new(f), Box::new(a), span))
}

/// The types of a constraint's argument: one, or the several of
/// [`multi_param`].
pub fn constraint_args(t: &Type) -> Vec<&Type> {
    let mut args = Vec::new();
    let mut h = t;
    while let Type::App(f, a, _) = h {
        args.push(&**a);
        h = f;
    }
    match h {
        Type::Con(q) if q.qual.is_none() && is_multi_param_name(&q.name) => {
            args.reverse();
            args
        }
        _ => vec![t],
    }
}

#[derive(Clone, Debug)]
pub struct InstanceDecl {
    pub context: Vec<Pred>,
    pub class: QName,
    pub ty: Type,
    pub decls: Vec<Decl>,
    pub span: Span,
    /// Derived through a newtype: the dictionary is that of the context's
    /// one constraint (the class at the underlying type).
    pub newtype_derived: bool,
}

/// The right-hand side of a binding or case alternative.
#[derive(Clone, Debug)]
pub struct Rhs {
    pub body: RhsBody,
    pub wheres: Vec<Decl>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum RhsBody {
    Plain(Expr),
    Guarded(Vec<Guarded>),
}

/// `| q1, q2 = e` (or `->` in a case alternative).
#[derive(Clone, Debug)]
pub struct Guarded {
    pub guards: Vec<Stmt>,
    pub body: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Literal {
    /// Integer literal, in decimal digits.
    Int(Sym),
    /// Fractional literal as written (`1.5`, `2e-3`).
    Frac(Sym),
    Char(char),
    Str(Sym),
}

#[derive(Clone, Debug)]
pub enum Expr {
    Var(QName),
    Con(QName),
    Lit(Literal, Span),
    App(Box<Expr>, Box<Expr>, Span),
    /// `e1 op1 e2 op2 e3 ...` before fixity resolution; `-` prefixes appear as `Neg` items.
    OpChain(Vec<ChainItem<Expr>>, Span),
    /// A resolved binary operator application.
    BinOp(QName, Box<Expr>, Box<Expr>, Span),
    /// Prefix negation.
    Neg(Box<Expr>, Span),
    Lambda(Vec<Pat>, Box<Expr>, Span),
    Let(Vec<Decl>, Box<Expr>, Span),
    If(Box<Expr>, Box<Expr>, Box<Expr>, Span),
    Case(Box<Expr>, Vec<Alt>, Span),
    Do(Vec<Stmt>, Span),
    Tuple(Vec<Expr>, Span),
    List(Vec<Expr>, Span),
    /// `[from ..]`, `[from, then ..]`, `[from .. to]`, `[from, then .. to]`
    Range {
        from: Box<Expr>,
        then: Option<Box<Expr>>,
        to: Option<Box<Expr>>,
        span: Span,
    },
    Comprehension(Box<Expr>, Vec<Stmt>, Span),
    /// `(e op)`: the chain before the operator (still flat), and the operator.
    LeftSection(Box<Expr>, QName, Span),
    /// `(op e)`
    RightSection(QName, Box<Expr>, Span),
    Typed(Box<Expr>, QualType, Span),
    /// A visible type application `e @T` (TypeApplications); `None` for
    /// `@_`, which leaves the variable to inference.
    TypeApp(Box<Expr>, Option<Type>, Span),
    Paren(Box<Expr>, Span),
    /// Pattern-only forms, met while parsing a pattern as an expression.
    Wildcard(Span),
    As(Ident, Box<Expr>, Span),
    Lazy(Box<Expr>, Span),
    /// A bang pattern `!p` (with `{-# LANGUAGE BangPatterns #-}`).
    Bang(Box<Expr>, Span),
    /// A view pattern `(e -> p)` (ViewPatterns), the pattern still an
    /// expression.
    View(Box<Expr>, Box<Expr>, Span),
    /// Record construction / update (Tier 2): `C { f = e }` or `e { f = e }`;
    /// the span of a last `..` (RecordWildCards) when there is one. A pun
    /// `C { f }` (NamedFieldPuns) is parsed as `C { f = f }`.
    Record(Box<Expr>, Vec<(QName, Expr)>, Option<Span>, Span),
}

impl Expr {
    pub fn span(&self) -> Span {
        crate::stack::guard();
        match self {
            Expr::Var(q) | Expr::Con(q) => q.span,
            Expr::Lit(_, s)
            | Expr::App(_, _, s)
            | Expr::OpChain(_, s)
            | Expr::BinOp(_, _, _, s)
            | Expr::Neg(_, s)
            | Expr::Lambda(_, _, s)
            | Expr::Let(_, _, s)
            | Expr::If(_, _, _, s)
            | Expr::Case(_, _, s)
            | Expr::Do(_, s)
            | Expr::Tuple(_, s)
            | Expr::List(_, s)
            | Expr::Range { span: s, .. }
            | Expr::Comprehension(_, _, s)
            | Expr::LeftSection(_, _, s)
            | Expr::RightSection(_, _, s)
            | Expr::Typed(_, _, s)
            | Expr::TypeApp(_, _, s)
            | Expr::Paren(_, s)
            | Expr::Wildcard(s)
            | Expr::As(_, _, s)
            | Expr::Lazy(_, s)
            | Expr::Bang(_, s)
            | Expr::View(_, _, s)
            | Expr::Record(_, _, _, s) => *s,
        }
    }
}

/// An element of an operator chain.
#[derive(Clone, Debug)]
pub enum ChainItem<T> {
    Operand(T),
    Op(QName),
    /// Prefix minus (its span).
    Neg(Span),
}

#[derive(Clone, Debug)]
pub struct Alt {
    pub pat: Pat,
    pub rhs: Rhs,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `p <- e`
    Bind(Pat, Expr, Span),
    /// `let decls`
    Let(Vec<Decl>, Span),
    /// `e` (a guard, a filter, or an action)
    Expr(Expr),
}

impl Stmt {
    pub fn span(&self) -> Span {
        crate::stack::guard();
        match self {
            Stmt::Bind(_, _, s) | Stmt::Let(_, s) => *s,
            Stmt::Expr(e) => e.span(),
        }
    }
}

#[derive(Clone, Debug)]
pub enum Pat {
    Var(Ident),
    Wildcard(Span),
    Lit(Literal, Span),
    /// A negative numeric literal pattern: `-1`.
    NegLit(Literal, Span),
    /// A constructor applied to argument patterns (also a bare constructor).
    Con(QName, Vec<Pat>, Span),
    /// Infix chain of constructor operators before fixity resolution.
    OpChain(Vec<ChainItem<Pat>>, Span),
    Tuple(Vec<Pat>, Span),
    List(Vec<Pat>, Span),
    As(Ident, Box<Pat>, Span),
    Lazy(Box<Pat>, Span),
    Bang(Box<Pat>, Span),
    Paren(Box<Pat>, Span),
    Typed(Box<Pat>, QualType, Span),
    /// Record pattern (Tier 2): `C { f = p }`, with the span of a last
    /// `..` (RecordWildCards) when there is one.
    Record(QName, Vec<(QName, Pat)>, Option<Span>, Span),
    /// A view pattern `(e -> p)` (ViewPatterns): matches a value `v` when
    /// `e v` matches `p`.
    View(Box<Expr>, Box<Pat>, Span),
}

impl Pat {
    /// The variables the pattern binds, in order (added to `out`).
    pub fn vars_into(&self, out: &mut Vec<Sym>) {
        crate::stack::guard();
        match self {
            Pat::Var(i) => out.push(i.name.clone()),
            Pat::As(i, p, _) => {
                out.push(i.name.clone());
                p.vars_into(out)
            }
            Pat::Con(_, ps, _) | Pat::Tuple(ps, _) | Pat::List(ps, _) => {
                ps.iter().for_each(|p| p.vars_into(out))
            }
            Pat::Lazy(p, _)
            | Pat::Bang(p, _)
            | Pat::Paren(p, _)
            | Pat::Typed(p, _, _)
            | Pat::View(_, p, _) => p.vars_into(out),
            Pat::Record(_, fs, _, _) => fs.iter().for_each(|(_, p)| p.vars_into(out)),
            Pat::OpChain(items, _) => {
                for it in items {
                    if let ChainItem::Operand(p) = it {
                        p.vars_into(out)
                    }
                }
            }
            Pat::Wildcard(_) | Pat::Lit(..) | Pat::NegLit(..) => {}
        }
    }

    pub fn span(&self) -> Span {
        crate::stack::guard();
        match self {
            Pat::Var(i) => i.span,
            Pat::Wildcard(s)
            | Pat::Lit(_, s)
            | Pat::NegLit(_, s)
            | Pat::Con(_, _, s)
            | Pat::OpChain(_, s)
            | Pat::Tuple(_, s)
            | Pat::List(_, s)
            | Pat::As(_, _, s)
            | Pat::Lazy(_, s)
            | Pat::Bang(_, s)
            | Pat::Paren(_, s)
            | Pat::Typed(_, _, s)
            | Pat::View(_, _, s)
            | Pat::Record(_, _, _, s) => *s,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Type {
    Var(Ident),
    /// A type constructor by name: `Int`, `Maybe`, `[]`, `->`, `(,)`, `()`.
    Con(QName),
    App(Box<Type>, Box<Type>, Span),
    Fun(Box<Type>, Box<Type>, Span),
    List(Box<Type>, Span),
    Tuple(Vec<Type>, Span),
    /// Strict field mark inside a data declaration (only valid there).
    Bang(Box<Type>, Span),
    /// A `forall` inside a type (RankNTypes): `(forall a. [a] -> [a]) ->
    /// Int`, a constructor field `(forall a. f a -> g a)`, the right-hand
    /// side of a synonym.
    Forall(Box<QualType>),
}

impl Type {
    pub fn span(&self) -> Span {
        crate::stack::guard();
        match self {
            Type::Var(i) => i.span,
            Type::Con(q) => q.span,
            Type::App(_, _, s)
            | Type::Fun(_, _, s)
            | Type::List(_, s)
            | Type::Tuple(_, s)
            | Type::Bang(_, s) => *s,
            Type::Forall(q) => q.span,
        }
    }

    /// The type variables occurring in it, in order of first occurrence
    /// (added to `out` when not there yet).
    pub fn vars_into(&self, out: &mut Vec<Sym>) {
        crate::stack::guard();
        match self {
            Type::Var(v) => {
                if !out.contains(&v.name) {
                    out.push(v.name.clone());
                }
            }
            Type::Con(_) => {}
            Type::App(a, b, _) | Type::Fun(a, b, _) => {
                a.vars_into(out);
                b.vars_into(out);
            }
            Type::List(t, _) | Type::Bang(t, _) => t.vars_into(out),
            Type::Tuple(ts, _) => ts.iter().for_each(|t| t.vars_into(out)),
            // The variables it binds are its own, not the enclosing type's.
            Type::Forall(q) => {
                let mut inner = Vec::new();
                q.context.iter().for_each(|p| p.ty.vars_into(&mut inner));
                q.ty.vars_into(&mut inner);
                for v in inner {
                    if !q.forall.iter().any(|b| b.name == v) && !out.contains(&v) {
                        out.push(v);
                    }
                }
            }
        }
    }

    /// The type with its variables renamed by `to` (those not in it kept).
    pub fn rename_vars(self, to: &dyn Fn(&Sym) -> Option<Sym>) -> Type {
        crate::stack::guard();
        match self {
            Type::Var(v) => Type::Var(Ident {
                name: to(&v.name).unwrap_or(v.name),
                span: v.span,
            }),
            Type::Con(q) => Type::Con(q),
            Type::App(a, b, s) => {
                Type::App(Box::new(a.rename_vars(to)), Box::new(b.rename_vars(to)), s)
            }
            Type::Fun(a, b, s) => {
                Type::Fun(Box::new(a.rename_vars(to)), Box::new(b.rename_vars(to)), s)
            }
            Type::List(t, s) => Type::List(Box::new(t.rename_vars(to)), s),
            Type::Bang(t, s) => Type::Bang(Box::new(t.rename_vars(to)), s),
            Type::Tuple(ts, s) => {
                Type::Tuple(ts.into_iter().map(|t| t.rename_vars(to)).collect(), s)
            }
            Type::Forall(q) => {
                let q = *q;
                let bound = q.forall.clone();
                let inner = |n: &Sym| {
                    if bound.iter().any(|b| &b.name == n) {
                        None
                    } else {
                        to(n)
                    }
                };
                Type::Forall(Box::new(QualType {
                    forall: q.forall,
                    context: q
                        .context
                        .into_iter()
                        .map(|p| Pred {
                            class: p.class,
                            ty: p.ty.rename_vars(&inner),
                            span: p.span,
                        })
                        .collect(),
                    ty: q.ty.rename_vars(&inner),
                    span: q.span,
                }))
            }
        }
    }
}

/// A class constraint `C t` (t is a type variable, or a variable applied to types).
#[derive(Clone, Debug)]
pub struct Pred {
    pub class: QName,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct QualType {
    /// The variables of an explicit `forall a b.` (ExplicitForAll); with
    /// ScopedTypeVariables they scope over the binding's body.
    pub forall: Vec<Ident>,
    pub context: Vec<Pred>,
    pub ty: Type,
    pub span: Span,
}
