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
    /// Checker-internal; never present in `typecheck`'s result.
    Pending(u32, Span),
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
