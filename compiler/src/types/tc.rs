//! The checker's state, the built-in types, and the bookkeeping shared by
//! the other files: wanted constraints with their evidence holes, pending
//! elaborations (literals and recursive references whose final form is
//! known only once types are solved), local scopes.

use super::elab::{Dict, Expr, Name};
use super::env::*;
use super::ty::*;
use gph_syntax::ast::QName;
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, Span};
use num_bigint::BigInt;

/// Why a constraint is wanted, for messages: "arising from a use of `+`".
#[derive(Clone, Debug)]
pub struct Origin {
    pub span: Span,
    pub what: String,
}

/// A constraint that must be solved; `hole` receives its evidence.
#[derive(Clone, Debug)]
pub struct Wanted {
    pub class: ClassId,
    pub ty: Type,
    pub hole: u32,
    pub origin: Origin,
    /// The binding (group) whose body wants it: identical constraints of
    /// one binding are reported once.
    pub group: u32,
}

/// A constraint available as a dictionary (a binding's or instance's
/// context, or a superclass of one).
#[derive(Clone, Debug)]
pub struct Given {
    pub class: ClassId,
    pub ty: Type,
    pub dict: Dict,
}

/// An elaboration decided at the end of the module.
#[derive(Clone, Debug)]
pub enum Pending {
    /// A recursive occurrence of a binding of group `group`: applied to the
    /// group's dictionary parameters once they are known.
    RecRef { name: Name, group: u32, span: Span },
    /// An integer literal at type `ty` (`hole`: its `Num` dictionary).
    Int {
        value: BigInt,
        ty: Type,
        hole: u32,
        span: Span,
    },
    /// A fractional literal as written, at type `ty` (`hole`: `Fractional`).
    Frac {
        text: Sym,
        ty: Type,
        hole: u32,
        span: Span,
    },
    /// A numeric literal pattern (`eq`: `Eq` dictionary, `num`: `Num` or
    /// `Fractional`), possibly negated.
    PatNum {
        lit: gph_syntax::ast::Literal,
        negative: bool,
        ty: Type,
        eq: u32,
        num: u32,
        span: Span,
    },
    /// A string literal pattern with OverloadedStrings (`eq`: `Eq`
    /// dictionary, `string`: `IsString`): a plain match at String, else
    /// a comparison with `fromString "..."`.
    PatStr {
        text: Sym,
        ty: Type,
        eq: u32,
        string: u32,
        span: Span,
    },
}

/// An equation deferred by `TypeTable::unify` (see `deferring`), with what
/// is needed to report it where it arose.
#[derive(Clone, Debug)]
pub struct DeferredEq {
    pub var: u32,
    pub ty: Type,
    pub expected: Type,
    pub found: Type,
    pub span: Span,
    pub ctx: super::errors::Ctx,
}

/// Type constructors and classes the checker itself refers to.
#[derive(Default, Clone)]
pub struct Known {
    pub arrow: Option<TcId>,
    pub list: Option<TcId>,
    pub unit: Option<TcId>,
    /// `tuples[n]` is the n-tuple constructor (n >= 2).
    pub tuples: Vec<Option<TcId>>,
    /// `multi[n]`: the arguments of a constraint on n types (n >= 2), see
    /// `gph_syntax::ast::multi_param`.
    pub multi: Vec<Option<TcId>>,
}

pub const PRIM: &str = "Gph.Prim";
pub const PRELUDE: &str = "Prelude";
pub const MAX_TUPLE: usize = 62;
/// The most parameters a class may have.
pub const MAX_CLASS_PARAMS: usize = 8;

pub struct Tc {
    pub env: Env,
    pub table: TypeTable,
    pub diags: Vec<Diagnostic>,
    /// The module being checked.
    pub module: Sym,
    /// Local variables, innermost last.
    pub locals: Vec<(Sym, ValueInfo)>,
    /// Wanted constraints of the binding group being inferred.
    pub wanted: Vec<Wanted>,
    /// Evidence for each hole (`None` until solved).
    pub holes: Vec<Option<Dict>>,
    /// The holes whose dictionaries `resolve_dict` is building, and those
    /// of them found to refer to themselves.
    pub dict_visiting: Vec<u32>,
    pub dict_recursive: std::collections::HashSet<u32>,
    pub pending: Vec<Pending>,
    /// Dictionary parameters of each binding group (for `RecRef`).
    pub groups: Vec<Vec<Sym>>,
    pub counter: u32,
    /// The module's `default` types, if it declares them.
    pub defaults: Option<Vec<Type>>,
    pub known: Known,
    /// Kind variables during kind inference.
    pub kvars: Vec<Option<Kind>>,
    /// Missing instances reported for the binding being solved (one
    /// report per constraint, however often it is wanted).
    pub reported: Vec<(ClassId, Type, u32)>,
    /// The binding group being checked (a counter; see `Wanted::group`).
    pub cur_group: u32,
    pub next_group: u32,
    /// Equations on variables of enclosing bindings, innermost last.
    pub deferred_eqs: Vec<DeferredEq>,
    /// Names of the instance dictionaries made so far.
    pub dfun_names: std::collections::HashSet<Global>,
    /// Where the text typed at the REPL starts (a global offset): the
    /// constraints arising from there on are defaulted by GHCi's extended
    /// rules.
    pub interactive_from: Option<u32>,
    /// Whether the module being checked has ScopedTypeVariables: then a
    /// signature's explicit `forall` variables, an instance head's and a
    /// class's variables scope over the bodies they govern.
    pub scoped_type_variables: bool,
    /// Whether it has FlexibleInstances (or TypeSynonymInstances): instance
    /// heads beyond `T a b` with distinct variables.
    pub flexible_instances: bool,
    /// UndecidableInstances: instances need not meet the coverage
    /// condition of their class's functional dependencies.
    pub undecidable_instances: bool,
    /// NoMonomorphismRestriction: a binding without arguments or
    /// signature is generalised over its constraints as a function is.
    pub no_monomorphism_restriction: bool,
    /// Whether it has OverloadedStrings: a string literal is
    /// `fromString "..."`, of any IsString type.
    pub overloaded_strings: bool,
    /// The dictionaries that the existential constructors matched by the
    /// patterns being checked bring into scope (`Tc::pat_scope`); `None`
    /// where no such scope is open (a `let` or `where` pattern binding).
    pub pat_givens: Option<Vec<Given>>,
    /// Inside a lazy pattern (`~p`), where no existential may be matched.
    pub lazy_pat: u32,
    /// The rigid variables GADT matches have refined (`Tc::refine`),
    /// innermost last: each `pat_scope` cuts the links it made.
    pub pat_links: Vec<u32>,
}

impl Tc {
    pub fn new() -> Tc {
        let mut tc = Tc {
            env: Env::default(),
            table: TypeTable::default(),
            diags: Vec::new(),
            module: Sym::from("Main"),
            locals: Vec::new(),
            wanted: Vec::new(),
            holes: Vec::new(),
            dict_visiting: Vec::new(),
            dict_recursive: std::collections::HashSet::new(),
            pending: Vec::new(),
            groups: Vec::new(),
            counter: 0,
            defaults: None,
            known: Known::default(),
            kvars: Vec::new(),
            reported: Vec::new(),
            cur_group: 0,
            next_group: 1,
            dfun_names: Default::default(),
            interactive_from: None,
            scoped_type_variables: false,
            flexible_instances: false,
            undecidable_instances: false,
            no_monomorphism_restriction: false,
            overloaded_strings: false,
            deferred_eqs: Vec::new(),
            pat_givens: None,
            lazy_pat: 0,
            pat_links: Vec::new(),
        };
        tc.init_builtins();
        tc
    }

    fn builtin_tycon(&mut self, name: &str, arity: usize, cons: Vec<Global>) -> TcId {
        self.env.add_tycon(TyConInfo {
            name: Global::builtin(name),
            kind: Kind::simple(arity),
            arity,
            def: if cons.is_empty() {
                TyConDef::Abstract
            } else {
                TyConDef::Data {
                    newtype: false,
                    cons,
                }
            },
            span: Span::default(),
        })
    }

    fn builtin_con(
        &mut self,
        name: &str,
        tycon: TcId,
        tag: usize,
        nvars: usize,
        fields: Vec<Type>,
    ) {
        let res = Type::apps(Type::con(tycon), (0..nvars as u32).map(Type::gen));
        let ty = fields.iter().rev().fold(res, |r, a| self.fun(a.clone(), r));
        let g = Global::builtin(name);
        self.env.datacons.insert(
            g.clone(),
            DataConInfo {
                name: g,
                tycon,
                tag,
                arity: fields.len(),
                strict: vec![false; fields.len()],
                scheme: Scheme {
                    vars: vec![None; nvars],
                    preds: Vec::new(),
                    ty,
                },
                exists: 0,
                eqs: Vec::new(),
            },
        );
    }

    fn init_builtins(&mut self) {
        let arrow = self.builtin_tycon("->", 2, Vec::new());
        self.known.arrow = Some(arrow);
        let list = self.builtin_tycon("[]", 1, vec![Global::builtin("[]"), Global::builtin(":")]);
        self.known.list = Some(list);
        let unit = self.builtin_tycon("()", 0, vec![Global::builtin("()")]);
        self.known.unit = Some(unit);
        self.builtin_con("[]", list, 0, 1, Vec::new());
        let a = Type::gen(0);
        let la = Type::app(Type::con(list), a.clone());
        self.builtin_con(":", list, 1, 1, vec![a, la]);
        self.builtin_con("()", unit, 0, 0, Vec::new());
        self.known.tuples = vec![None; MAX_TUPLE + 1];
        for n in 2..=MAX_TUPLE {
            let name = format!("({})", ",".repeat(n - 1));
            let tc = self.builtin_tycon(&name, n, vec![Global::builtin(&name)]);
            self.known.tuples[n] = Some(tc);
            self.builtin_con(&name, tc, 0, n, (0..n as u32).map(Type::gen).collect());
        }
        self.known.multi = vec![None; MAX_CLASS_PARAMS + 1];
        for n in 2..=MAX_CLASS_PARAMS {
            let name = gph_syntax::ast::multi_param_name(n);
            let tc = self.builtin_tycon(&name, n, Vec::new());
            self.known.multi[n] = Some(tc);
        }
    }

    /// The type a constraint of class `c` is on, given its arguments: the
    /// one argument, or `(#n) a b ...` for a class of several parameters.
    pub fn class_type(&self, c: ClassId, args: Vec<Type>) -> Type {
        if self.env.class_arity(c) == 1 {
            return args.into_iter().next().unwrap_or_else(Type::error);
        }
        let n = args.len();
        match self.known.multi.get(n).copied().flatten() {
            Some(tc) => Type::apps(Type::con(tc), args),
            None => Type::error(),
        }
    }

    /// The arguments of a constraint of class `c` on `t` (the inverse of
    /// `class_type`).
    pub fn class_args(&mut self, c: ClassId, t: &Type) -> Vec<Type> {
        let n = self.env.class_arity(c);
        if n == 1 {
            return vec![t.clone()];
        }
        let (_, args) = self.table.spine(t);
        if args.len() == n {
            args
        } else {
            vec![Type::error(); n]
        }
    }

    // ------------------------------------------------------------ types

    pub fn fun(&self, a: Type, b: Type) -> Type {
        let arrow = self.known.arrow.unwrap_or(TcId(0));
        Type::app(Type::app(Type::con(arrow), a), b)
    }

    pub fn list_of(&self, a: Type) -> Type {
        Type::app(Type::con(self.known.list.unwrap_or(TcId(0))), a)
    }

    pub fn tuple_of(&mut self, ts: Vec<Type>) -> Type {
        match ts.len() {
            0 => Type::con(self.known.unit.unwrap_or(TcId(0))),
            1 => ts.into_iter().next().unwrap_or_else(Type::error),
            n => match self.known.tuples.get(n).copied().flatten() {
                Some(tc) => Type::apps(Type::con(tc), ts),
                None => Type::error(),
            },
        }
    }

    /// A type constructor of the library by module and name.
    pub fn lib_tycon(&self, module: &str, name: &str) -> Option<TcId> {
        self.env.lookup_tycon(&Global::new(module, name))
    }

    pub fn prim_type(&self, name: &str) -> Type {
        match self.lib_tycon(PRIM, name) {
            Some(tc) => Type::con(tc),
            None => Type::error(),
        }
    }

    pub fn char_type(&self) -> Type {
        self.prim_type("Char")
    }

    pub fn bool_type(&self) -> Type {
        self.prim_type("Bool")
    }

    pub fn string_type(&self) -> Type {
        self.list_of(self.char_type())
    }

    pub fn prelude_class(&self, name: &str) -> Option<ClassId> {
        self.env.lookup_class(&Global::new(PRELUDE, name))
    }

    /// If `t` is `a -> b`, its parts.
    pub fn as_fun(&mut self, t: &Type) -> Option<(Type, Type)> {
        let (h, args) = self.table.spine(t);
        match (h.ty(), args.len()) {
            (Ty::Con(c), 2) if Some(*c) == self.known.arrow => {
                Some((args[0].clone(), args[1].clone()))
            }
            _ => None,
        }
    }

    /// The number of arguments a type takes (arrows of its spine).
    pub fn arity_of(&mut self, t: &Type) -> usize {
        let mut n = 0;
        let mut t = t.clone();
        while let Some((_, r)) = self.as_fun(&t) {
            n += 1;
            t = r;
        }
        n
    }

    /// Instantiates a scheme with fresh variables; returns the type, the
    /// instantiated predicates, and the fresh variables.
    pub fn instantiate(&mut self, s: &Scheme) -> (Type, Vec<Pred>) {
        let args: Vec<Type> = (0..s.vars.len()).map(|_| self.table.fresh()).collect();
        Tc::instantiate_with(s, &args)
    }

    /// The scheme's type and predicates at these types of its variables.
    pub fn instantiate_with(s: &Scheme, args: &[Type]) -> (Type, Vec<Pred>) {
        let ty = if args.is_empty() {
            s.ty.clone()
        } else {
            subst_gen(&s.ty, args)
        };
        let preds = s
            .preds
            .iter()
            .map(|p| Pred {
                class: p.class,
                ty: subst_gen(&p.ty, args),
            })
            .collect();
        (ty, preds)
    }

    // ------------------------------------------------------------ evidence

    pub fn new_hole(&mut self) -> u32 {
        self.holes.push(None);
        (self.holes.len() - 1) as u32
    }

    /// Records a wanted constraint; returns its hole.
    pub fn want(&mut self, class: ClassId, ty: Type, span: Span, what: String) -> u32 {
        let hole = self.new_hole();
        self.wanted.push(Wanted {
            class,
            ty,
            hole,
            origin: Origin { span, what },
            group: self.cur_group,
        });
        hole
    }

    pub fn fill(&mut self, hole: u32, d: Dict) {
        if let Some(h) = self.holes.get_mut(hole as usize) {
            *h = Some(d);
        }
    }

    pub fn add_pending(&mut self, p: Pending) -> u32 {
        self.pending.push(p);
        (self.pending.len() - 1) as u32
    }

    /// Enters a new binding group for `Wanted::group`; returns the one to
    /// restore.
    pub fn enter_group(&mut self) -> u32 {
        let old = self.cur_group;
        self.cur_group = self.next_group;
        self.next_group += 1;
        old
    }

    pub fn fresh_name(&mut self, base: &str) -> Sym {
        self.counter += 1;
        Sym::from(format!("${base}{}", self.counter))
    }

    /// `Var name` applied to dictionary holes for the instantiated
    /// predicates (each becomes a wanted constraint).
    pub fn apply_dicts(&mut self, mut e: Expr, preds: Vec<Pred>, span: Span, what: &str) -> Expr {
        for p in preds {
            let h = self.want(p.class, p.ty, span, what.to_string());
            e = Expr::app(e, Expr::Dict(Dict::Hole(h)), span);
        }
        e
    }

    // ------------------------------------------------------------ names

    /// The global a qualified name refers to; built-in syntax has no module.
    pub fn global_of(q: &QName) -> Global {
        match &q.qual {
            Some(m) => Global {
                module: m.clone(),
                name: q.name.clone(),
            },
            None => Global {
                module: Sym::from(""),
                name: q.name.clone(),
            },
        }
    }

    /// Brings a type variable into scope for the signatures, annotations
    /// and pattern signatures that follow, until `locals` is cut back to
    /// before it: it lives in `locals` under a name no value has (`'a`),
    /// so it is scoped exactly as the variables bound beside it.
    pub fn bind_type_variable(&mut self, name: &Sym, t: Type) {
        let key = Sym::from(format!("'{name}"));
        self.locals.push((key, ValueInfo::Poly(Scheme::mono(t))));
    }

    /// The variables a signature brings into scope over its binding: those
    /// of its explicit `forall`, with ScopedTypeVariables.
    pub fn scoped_by(&self, qt: &gph_syntax::ast::QualType) -> Vec<Sym> {
        if !self.scoped_type_variables {
            return Vec::new();
        }
        qt.forall.iter().map(|v| v.name.clone()).collect()
    }

    /// The type a scoped type variable stands for.
    pub fn scoped_type_variable(&self, name: &str) -> Option<Type> {
        match self.lookup_local(&format!("'{name}"))? {
            ValueInfo::Poly(s) if s.vars.is_empty() => Some(s.ty.clone()),
            _ => None,
        }
    }

    pub fn lookup_local(&self, name: &str) -> Option<&ValueInfo> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| &**n == name)
            .map(|(_, i)| i)
    }

    /// A global of the Prelude that the checker uses for syntax (`negate`,
    /// `fromInteger`, `>>=`, ...): its elaboration and instantiated type.
    pub fn prelude_value(&mut self, name: &str, span: Span, what: &str) -> (Expr, Type) {
        let g = Global::new(PRELUDE, name);
        match self.env.values.get(&g).cloned() {
            Some(ValueInfo::Poly(s)) => {
                let (t, preds) = self.instantiate(&s);
                let e = self.apply_dicts(Expr::global(g, span), preds, span, what);
                (e, t)
            }
            Some(ValueInfo::InProgress(t, group)) => {
                let id = self.add_pending(Pending::RecRef {
                    name: Name::Global(g),
                    group,
                    span,
                });
                (Expr::Pending(id), t)
            }
            None => {
                self.error(Diagnostic::error(
                    span,
                    format!("this needs `{name}` from the Prelude, which is not available here"),
                ));
                (Expr::global(g, span), Type::error())
            }
        }
    }
}

impl Default for Tc {
    fn default() -> Self {
        Tc::new()
    }
}
