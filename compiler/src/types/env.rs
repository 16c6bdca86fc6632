//! The global environment: type constructors (with their kinds, data
//! constructors and synonym expansions), classes, instances, and the types
//! of top-level values, for all modules checked so far.

use super::ty::*;
use gph_syntax::lexer::Sym;
use gph_syntax::Span;
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub enum TyConDef {
    /// A primitive or built-in type with no visible constructors (or the
    /// built-in syntax types, whose constructors are registered directly).
    Abstract,
    Data {
        newtype: bool,
        cons: Vec<Global>,
    },
    /// `type T a b = rhs`; `rhs` mentions the parameters as `Gen(i)`.
    Synonym {
        params: usize,
        rhs: Type,
    },
}

#[derive(Clone, Debug)]
pub struct TyConInfo {
    pub name: Global,
    pub kind: Kind,
    pub arity: usize,
    pub def: TyConDef,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct DataConInfo {
    pub name: Global,
    pub tycon: TcId,
    /// Position among the type's constructors.
    pub tag: usize,
    /// The fields written (the value also holds one dictionary per
    /// predicate of `scheme`, before them).
    pub arity: usize,
    pub strict: Vec<bool>,
    /// `forall params exists. ctx => t1 -> ... -> tn -> T params`: an
    /// existential constructor has variables beyond the type's parameters
    /// (the last `exists`) and a context.
    pub scheme: Scheme,
    pub exists: usize,
    /// GADTs: the parameters its result fixes, each with its type (in the
    /// scheme's variables); `scheme`'s result has them in their places.
    pub eqs: Vec<(usize, Type)>,
}

impl DataConInfo {
    /// Whether matching it brings hidden types, dictionaries or equalities
    /// into scope.
    pub fn is_existential(&self) -> bool {
        self.exists > 0 || !self.scheme.preds.is_empty() || !self.eqs.is_empty()
    }
}

#[derive(Clone, Debug)]
pub struct ClassInfo {
    pub name: Global,
    pub tyvar: Sym,
    pub kind: Kind,
    /// The parameters after the first, with their kinds
    /// (MultiParamTypeClasses): the class is then a constraint on the
    /// type `(#n) a b ...` of all of them (`Tc::class_type`).
    pub more: Vec<(Sym, Kind)>,
    /// Functional dependencies, as parameter positions: `from -> to`.
    pub fundeps: Vec<(Vec<usize>, Vec<usize>)>,
    /// Direct superclasses, in declaration order (dictionary fields 0..).
    pub supers: Vec<ClassId>,
    /// The type each superclass constrains, over the class's parameters
    /// (`Gen(i)` the i-th): `Gen(0)` for a class of one parameter;
    /// `Monad m` of `class Monad m => MonadState s m` is `Gen(1)`.
    pub super_tys: Vec<Type>,
    /// Methods in declaration order (dictionary fields after the supers).
    pub methods: Vec<Global>,
    /// The default method's global name, per method.
    pub defaults: Vec<Option<Global>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct InstInfo {
    pub class: ClassId,
    /// Names of the instance's type variables (`Gen(i)` in head/context).
    pub vars: Vec<Sym>,
    pub head: Type,
    pub context: Vec<Pred>,
    /// The dictionary (function) that implements it.
    pub dfun: Global,
    pub span: Span,
}

/// What a value name refers to.
#[derive(Clone, Debug)]
pub enum ValueInfo {
    /// A value with a known scheme (a function, a method, a primitive).
    Poly(Scheme),
    /// A binding of the group being inferred right now: monomorphic, and
    /// recursive occurrences are elaborated as `RecRef` to its group.
    InProgress(Type, u32),
}

/// Key of the instance index: the class and the head type constructor
/// (`None` for an instance whose head is a type variable).
pub type InstKey = (ClassId, Option<TcId>);

#[derive(Default)]
pub struct Env {
    pub tycons: Vec<TyConInfo>,
    pub tycon_names: HashMap<Global, TcId>,
    pub datacons: HashMap<Global, DataConInfo>,
    pub classes: Vec<ClassInfo>,
    pub class_names: HashMap<Global, ClassId>,
    pub instances: Vec<InstInfo>,
    /// The instances under each key: one in Haskell 2010, several with
    /// FlexibleInstances (`C (Maybe Int)`, `C (Maybe Bool)`, `C [Char]`
    /// beside `C [a]`), the most specific that matches chosen.
    pub inst_index: HashMap<InstKey, Vec<usize>>,
    pub values: HashMap<Global, ValueInfo>,
    /// Methods: global name to (class, index among its methods).
    pub methods: HashMap<Global, (ClassId, usize)>,
    /// Field labels whose type an existential constructor hides: they have
    /// no selector function (records.rs), and a use says why.
    pub hidden_fields: std::collections::HashSet<Global>,
    /// Synonyms of constraints (ConstraintKinds: `type Sortable a = (Ord a,
    /// Show a)`): their parameters and the constraints they stand for,
    /// expanded where a context names them.
    pub constraint_synonyms: HashMap<Global, (Vec<Sym>, Vec<gph_syntax::ast::Pred>)>,
}

impl Env {
    pub fn tycon(&self, t: TcId) -> &TyConInfo {
        &self.tycons[t.0 as usize]
    }
    pub fn class(&self, c: ClassId) -> &ClassInfo {
        &self.classes[c.0 as usize]
    }
    pub fn add_tycon(&mut self, info: TyConInfo) -> TcId {
        let id = TcId(self.tycons.len() as u32);
        self.tycon_names.insert(info.name.clone(), id);
        self.tycons.push(info);
        id
    }
    pub fn add_class(&mut self, info: ClassInfo) -> ClassId {
        let id = ClassId(self.classes.len() as u32);
        self.class_names.insert(info.name.clone(), id);
        self.classes.push(info);
        id
    }
    pub fn lookup_tycon(&self, g: &Global) -> Option<TcId> {
        self.tycon_names.get(g).copied()
    }
    pub fn lookup_class(&self, g: &Global) -> Option<ClassId> {
        self.class_names.get(g).copied()
    }

    /// Every superclass of `c` (transitively), with the path of field
    /// indices from a `c` dictionary to it, breadth first.
    /// The number of its parameters.
    pub fn class_arity(&self, c: ClassId) -> usize {
        1 + self.class(c).more.len()
    }

    pub fn super_closure(&self, c: ClassId) -> Vec<(ClassId, Vec<(ClassId, usize)>)> {
        let mut out: Vec<(ClassId, Vec<(ClassId, usize)>)> = vec![(c, Vec::new())];
        let mut i = 0;
        while i < out.len() {
            let (cur, path) = out[i].clone();
            for (k, &s) in self.class(cur).supers.iter().enumerate() {
                if !out.iter().any(|(d, _)| *d == s) {
                    let mut p = path.clone();
                    p.push((cur, k));
                    out.push((s, p));
                }
            }
            i += 1;
        }
        out
    }

    /// Whether `sub` has `sup` among its (transitive) superclasses or is it.
    pub fn is_subclass(&self, sub: ClassId, sup: ClassId) -> bool {
        self.super_closure(sub).iter().any(|(c, _)| *c == sup)
    }
}
