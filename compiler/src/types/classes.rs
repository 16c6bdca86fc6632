//! Type classes: solving wanted constraints (by the givens of a signature or
//! instance context and their superclasses, or by instance declarations,
//! whose contexts become new wanted constraints), choosing the context of
//! an inferred type (duplicates and constraints implied by a superclass
//! removed), defaulting ambiguous type variables (Haskell 2010 rules), and
//! the corresponding errors. Every solved constraint fills its evidence
//! hole with a dictionary expression.

use super::elab::Dict;
use super::env::{InstInfo, TyConDef};
use super::tc::{Given, Tc, Wanted, PRELUDE};
use super::ty::*;
use gph_syntax::lexer::Sym;
use gph_syntax::Diagnostic;
use std::collections::{HashMap, HashSet};

/// The classes Haskell 2010 calls numeric (defaulting needs one of them).
const NUMERIC: &[&str] = &[
    "Num",
    "Real",
    "Integral",
    "Fractional",
    "Floating",
    "RealFrac",
    "RealFloat",
];

/// GHCi's interactive classes: under its extended default rules one of
/// them (or a numeric class) is enough for a variable to be defaulted.
const INTERACTIVE: &[&str] = &["Show", "Eq", "Ord", "Foldable", "Traversable"];

/// The classes GHC considers standard for defaulting (all in the
/// Prelude): the numeric ones and these.
const STANDARD: &[&str] = &[
    "Eq",
    "Ord",
    "Enum",
    "Bounded",
    "Show",
    "Read",
    "Functor",
    "Applicative",
    "Monad",
    "MonadFail",
    "Semigroup",
    "Monoid",
    "Foldable",
    "Traversable",
];

/// Classes that `deriving` can produce, for the help of a missing instance.
const DERIVABLE: &[&str] = &["Eq", "Ord", "Show", "Enum", "Bounded", "Read"];

pub fn error_dict() -> Dict {
    Dict::Var(Sym::from("$error"))
}

impl Tc {
    fn is_prelude_class(&self, c: ClassId, names: &[&str]) -> bool {
        let n = &self.env.class(c).name;
        &*n.module == PRELUDE && names.contains(&&*n.name)
    }

    /// Whether `c` is `Typeable` (Gph.Prim's, re-exported by Data.Typeable
    /// and Control.Exception), which no instance declaration defines.
    fn is_typeable(&self, c: ClassId) -> bool {
        let n = &self.env.class(c).name;
        &*n.module == "Gph.Prim" && &*n.name == "Typeable"
    }

    /// Adds a given dictionary and, through superclass fields, its
    /// superclasses (each at its type: the class's own for a class of one
    /// parameter, the one its declaration names for a class of several).
    pub fn add_given(&mut self, givens: &mut Vec<Given>, class: ClassId, ty: Type, dict: Dict) {
        let mut queue = std::collections::VecDeque::from([(class, ty, dict)]);
        let mut seen: Vec<(ClassId, Type)> = Vec::new();
        while let Some((c, t, d)) = queue.pop_front() {
            if seen
                .iter()
                .any(|(sc, st)| *sc == c && self.table.equal(st, &t))
            {
                continue;
            }
            seen.push((c, t.clone()));
            let args = self.class_args(c, &t);
            let info = self.env.class(c);
            for (k, (s, st)) in info.supers.iter().zip(&info.super_tys).enumerate() {
                let sd = Dict::Super(Box::new(d.clone()), info.name.clone(), k);
                queue.push_back((*s, subst_gen(st, &args), sd));
            }
            givens.push(Given {
                class: c,
                ty: t,
                dict: d,
            });
        }
    }

    fn find_given(&mut self, class: ClassId, t: &Type, givens: &[Given]) -> Option<Dict> {
        for g in givens {
            if g.class == class && self.table.equal(&g.ty, t) {
                return Some(g.dict.clone());
            }
        }
        None
    }

    /// One-way matching of an instance head (with `Gen` variables) against
    /// a type.
    pub fn match_ty(&mut self, pat: &Type, t: &Type, sub: &mut Vec<Option<Type>>) -> bool {
        self.match_head(pat, t, &mut Some(sub))
    }

    /// Matching as `match_ty`; with no substitution (`None`), whether the
    /// head could match once `t`'s unknowns are known: an unknown matches
    /// anything, and the head's variables are not held to one type each.
    fn match_head(
        &mut self,
        pat: &Type,
        t: &Type,
        sub: &mut Option<&mut Vec<Option<Type>>>,
    ) -> bool {
        gph_syntax::stack::guard();
        let h = self.table.head(t);
        if sub.is_none() && matches!(h.ty(), Ty::Var(_)) {
            return true;
        }
        match pat.ty() {
            Ty::Gen(i) => {
                let Some(sub) = sub else { return true };
                let i = *i as usize;
                if i >= sub.len() {
                    return false;
                }
                match sub[i].clone() {
                    Some(x) => self.table.equal(&x, t),
                    None => {
                        sub[i] = Some(t.clone());
                        true
                    }
                }
            }
            Ty::Syn(_, _, e) => {
                let e = e.clone();
                self.match_head(&e, t, sub)
            }
            Ty::Con(c) => matches!(h.ty(), Ty::Con(c2) if c2 == c),
            Ty::App(pf, pa) => match h.ty() {
                Ty::App(tf, ta) => {
                    let (pf, pa, tf, ta) = (pf.clone(), pa.clone(), tf.clone(), ta.clone());
                    self.match_head(&pf, &tf, sub) && self.match_head(&pa, &ta, sub)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The instance of `class` whose head matches `t`, with the types of
    /// the instance's variables.
    /// Of several that match (FlexibleInstances), the most specific; none
    /// while a more specific one might still match once `t`'s unknowns
    /// are known (`could_match_instance` then says to wait).
    pub fn find_instance(&mut self, class: ClassId, t: &Type) -> Option<(InstInfo, Vec<Type>)> {
        let mut best: Option<(InstInfo, Vec<Type>, usize)> = None;
        // The size of the most specific instance that might yet match
        // (only while `t` has unknowns: looked for once an instance fails
        // to match, so the usual single match costs no walk over `t`).
        let mut waiting: Option<usize> = None;
        let mut unknowns: Option<bool> = None;
        for i in self.instance_candidates(class, t) {
            let info = self.env.instances[i].clone();
            let mut sub = vec![None; info.vars.len()];
            let size = type_size(&info.head);
            if self.match_ty(&info.head, t, &mut sub) {
                if best.as_ref().is_none_or(|b| size > b.2) {
                    let args = sub
                        .into_iter()
                        .map(|x| x.unwrap_or_else(Type::error))
                        .collect();
                    best = Some((info, args, size));
                }
            } else if *unknowns.get_or_insert_with(|| self.has_unknowns(t))
                && self.could_match(&info.head, t)
            {
                waiting = waiting.max(Some(size));
            }
        }
        best.filter(|b| waiting.is_none_or(|w| b.2 > w))
            .map(|(info, args, _)| (info, args))
    }

    /// The instances of `class` that might apply to `t`: those under its
    /// head constructor and those for every type.
    fn instance_candidates(&mut self, class: ClassId, t: &Type) -> Vec<usize> {
        let (h, _) = self.table.spine(t);
        let mut cands = Vec::new();
        if let Ty::Con(c) = h.ty() {
            cands.extend(
                self.env
                    .inst_index
                    .get(&(class, Some(*c)))
                    .into_iter()
                    .flatten(),
            );
        }
        cands.extend(
            self.env
                .inst_index
                .get(&(class, None))
                .into_iter()
                .flatten(),
        );
        cands
    }

    /// Whether an instance of `class` could match `t` once the unknowns in
    /// `t` are known (so a missing match is not yet an error).
    pub fn could_match_instance(&mut self, class: ClassId, t: &Type) -> bool {
        if !self.has_unknowns(t) {
            return false;
        }
        self.instance_candidates(class, t).into_iter().any(|i| {
            let head = self.env.instances[i].head.clone();
            self.could_match(&head, t)
        })
    }

    fn has_unknowns(&mut self, t: &Type) -> bool {
        let mut vs = Vec::new();
        self.table.free_vars(t, &mut vs);
        !vs.is_empty()
    }

    /// Whether the head could match `t` once `t`'s unknowns are known.
    fn could_match(&mut self, pat: &Type, t: &Type) -> bool {
        self.match_head(pat, t, &mut None)
    }

    /// Whether `C t` holds by instances alone (for defaulting).
    pub fn has_instance(&mut self, class: ClassId, t: &Type, depth: u32) -> bool {
        gph_syntax::stack::guard();
        if depth > 50 {
            return false;
        }
        if self.is_typeable(class) {
            let (h, _) = self.table.spine(t);
            return matches!(h.ty(), Ty::Con(_));
        }
        match self.find_instance(class, t) {
            Some((info, args)) => info
                .context
                .iter()
                .all(|p| self.has_instance(p.class, &subst_gen(&p.ty, &args), depth + 1)),
            None => false,
        }
    }

    /// Solves what can be solved now: by givens, or by instances when the
    /// type's head is known. Returns the constraints that remain, split
    /// into those on variables of the group being generalised (deeper than
    /// `outer`) and those to pass on to the enclosing scope. `quiet`: do not
    /// report missing instances (the group already had a type error).
    pub fn simplify(
        &mut self,
        ws: Vec<Wanted>,
        givens: &[Given],
        outer: u32,
        quiet: bool,
    ) -> (Vec<Wanted>, Vec<Wanted>) {
        let mut local = Vec::new();
        let mut deferred = Vec::new();
        let mut work = ws;
        work.reverse();
        let mut steps = 0usize;
        // The constraints of classes with functional dependencies met so
        // far, for improvement between them.
        let mut fd_seen: Vec<(ClassId, Type)> = Vec::new();
        let mut improved = false;
        let mut by_instance: Vec<(ClassId, Type, u32)> = Vec::new();
        while let Some(w) = work.pop() {
            steps += 1;
            if steps > 200_000 {
                if steps == 200_001 {
                    let shown = self.show_pred(w.class, &w.ty);
                    self.error(
                        Diagnostic::error(
                            w.origin.span,
                            format!("solving `{shown}` does not end: its instances' contexts grow without bound"),
                        )
                        .with_help(
                            "an instance context no smaller than the instance head (GHC's \
                             UndecidableInstances) can make the search go on for ever",
                        ),
                    );
                }
                self.fill(w.hole, error_dict());
                continue;
            }
            let t = self.table.head(&w.ty);
            if self.table.has_error(&t) {
                self.fill(w.hole, error_dict());
                continue;
            }
            let mut t = t;
            if !self.env.class(w.class).fundeps.is_empty() {
                if self.improve(w.class, &t, givens, &fd_seen) {
                    t = self.table.head(&w.ty);
                    improved = true;
                }
                fd_seen.push((w.class, t.clone()));
            }
            if let Some(d) = self.find_given(w.class, &t, givens) {
                self.fill(w.hole, d);
                continue;
            }
            // A constraint already solved by an instance here shares its
            // dictionary; when an instance's context leads back to the
            // constraint itself, the dictionary is recursive (`resolve_dict`).
            if let Some(&(_, _, h)) = by_instance
                .iter()
                .find(|(c, bt, _)| *c == w.class && self.table.equal(bt, &t))
            {
                self.fill(w.hole, Dict::Hole(h));
                continue;
            }
            let (h, _) = self.table.spine(&t);
            let known_head = matches!(h.ty(), Ty::Con(_));
            match self.find_instance(w.class, &t) {
                Some((info, args)) => {
                    let mut dicts = Vec::new();
                    for p in &info.context {
                        let hole = self.new_hole();
                        dicts.push(Dict::Hole(hole));
                        work.push(Wanted {
                            class: p.class,
                            ty: subst_gen(&p.ty, &args),
                            hole,
                            origin: w.origin.clone(),
                            group: w.group,
                        });
                    }
                    self.fill(w.hole, Dict::Inst(info.dfun.clone(), dicts));
                    if !self.has_unknowns(&t) {
                        by_instance.push((w.class, t.clone(), w.hole));
                    }
                }
                None if known_head && self.is_typeable(w.class) => {
                    // Solved for every type constructor, as GHC does: the
                    // arguments' dictionaries are wanted in turn.
                    let (h, args) = self.table.spine(&t);
                    let Ty::Con(c) = h.ty() else {
                        unreachable!("a known head")
                    };
                    let name = self.env.tycon(*c).name.clone();
                    let mut dicts = Vec::new();
                    for a in args {
                        let hole = self.new_hole();
                        dicts.push(Dict::Hole(hole));
                        work.push(Wanted {
                            class: w.class,
                            ty: a,
                            hole,
                            origin: w.origin.clone(),
                            group: w.group,
                        });
                    }
                    self.fill(w.hole, Dict::Typeable(name, dicts));
                }
                None if known_head && !self.could_match_instance(w.class, &t) => {
                    if !quiet {
                        self.no_instance(&w, None);
                    }
                    self.fill(w.hole, error_dict());
                }
                None => {
                    if self.table.has_inner_vars(&t, outer) {
                        local.push(w)
                    } else {
                        deferred.push(w)
                    }
                }
            }
        }
        // What improvement learnt may solve constraints met before it
        // (`Show w` before `Tell [a] (W w)` fixed `w`): once more.
        if improved && !(local.is_empty() && deferred.is_empty()) {
            let mut again = local;
            again.extend(deferred);
            return self.simplify(again, givens, outer, quiet);
        }
        (local, deferred)
    }

    /// Improvement by functional dependencies (`| f -> a`): when the
    /// arguments a dependency goes from are those of a given, of another
    /// constraint met (`seen`) or of an instance's head, the arguments it
    /// goes to are made equal to theirs, as GHC does. Whether anything
    /// was learnt.
    fn improve(
        &mut self,
        c: ClassId,
        t: &Type,
        givens: &[Given],
        seen: &[(ClassId, Type)],
    ) -> bool {
        let fundeps = self.env.class(c).fundeps.clone();
        let args = self.class_args(c, t);
        let others: Vec<Vec<Type>> = givens
            .iter()
            .filter(|g| g.class == c)
            .map(|g| g.ty.clone())
            .chain(seen.iter().filter(|s| s.0 == c).map(|s| s.1.clone()))
            .collect::<Vec<_>>()
            .iter()
            .map(|o| self.class_args(c, o))
            .collect();
        let mut learnt = false;
        for (from, to) in &fundeps {
            let same_from = others
                .iter()
                .find(|o| from.iter().all(|&i| self.table.equal(&args[i], &o[i])));
            if let Some(o) = same_from {
                for &j in to {
                    if !self.table.equal(&args[j], &o[j]) {
                        learnt |= self.table.unify(&args[j], &o[j]).is_ok();
                    }
                }
                continue;
            }
            for i in self.instance_candidates(c, t) {
                let info = self.env.instances[i].clone();
                let iargs = self.class_args(c, &info.head);
                let mut sub = vec![None; info.vars.len()];
                if from
                    .iter()
                    .all(|&k| self.match_ty(&iargs[k], &args[k], &mut sub))
                {
                    let inst: Vec<Type> = sub
                        .into_iter()
                        .map(|x| x.unwrap_or_else(|| self.table.fresh()))
                        .collect();
                    for &j in to {
                        let want = subst_gen(&iargs[j], &inst);
                        if !self.table.equal(&args[j], &want) {
                            learnt |= self.table.unify(&args[j], &want).is_ok();
                        }
                    }
                    break;
                }
            }
        }
        learnt
    }

    pub fn no_instance(&mut self, w: &Wanted, sig_owner: Option<&str>) {
        for (c, t, g) in self.reported.clone() {
            if c == w.class && g == w.group && self.table.equal(&t, &w.ty) {
                return;
            }
        }
        self.reported.push((w.class, w.ty.clone(), w.group));
        let shown = self.show_pred(w.class, &w.ty);
        let mut d = Diagnostic::error(
            w.origin.span,
            format!("no instance for `{shown}` arising from {}", w.origin.what),
        );
        let class_name = self.env.class(w.class).name.clone();
        let (h, _) = self.table.spine(&w.ty);
        match h.ty() {
            Ty::Con(c) if Some(*c) == self.known.arrow => {
                d = d.with_help("maybe a function is missing some of its arguments?");
            }
            Ty::Con(c) => {
                let info = self.env.tycon(*c);
                let user_data =
                    matches!(info.def, TyConDef::Data { .. }) && *info.name.module == *self.module;
                if user_data
                    && &*class_name.module == PRELUDE
                    && DERIVABLE.contains(&&*class_name.name)
                {
                    d = d.with_help(format!(
                        "add `deriving ({})` to the declaration of `{}`",
                        class_name.name, info.name.name
                    ));
                }
            }
            Ty::Skol(_) => {
                let owner = super::errors::owner_phrase(sig_owner);
                d = d.with_help(format!("add `{shown}` to the context of {owner}"));
            }
            _ => {}
        }
        self.error(d);
    }

    /// After a signature's givens have been used: what is left on the
    /// signature's own type variables is missing from its context; what is
    /// left on other inner variables is ambiguous (defaulted if possible).
    pub fn solve_local(
        &mut self,
        local: Vec<Wanted>,
        givens: &[Given],
        outer: u32,
        quiet: bool,
        owner: Option<&str>,
    ) {
        let mut ambiguous = Vec::new();
        for w in local {
            if self.has_inner_skolem(&w.ty, outer) {
                if !quiet {
                    self.no_instance(&w, owner);
                }
                self.fill(w.hole, error_dict());
            } else {
                ambiguous.push(w);
            }
        }
        self.default_wanteds(ambiguous, givens, outer, quiet);
    }

    fn has_inner_skolem(&mut self, t: &Type, outer: u32) -> bool {
        gph_syntax::stack::guard();
        let t = self.table.head(t);
        match t.ty() {
            Ty::Skol(s) => self.table.skolems[*s as usize].level > outer,
            Ty::App(f, a) => {
                let (f, a) = (f.clone(), a.clone());
                self.has_inner_skolem(&f, outer) || self.has_inner_skolem(&a, outer)
            }
            _ => false,
        }
    }

    /// The default candidate types: the module's `default` declaration, or
    /// `(Integer, Double)`.
    fn default_types(&self) -> Vec<Type> {
        if let Some(ds) = &self.defaults {
            return ds.clone();
        }
        ["Integer", "Double"]
            .iter()
            .map(|n| self.prim_type(n))
            .collect()
    }

    /// Defaults the ambiguous type variables of these constraints (Haskell
    /// 2010 section 4.3.4) and solves them; reports those that stay
    /// ambiguous.
    pub fn default_wanteds(&mut self, ws: Vec<Wanted>, givens: &[Given], outer: u32, quiet: bool) {
        if ws.is_empty() {
            return;
        }
        // Each variable's classes, and the variables that occur in other
        // constraints (blocked), in one pass: a pass per variable was
        // quadratic in a nest of 5,000 `let`s (9 s).
        let mut vars = Vec::new();
        let mut classes_of: HashMap<u32, Vec<_>> = HashMap::new();
        let mut in_others: HashSet<u32> = HashSet::new();
        for w in &ws {
            let t = self.table.head(&w.ty);
            match t.ty() {
                Ty::Var(v) => {
                    let cs = classes_of.entry(*v).or_insert_with(|| {
                        vars.push(*v);
                        Vec::new()
                    });
                    cs.push(w.class);
                }
                _ => {
                    let mut fv = Vec::new();
                    self.table.free_vars(&t, &mut fv);
                    in_others.extend(fv);
                }
            }
        }
        let candidates = self.default_types();
        // GHCi's extended rules put `()` and the list type first (`show []`
        // is "[]", `null mempty` asks of a list).
        let list = Type::con(self.known.list.unwrap_or(TcId(0)));
        let mut extended_candidates = vec![self.tuple_of(Vec::new()), list];
        extended_candidates.extend(candidates.iter().cloned());
        for v in vars {
            let classes = classes_of.remove(&v).unwrap_or_default();
            let blocked = in_others.contains(&v);
            let numeric = classes.iter().any(|c| self.is_prelude_class(*c, NUMERIC));
            // Constraints that arise in what was typed at the REPL follow
            // GHCi's extended default rules (ExtendedDefaultRules).
            let extended = self.interactive_from.is_some_and(|from| {
                ws.iter().any(|w| {
                    w.origin.span.start >= from
                        && matches!(self.table.head(&w.ty).ty(), Ty::Var(x) if *x == v)
                })
            });
            if extended {
                let interactive = classes
                    .iter()
                    .any(|c| self.is_prelude_class(*c, INTERACTIVE));
                // GHCi drops Haskell 2010's rule that the variable occurs in
                // no other constraint (`null mempty` is True).
                if !(numeric || interactive) {
                    continue;
                }
                for cand in &extended_candidates {
                    if classes.iter().all(|c| self.has_instance(*c, cand, 0)) {
                        let _ = self.table.unify(&Type::var(v), cand);
                        break;
                    }
                }
                continue;
            }
            // GHC counts Data.Ix's Ix among the standard classes too, so
            // `listArray (1, 3) "abc" ! 2` defaults its indices to Integer.
            let standard = classes.iter().all(|c| {
                let n = &self.env.class(*c).name;
                self.is_prelude_class(*c, NUMERIC)
                    || self.is_prelude_class(*c, STANDARD)
                    || (&*n.module == "Data.Ix" && &*n.name == "Ix")
            });
            if blocked || !numeric || !standard {
                continue;
            }
            for cand in &candidates {
                if classes.iter().all(|c| self.has_instance(*c, cand, 0)) {
                    let var = Type::var(v);
                    let _ = self.table.unify(&var, cand);
                    break;
                }
            }
        }
        let (local, deferred) = self.simplify(ws, givens, outer, quiet);
        self.wanted.extend(deferred);
        for w in local {
            if !quiet {
                self.ambiguous(&w);
            }
            self.fill(w.hole, error_dict());
        }
    }

    fn ambiguous(&mut self, w: &Wanted) {
        let shown = self.show_pred(w.class, &w.ty);
        let mut fv = Vec::new();
        self.table.free_vars(&w.ty, &mut fv);
        // The variable as the constraint names it: printed together, so
        // that both use the same names.
        let var = match fv.first() {
            Some(v) => {
                let pred = Pred {
                    class: w.class,
                    ty: w.ty.clone(),
                };
                self.print_for(&w.ty, |p| {
                    p.pred(&pred);
                    p.ty(&Type::var(*v))
                })
            }
            None => shown.clone(),
        };
        self.error(
            Diagnostic::error(
                w.origin.span,
                format!(
                    "ambiguous type variable `{var}` arising from {}",
                    w.origin.what
                ),
            )
            .with_label(format!(
                "it prevents the constraint `{shown}` from being solved"
            ))
            .with_help(format!(
                "add a type annotation to say what `{var}` should be, e.g. `(... :: Int)`"
            )),
        );
    }

    /// The context of an inferred type: one dictionary parameter per
    /// distinct constraint not implied by another one's superclasses.
    /// Fills the holes of `ws` and returns the predicates with their
    /// parameters, in the order of the type variables in `order`.
    pub fn quantify(&mut self, ws: Vec<Wanted>, order: &[u32]) -> Vec<(Pred, Sym)> {
        struct U {
            class: ClassId,
            ty: Type,
            holes: Vec<u32>,
        }
        let mut uniq: Vec<U> = Vec::new();
        for w in ws {
            let mut found = None;
            for (i, u) in uniq.iter().enumerate() {
                if u.class == w.class && self.table.equal(&u.ty, &w.ty) {
                    found = Some(i);
                    break;
                }
            }
            match found {
                Some(i) => uniq[i].holes.push(w.hole),
                None => uniq.push(U {
                    class: w.class,
                    ty: w.ty,
                    holes: vec![w.hole],
                }),
            }
        }
        // Which constraints are implied by another's superclasses.
        let n = uniq.len();
        let mut implied_by: Vec<Option<usize>> = vec![None; n];
        for i in 0..n {
            for j in 0..n {
                if i != j
                    && uniq[i].class != uniq[j].class
                    && self.env.is_subclass(uniq[j].class, uniq[i].class)
                    && self.table.equal(&uniq[i].ty.clone(), &uniq[j].ty.clone())
                {
                    implied_by[i] = Some(j);
                    break;
                }
            }
        }
        // Follow to a constraint that is kept (the superclass relation has no
        // cycles, so this ends).
        let mut kept: Vec<usize> = (0..n).filter(|&i| implied_by[i].is_none()).collect();
        let pos = |tc: &mut Tc, t: &Type| -> usize {
            let mut fv = Vec::new();
            tc.table.free_vars(t, &mut fv);
            fv.first()
                .and_then(|v| order.iter().position(|o| o == v))
                .unwrap_or(usize::MAX)
        };
        let mut keyed: Vec<(usize, String, usize)> = kept
            .iter()
            .map(|&i| {
                let t = uniq[i].ty.clone();
                (
                    pos(self, &t),
                    self.env.class(uniq[i].class).name.name.to_string(),
                    i,
                )
            })
            .collect();
        keyed.sort();
        kept = keyed.into_iter().map(|(_, _, i)| i).collect();
        let mut params: Vec<Option<Sym>> = vec![None; n];
        let mut out = Vec::new();
        for &i in &kept {
            let cname = self.env.class(uniq[i].class).name.name.clone();
            let p = self.fresh_name(&format!("d{cname}"));
            params[i] = Some(p.clone());
            for &h in &uniq[i].holes {
                self.fill(h, Dict::Var(p.clone()));
            }
            out.push((
                Pred {
                    class: uniq[i].class,
                    ty: uniq[i].ty.clone(),
                },
                p,
            ));
        }
        for i in 0..n {
            if implied_by[i].is_none() {
                continue;
            }
            // A kept constraint whose class is a subclass of this one.
            let Some(&j) = kept.iter().find(|&&j| {
                self.env.is_subclass(uniq[j].class, uniq[i].class) && {
                    let (a, b) = (uniq[i].ty.clone(), uniq[j].ty.clone());
                    self.table.equal(&a, &b)
                }
            }) else {
                continue;
            };
            let Some(pj) = params[j].clone() else {
                continue;
            };
            let mut givens = Vec::new();
            self.add_given(
                &mut givens,
                uniq[j].class,
                uniq[j].ty.clone(),
                Dict::Var(pj),
            );
            if let Some(g) = givens.into_iter().find(|g| g.class == uniq[i].class) {
                for &h in &uniq[i].holes {
                    self.fill(h, g.dict.clone());
                }
            }
        }
        out
    }
}

/// The number of type constructors in an instance head: of two heads
/// that both match, the larger is the more specific (`[Char]` over `[a]`).
fn type_size(t: &Type) -> usize {
    match t.ty() {
        Ty::App(f, a) => type_size(f) + type_size(a),
        Ty::Syn(_, _, e) => type_size(e),
        Ty::Gen(_) => 0,
        _ => 1,
    }
}
