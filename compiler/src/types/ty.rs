//! Types, kinds, schemes and predicates, and the mutable state that
//! unification works on: meta type variables live in a table and are bound
//! in place (union-find by linking), each with a *level* (the let-nesting
//! depth at which it was created) so that generalisation is a scan for
//! variables deeper than the current level, never a search of the
//! environment.

use gph_syntax::lexer::Sym;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

/// A global entity: the module that defines it and its name. Built-in syntax
/// (`[]`, `:`, `()`, `(,)`, `->`) has the empty module name.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Global {
    pub module: Sym,
    pub name: Sym,
}

impl Global {
    pub fn new(module: &str, name: &str) -> Global {
        Global {
            module: Sym::from(module),
            name: Sym::from(name),
        }
    }
    pub fn builtin(name: &str) -> Global {
        Global::new("", name)
    }
    pub fn is_builtin(&self) -> bool {
        self.module.is_empty()
    }
}

impl fmt::Display for Global {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.module.is_empty() {
            write!(f, "{}", self.name)
        } else {
            write!(f, "{}.{}", self.module, self.name)
        }
    }
}

impl fmt::Debug for Global {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// Index of a type constructor in the environment's table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct TcId(pub u32);

/// Index of a class in the environment's table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ClassId(pub u32);

/// A type. Cheap to clone (reference counted).
#[derive(Clone)]
pub struct Type(pub Rc<Ty>);

pub enum Ty {
    /// A meta (unification) variable: an index into the checker's table.
    Var(u32),
    /// A rigid (skolem) variable from a type signature being checked.
    Skol(u32),
    /// A variable bound by the enclosing scheme.
    Gen(u32),
    Con(TcId),
    App(Type, Type),
    /// A type synonym application as the user wrote it, with its expansion.
    /// Everything that looks at structure looks through it; printing keeps it.
    Syn(TcId, Vec<Type>, Type),
    /// The type of an expression that already failed to type-check: unifies
    /// with everything, so that one mistake is reported once.
    Error,
    /// A polymorphic type inside a type (RankNTypes): the argument of
    /// `(forall a. [a] -> [a]) -> Int`, a constructor's field.
    Forall(Rc<Poly>),
    /// A variable bound by an enclosing [`Ty::Forall`] (its id is unique to
    /// that quantifier, so substitution never captures).
    Bound(u32),
}

/// `forall vars. preds => ty` inside a type. Checking an expression
/// against it is checking a binding against a signature (its variables
/// rigid, its context given dictionaries); using a variable of this type
/// instantiates it, as a let-bound variable's scheme.
#[derive(Debug)]
pub struct Poly {
    pub vars: Vec<(u32, Sym)>,
    pub preds: Vec<Pred>,
    pub ty: Type,
}

impl Poly {
    /// The quantifier as a scheme (its variables `Gen`), to instantiate or
    /// check against the way a signature is.
    pub fn to_scheme(&self) -> Scheme {
        let ids: Vec<u32> = self.vars.iter().map(|(i, _)| *i).collect();
        let gens: Vec<Type> = (0..ids.len() as u32).map(Type::gen).collect();
        let body = self.map(|x| subst_bound(x, &ids, &gens));
        Scheme {
            vars: self.vars.iter().map(|(_, n)| Some(n.clone())).collect(),
            preds: body.preds,
            ty: body.ty,
        }
    }

    /// The same quantifier with `f` applied to its context and body.
    pub fn map(&self, mut f: impl FnMut(&Type) -> Type) -> Poly {
        Poly {
            vars: self.vars.clone(),
            preds: self
                .preds
                .iter()
                .map(|p| Pred {
                    class: p.class,
                    ty: f(&p.ty),
                })
                .collect(),
            ty: f(&self.ty),
        }
    }

    /// The types it is made of: its context's and its body.
    pub fn parts(&self) -> Vec<Type> {
        let mut v: Vec<Type> = self.preds.iter().map(|p| p.ty.clone()).collect();
        v.push(self.ty.clone());
        v
    }
}

/// Replaces `Bound(ids[i])` by `args[i]`.
pub fn subst_bound(t: &Type, ids: &[u32], args: &[Type]) -> Type {
    gph_syntax::stack::guard();
    match t.ty() {
        Ty::Bound(b) => match ids.iter().position(|i| i == b) {
            Some(k) => args[k].clone(),
            None => t.clone(),
        },
        Ty::App(f, a) => Type::app(subst_bound(f, ids, args), subst_bound(a, ids, args)),
        Ty::Syn(c, xs, e) => Type::new(Ty::Syn(
            *c,
            xs.iter().map(|x| subst_bound(x, ids, args)).collect(),
            subst_bound(e, ids, args),
        )),
        Ty::Forall(p) => Type::new(Ty::Forall(Rc::new(p.map(|x| subst_bound(x, ids, args))))),
        Ty::Var(_) | Ty::Skol(_) | Ty::Gen(_) | Ty::Con(_) | Ty::Error => t.clone(),
    }
}

impl Type {
    pub fn new(t: Ty) -> Type {
        Type(Rc::new(t))
    }
    pub fn con(c: TcId) -> Type {
        Type::new(Ty::Con(c))
    }
    pub fn app(f: Type, a: Type) -> Type {
        Type::new(Ty::App(f, a))
    }
    pub fn apps(f: Type, args: impl IntoIterator<Item = Type>) -> Type {
        args.into_iter().fold(f, Type::app)
    }
    pub fn var(v: u32) -> Type {
        Type::new(Ty::Var(v))
    }
    pub fn gen(i: u32) -> Type {
        Type::new(Ty::Gen(i))
    }
    pub fn error() -> Type {
        Type::new(Ty::Error)
    }
    pub fn ty(&self) -> &Ty {
        &self.0
    }
    pub fn ptr_eq(&self, other: &Type) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ty() {
            Ty::Var(v) => write!(f, "?{v}"),
            Ty::Skol(v) => write!(f, "!{v}"),
            Ty::Gen(v) => write!(f, "#{v}"),
            Ty::Con(c) => write!(f, "T{}", c.0),
            Ty::App(a, b) => write!(f, "({a:?} {b:?})"),
            Ty::Syn(c, _, e) => write!(f, "<syn T{}={e:?}>", c.0),
            Ty::Error => write!(f, "<error>"),
            Ty::Forall(p) => write!(f, "(forall {:?}. {:?} => {:?})", p.vars, p.preds, p.ty),
            Ty::Bound(b) => write!(f, "%{b}"),
        }
    }
}

/// A kind: `*`, `k1 -> k2`, or a kind variable during kind inference.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    Star,
    Arrow(Rc<Kind>, Rc<Kind>),
    Var(u32),
}

impl Kind {
    pub fn arrow(a: Kind, b: Kind) -> Kind {
        Kind::Arrow(Rc::new(a), Rc::new(b))
    }
    /// `* -> ... -> *` with `n` arguments.
    pub fn simple(n: usize) -> Kind {
        (0..n).fold(Kind::Star, |k, _| Kind::arrow(Kind::Star, k))
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Star | Kind::Var(_) => write!(f, "*"),
            Kind::Arrow(a, b) => match **a {
                Kind::Arrow(..) => write!(f, "({a}) -> {b}"),
                _ => write!(f, "{a} -> {b}"),
            },
        }
    }
}

/// A class constraint `C t`.
#[derive(Clone, Debug)]
pub struct Pred {
    pub class: ClassId,
    pub ty: Type,
}

/// `forall vars. preds => ty`; the bound variables appear as `Ty::Gen(i)`.
#[derive(Clone, Debug)]
pub struct Scheme {
    /// The names of the bound variables as the user wrote them (from a
    /// signature), or `None` for inferred ones; its length is the number of
    /// bound variables.
    pub vars: Vec<Option<Sym>>,
    pub preds: Vec<Pred>,
    pub ty: Type,
}

impl Scheme {
    pub fn mono(ty: Type) -> Scheme {
        Scheme {
            vars: Vec::new(),
            preds: Vec::new(),
            ty,
        }
    }
}

/// Replaces `Gen(i)` by `args[i]` (a scheme's instantiation).
pub fn subst_gen(t: &Type, args: &[Type]) -> Type {
    gph_syntax::stack::guard();
    match t.ty() {
        Ty::Gen(i) => args.get(*i as usize).cloned().unwrap_or_else(Type::error),
        Ty::App(f, a) => Type::app(subst_gen(f, args), subst_gen(a, args)),
        Ty::Syn(c, xs, e) => Type::new(Ty::Syn(
            *c,
            xs.iter().map(|x| subst_gen(x, args)).collect(),
            subst_gen(e, args),
        )),
        Ty::Forall(p) => Type::new(Ty::Forall(Rc::new(p.map(|x| subst_gen(x, args))))),
        Ty::Var(_) | Ty::Skol(_) | Ty::Con(_) | Ty::Error | Ty::Bound(_) => t.clone(),
    }
}

/// Whether the type mentions any `Gen` variable.
pub fn has_gen(t: &Type) -> bool {
    gph_syntax::stack::guard();
    match t.ty() {
        Ty::Gen(_) => true,
        Ty::App(f, a) => has_gen(f) || has_gen(a),
        Ty::Syn(_, _, e) => has_gen(e),
        Ty::Forall(p) => p.parts().iter().any(has_gen),
        _ => false,
    }
}

/// Whether the type has a `forall` inside (RankNTypes), through synonyms.
pub fn has_forall(t: &Type) -> bool {
    gph_syntax::stack::guard();
    match t.ty() {
        Ty::Forall(_) => true,
        Ty::App(f, a) => has_forall(f) || has_forall(a),
        Ty::Syn(_, _, e) => has_forall(e),
        _ => false,
    }
}

/// State of one meta variable.
#[derive(Clone, Debug)]
pub struct TvInfo {
    pub link: Option<Type>,
    pub level: u32,
}

/// A rigid variable: its name in the signature and the level of the
/// signature that introduced it (a meta variable of a lower level must not
/// be bound to a type that mentions it: the variable would escape).
#[derive(Clone, Debug)]
pub struct SkolInfo {
    pub name: Sym,
    pub level: u32,
    /// The binding whose signature bound it ("the type signature for `f`").
    pub owner: Option<(Sym, gph_syntax::Span)>,
    /// What it equals inside a GADT match that refines it (`a ~ Int` in
    /// the branch of `IntE :: Int -> Expr Int`): followed like a meta
    /// variable's link while the branch is checked, cut after.
    pub link: Option<Type>,
}

/// Why two types failed to unify.
#[derive(Clone, Debug)]
pub enum UnifyError {
    /// The two (sub)types that differ.
    Mismatch(Type, Type),
    /// `var ~ ty` where `ty` contains `var`.
    Occurs(Type, Type),
    /// A rigid variable would escape its scope, or be unified with a type.
    Rigid(u32, Type),
}

/// The mutable part of types: meta and rigid variable tables and the
/// current level.
#[derive(Default)]
pub struct TypeTable {
    pub vars: Vec<TvInfo>,
    pub skolems: Vec<SkolInfo>,
    pub level: u32,
    /// While set, a variable of an enclosing level (untouchable here) is
    /// not bound to a type made of enclosing-level parts: the equation is
    /// recorded in `deferred` instead and solved when the enclosing binding
    /// is (as GHC does, which decides where a conflict is reported: a local
    /// binding that fixes an argument's type is blamed after the body).
    pub deferring: bool,
    pub deferred: Vec<(u32, Type)>,
    /// Type applications known to have no variable or skolem (through
    /// links, which are never undone), by address (the `Type` keeps it
    /// alive): `adjust` skips them. Without it, binding each variable of
    /// `Just (Just (.. ()))` walked the whole type below it: quadratic, 2 s
    /// for 5,000.
    ground: HashMap<*const Ty, Type>,
    /// The next id of a variable bound inside a type ([`Ty::Bound`]).
    pub next_bound: u32,
}

impl TypeTable {
    pub fn fresh(&mut self) -> Type {
        self.fresh_at(self.level)
    }
    pub fn fresh_at(&mut self, level: u32) -> Type {
        let v = self.vars.len() as u32;
        self.vars.push(TvInfo { link: None, level });
        Type::var(v)
    }
    pub fn skolem(&mut self, name: Sym, owner: Option<(Sym, gph_syntax::Span)>) -> Type {
        let v = self.skolems.len() as u32;
        self.skolems.push(SkolInfo {
            name,
            level: self.level,
            owner,
            link: None,
        });
        Type::new(Ty::Skol(v))
    }

    /// Follows variable links (with path compression), keeping synonyms.
    pub fn prune(&mut self, t: &Type) -> Type {
        let r = self.prune_vars(t);
        // A rigid variable refined by a GADT match: followed, never
        // compressed into a variable's link (it is cut when the match's
        // scope ends).
        if let Ty::Skol(s) = r.ty() {
            if let Some(l) = self.skolems[*s as usize].link.clone() {
                return self.prune(&l);
            }
        }
        r
    }

    /// Follows meta variables' links only (with path compression).
    fn prune_vars(&mut self, t: &Type) -> Type {
        gph_syntax::stack::guard();
        if let Ty::Var(v) = t.ty() {
            let v = *v as usize;
            if let Some(l) = self.vars[v].link.clone() {
                let r = self.prune_vars(&l);
                if !r.ptr_eq(&l) {
                    self.vars[v].link = Some(r.clone());
                }
                return r;
            }
        }
        t.clone()
    }

    /// Follows variable links and expands synonyms: the type's outermost
    /// constructor as far as it is known.
    pub fn head(&mut self, t: &Type) -> Type {
        let mut t = self.prune(t);
        while let Ty::Syn(_, _, e) = t.ty() {
            let e = e.clone();
            t = self.prune(&e);
        }
        t
    }

    /// Fully resolves a type (links substituted everywhere; synonyms kept).
    pub fn zonk(&mut self, t: &Type) -> Type {
        gph_syntax::stack::guard();
        let t = self.prune(t);
        match t.ty() {
            Ty::App(f, a) => {
                let (f2, a2) = (self.zonk(f), self.zonk(a));
                if f2.ptr_eq(f) && a2.ptr_eq(a) {
                    t
                } else {
                    Type::app(f2, a2)
                }
            }
            Ty::Syn(c, xs, e) => {
                let xs2: Vec<Type> = xs.iter().map(|x| self.zonk(x)).collect();
                let e2 = self.zonk(e);
                Type::new(Ty::Syn(*c, xs2, e2))
            }
            Ty::Forall(p) => {
                let p = p.clone();
                Type::new(Ty::Forall(Rc::new(p.map(|x| self.zonk(x)))))
            }
            _ => t,
        }
    }

    /// The application spine of a type: its head (after links and synonyms)
    /// and arguments.
    pub fn spine(&mut self, t: &Type) -> (Type, Vec<Type>) {
        let mut args = Vec::new();
        let mut t = self.head(t);
        while let Ty::App(f, a) = t.ty() {
            args.push(a.clone());
            let next = f.clone();
            t = self.head(&next);
        }
        args.reverse();
        (t, args)
    }

    /// Unifies two types. On failure some variables may already be bound;
    /// the caller reports the error and goes on.
    pub fn unify(&mut self, a: &Type, b: &Type) -> Result<(), UnifyError> {
        gph_syntax::stack::guard();
        let a = self.prune(a);
        let b = self.prune(b);
        if a.ptr_eq(&b) {
            return Ok(());
        }
        match (a.ty(), b.ty()) {
            (Ty::Error, _) | (_, Ty::Error) => Ok(()),
            (Ty::Var(x), Ty::Var(y)) if x == y => Ok(()),
            // Bind the deeper variable to the other (it is the touchable one).
            (Ty::Var(x), Ty::Var(y))
                if self.vars[*x as usize].level < self.vars[*y as usize].level =>
            {
                self.bind(*y, &a)
            }
            (Ty::Var(x), _) => self.bind(*x, &b),
            (_, Ty::Var(y)) => self.bind(*y, &a),
            (Ty::Syn(c1, xs1, _), Ty::Syn(c2, xs2, _)) if c1 == c2 && xs1.len() == xs2.len() => {
                // Same synonym: unify the arguments (keeps `String` vs
                // `String` cheap and the error messages in synonym terms).
                let (xs1, xs2) = (xs1.clone(), xs2.clone());
                let mut r = Ok(());
                for (x, y) in xs1.iter().zip(&xs2) {
                    if let Err(e) = self.unify(x, y) {
                        r = Err(e);
                        break;
                    }
                }
                match r {
                    Ok(()) => Ok(()),
                    // Arguments may be phantom: fall back to the expansions.
                    Err(_) => {
                        let (ea, eb) = (self.head(&a), self.head(&b));
                        self.unify(&ea, &eb)
                    }
                }
            }
            (Ty::Syn(_, _, e), _) => {
                let e = e.clone();
                self.unify(&e, &b)
            }
            (_, Ty::Syn(_, _, e)) => {
                let e = e.clone();
                self.unify(&a, &e)
            }
            (Ty::Con(c1), Ty::Con(c2)) if c1 == c2 => Ok(()),
            (Ty::Skol(s1), Ty::Skol(s2)) if s1 == s2 => Ok(()),
            (Ty::Gen(g1), Ty::Gen(g2)) if g1 == g2 => Ok(()),
            (Ty::Bound(b1), Ty::Bound(b2)) if b1 == b2 => Ok(()),
            (Ty::Forall(p1), Ty::Forall(p2))
                if p1.vars.len() == p2.vars.len()
                    && p1.preds.len() == p2.preds.len()
                    && p1
                        .preds
                        .iter()
                        .zip(&p2.preds)
                        .all(|(x, y)| x.class == y.class) =>
            {
                // Equal up to the names of their variables: both
                // instantiated with the same fresh rigid variables.
                let (p1, p2) = (p1.clone(), p2.clone());
                let sks: Vec<Type> = p1
                    .vars
                    .iter()
                    .map(|(_, n)| self.skolem(n.clone(), None))
                    .collect();
                let ids1: Vec<u32> = p1.vars.iter().map(|(i, _)| *i).collect();
                let ids2: Vec<u32> = p2.vars.iter().map(|(i, _)| *i).collect();
                for (x, y) in p1.parts().iter().zip(p2.parts().iter()) {
                    let x = subst_bound(x, &ids1, &sks);
                    let y = subst_bound(y, &ids2, &sks);
                    self.unify(&x, &y)
                        .map_err(|_| UnifyError::Mismatch(a.clone(), b.clone()))?;
                }
                Ok(())
            }
            (Ty::App(f1, a1), Ty::App(f2, a2)) => {
                let (f1, a1, f2, a2) = (f1.clone(), a1.clone(), f2.clone(), a2.clone());
                self.unify(&f1, &f2)?;
                self.unify(&a1, &a2)
            }
            (Ty::Skol(s), _) => Err(UnifyError::Rigid(*s, b.clone())),
            (_, Ty::Skol(s)) => Err(UnifyError::Rigid(*s, a.clone())),
            _ => Err(UnifyError::Mismatch(a.clone(), b.clone())),
        }
    }

    fn bind(&mut self, v: u32, t: &Type) -> Result<(), UnifyError> {
        // A variable stands for a monotype (no ImpredicativeTypes): a
        // polymorphic argument needs a signature that says so.
        if matches!(self.head(t).ty(), Ty::Forall(_)) {
            return Err(UnifyError::Mismatch(Type::var(v), t.clone()));
        }
        let level = self.vars[v as usize].level;
        if self.deferring && level < self.level && self.closed(t, level) {
            self.deferred.push((v, t.clone()));
            return Ok(());
        }
        match self.adjust(v, level, t) {
            Ok(()) => {
                self.vars[v as usize].link = Some(t.clone());
                Ok(())
            }
            Err(AdjustError::Occurs) => Err(UnifyError::Occurs(Type::var(v), t.clone())),
            Err(AdjustError::Escape(s)) => Err(UnifyError::Rigid(s, Type::var(v))),
        }
    }

    /// Whether every variable of `t` lives at `level` or outside it.
    pub fn closed(&mut self, t: &Type, level: u32) -> bool {
        gph_syntax::stack::guard();
        let t = self.prune(t);
        match t.ty() {
            Ty::Var(w) => self.vars[*w as usize].level <= level,
            Ty::Skol(s) => self.skolems[*s as usize].level <= level,
            Ty::App(f, a) => {
                let (f, a) = (f.clone(), a.clone());
                self.closed(&f, level) && self.closed(&a, level)
            }
            Ty::Syn(_, _, e) => {
                let e = e.clone();
                self.closed(&e, level)
            }
            Ty::Forall(p) => p.parts().iter().all(|x| self.closed(x, level)),
            Ty::Con(_) | Ty::Gen(_) | Ty::Error | Ty::Bound(_) => true,
        }
    }

    /// Occurs check, and lowers the levels of the variables of `t` to
    /// `level` (they become as long-lived as `v`).
    fn adjust(&mut self, v: u32, level: u32, t: &Type) -> Result<(), AdjustError> {
        self.adjust_ground(v, level, t).map(|_| ())
    }

    /// [`TypeTable::adjust`], returning whether `t` is ground (no variable
    /// or skolem).
    fn adjust_ground(&mut self, v: u32, level: u32, t: &Type) -> Result<bool, AdjustError> {
        gph_syntax::stack::guard();
        // A refined rigid variable (a link that will be cut) is never
        // ground: what contains it is not cached as ground.
        let t = self.prune_vars(t);
        if let Ty::Skol(s) = t.ty() {
            if let Some(l) = self.skolems[*s as usize].link.clone() {
                self.adjust_ground(v, level, &l)?;
                return Ok(false);
            }
        }
        match t.ty() {
            Ty::Var(w) => {
                if *w == v {
                    return Err(AdjustError::Occurs);
                }
                let info = &mut self.vars[*w as usize];
                if info.level > level {
                    info.level = level;
                }
                Ok(false)
            }
            Ty::Skol(s) => {
                if self.skolems[*s as usize].level > level {
                    Err(AdjustError::Escape(*s))
                } else {
                    Ok(false)
                }
            }
            Ty::App(f, a) => {
                if self.ground.contains_key(&Rc::as_ptr(&t.0)) {
                    return Ok(true);
                }
                let (f, a) = (f.clone(), a.clone());
                let ground =
                    self.adjust_ground(v, level, &f)? & self.adjust_ground(v, level, &a)?;
                if ground {
                    self.ground.insert(Rc::as_ptr(&t.0), t.clone());
                }
                Ok(ground)
            }
            Ty::Syn(_, _, e) => {
                // Only the expansion matters for the occurs check; a phantom
                // synonym argument mentioning `v` is harmless.
                let e = e.clone();
                self.adjust_ground(v, level, &e)
            }
            Ty::Forall(p) => {
                let mut ground = true;
                for x in p.parts() {
                    ground &= self.adjust_ground(v, level, &x)?;
                }
                Ok(ground)
            }
            Ty::Con(_) | Ty::Gen(_) | Ty::Error | Ty::Bound(_) => Ok(true),
        }
    }

    /// Structural equality after resolving links and synonyms.
    pub fn equal(&mut self, a: &Type, b: &Type) -> bool {
        gph_syntax::stack::guard();
        let a = self.head(a);
        let b = self.head(b);
        match (a.ty(), b.ty()) {
            (Ty::Var(x), Ty::Var(y)) => x == y,
            (Ty::Skol(x), Ty::Skol(y)) => x == y,
            (Ty::Gen(x), Ty::Gen(y)) => x == y,
            (Ty::Con(x), Ty::Con(y)) => x == y,
            (Ty::App(f1, a1), Ty::App(f2, a2)) => {
                let (f1, a1, f2, a2) = (f1.clone(), a1.clone(), f2.clone(), a2.clone());
                self.equal(&f1, &f2) && self.equal(&a1, &a2)
            }
            (Ty::Error, Ty::Error) => true,
            (Ty::Bound(x), Ty::Bound(y)) => x == y,
            (Ty::Forall(p1), Ty::Forall(p2)) if p1.vars.len() == p2.vars.len() => {
                let ids2: Vec<u32> = p2.vars.iter().map(|(i, _)| *i).collect();
                let as1: Vec<Type> = p1
                    .vars
                    .iter()
                    .map(|(i, _)| Type::new(Ty::Bound(*i)))
                    .collect();
                let (xs, ys) = (p1.parts(), p2.parts());
                xs.len() == ys.len()
                    && p1
                        .preds
                        .iter()
                        .zip(&p2.preds)
                        .all(|(x, y)| x.class == y.class)
                    && xs
                        .iter()
                        .zip(&ys)
                        .all(|(x, y)| self.equal(x, &subst_bound(y, &ids2, &as1)))
            }
            _ => false,
        }
    }

    /// Whether the type contains a meta or rigid variable deeper than `level`.
    pub fn has_inner_vars(&mut self, t: &Type, level: u32) -> bool {
        gph_syntax::stack::guard();
        let t = self.head(t);
        match t.ty() {
            Ty::Var(v) => self.vars[*v as usize].level > level,
            Ty::Skol(s) => self.skolems[*s as usize].level > level,
            Ty::App(f, a) => {
                let (f, a) = (f.clone(), a.clone());
                self.has_inner_vars(&f, level) || self.has_inner_vars(&a, level)
            }
            Ty::Forall(p) => p.parts().iter().any(|x| self.has_inner_vars(x, level)),
            _ => false,
        }
    }

    /// Whether the type contains the error type.
    pub fn has_error(&mut self, t: &Type) -> bool {
        gph_syntax::stack::guard();
        let t = self.head(t);
        match t.ty() {
            Ty::Error => true,
            Ty::App(f, a) => {
                let (f, a) = (f.clone(), a.clone());
                self.has_error(&f) || self.has_error(&a)
            }
            Ty::Forall(p) => p.parts().iter().any(|x| self.has_error(x)),
            _ => false,
        }
    }

    /// The unbound meta variables of a type, in order of first appearance.
    pub fn free_vars(&mut self, t: &Type, out: &mut Vec<u32>) {
        gph_syntax::stack::guard();
        let t = self.head(t);
        match t.ty() {
            Ty::Var(v) if !out.contains(v) => out.push(*v),
            Ty::App(f, a) => {
                let (f, a) = (f.clone(), a.clone());
                self.free_vars(&f, out);
                self.free_vars(&a, out);
            }
            Ty::Forall(p) => p.parts().iter().for_each(|x| self.free_vars(x, out)),
            _ => {}
        }
    }

    /// Lowers every variable of `t` to at most `level` (so that it is not
    /// generalised: the monomorphism restriction).
    pub fn lower(&mut self, t: &Type, level: u32) {
        let mut vs = Vec::new();
        self.free_vars(t, &mut vs);
        for v in vs {
            let info = &mut self.vars[v as usize];
            info.level = info.level.min(level);
        }
    }
}

enum AdjustError {
    Occurs,
    Escape(u32),
}
