//! The type checker: Hindley-Milner inference with type classes, and the
//! elaboration of the program into explicit dictionary passing.
//!
//! # Design
//!
//! * Types (`ty.rs`) are reference-counted trees; unification variables
//!   live in a table and are bound in place. Every variable has a *level*
//!   (the let-nesting depth where it was made); binding a variable lowers
//!   the levels in the type it is bound to, so generalisation at level L
//!   simply takes the variables deeper than L. No substitution is ever
//!   applied to the environment. Rigid (skolem) variables of signatures
//!   carry a level too, which detects escapes.
//! * Type synonyms are expanded when types are built from syntax, but the
//!   application stays in the tree (`Ty::Syn`) for printing: messages say
//!   `String` where the user wrote `String`.
//! * Bindings (`bind.rs`) are split into strongly connected components;
//!   a binding with a signature is checked on its own against it (its
//!   variables rigid, its context given), the others are inferred together
//!   per component and generalised, with the monomorphism restriction.
//! * Class constraints (`classes.rs`) are *wanted* with an evidence hole
//!   each. At a generalisation point they are simplified: by the givens of
//!   a signature or instance (and their superclasses), by instances when
//!   the head of the type is known (the instance context becomes new
//!   wanteds), and what remains either becomes the context of the inferred
//!   type (one dictionary parameter per constraint, duplicates and
//!   superclass-implied ones removed), or is passed to the enclosing scope,
//!   or is ambiguous and defaulted (Haskell 2010 rules, `default (...)`),
//!   or is an error. At the end of a module the constraints left on
//!   monomorphic variables are defaulted.
//! * Expressions (`infer.rs`) are checked bidirectionally so that errors
//!   point at the smallest sub-expression whose type is wrong.
//! * Where a conflict is reported follows GHC: inside a local binding, a
//!   variable of an enclosing binding is not bound to a type made of
//!   enclosing parts (it is untouchable there); the equation is deferred
//!   to the end of the enclosing binding, so the enclosing body's use wins
//!   and the local binding is blamed. Identical missing constraints of one
//!   binding are reported once.
//! * Kinds (`kinds.rs`) are inferred for each module's type declarations
//!   together and default to `*`.
//! * After a type error in a binding group, its bindings get the error
//!   type (which unifies with everything) so the mistake is reported once.
//!
//! # The elaborated program (`elab.rs`), for the desugarer
//!
//! `typecheck` returns an [`elab::Program`]: one [`elab::Module`] per input
//! module, same order. It is the renamed program with every overloading
//! made explicit; when there are type errors it is incomplete and must not
//! be used.
//!
//! **Names.** [`elab::Name::Global`] is a top-level entity (module + name,
//! as the renamer resolved it); [`elab::Name::Local`] a local variable
//! (lexically scoped, shadowing possible). Names the checker invents start
//! with `$` (dictionary parameters `$dNum12`, `this` dictionaries
//! `$this3`, the variable of a right section `$sec4` and its shared operand
//! `$arg5`, of a `do` bind `$do6`, of a polymorphic annotation `$ann7`), so
//! they never clash with the user's; each is unique in the program. Generated globals also start with `$`: instance dictionary
//! functions `M.$fShowMaybe`, default methods `M.$dm==`.
//!
//! **Data types.** `Module::datas` lists the module's `data`/`newtype`
//! declarations with their constructors (tag = position, arity,
//! strictness of each field). Built-in types are not listed: lists
//! (`[]` tag 0, `:` tag 1, arity 2), unit `()` and tuples `(,)`, `(,,)`, ...
//! (one constructor, tag 0, arity n), all lazy, with the empty module name.
//!
//! **Classes become dictionary records.** A [`elab::ClassDef`] describes
//! the record of class C: fields `0 .. supers.len()` hold the superclass
//! dictionaries (in `supers` order), then one field per method (in
//! `methods` order). Each method's global name is also a value: the
//! *selector*, `\d -> field of d`, which the desugarer defines. A method
//! with constraints of its own (`properFraction :: Integral b => ...`)
//! stores a function of those dictionaries in its field, so selecting it
//! and applying the result to the method's extra dictionaries is the same
//! as for any overloaded function.
//!
//! **Instances become dictionaries.** An [`elab::InstanceDef`] defines the
//! global `dfun`: with no context it is the dictionary itself; with a
//! context `(C1 a, C2 b) => C (T a b)` it is a function of one dictionary
//! per context constraint (`dicts`, in order) returning the dictionary.
//! Within it, `this` names the dictionary being built (a recursive
//! binding: `dfun = \dicts -> letrec this = Rec supers methods in this`):
//! methods that use the instance being defined at the same type refer to
//! `this` rather than rebuilding it. `supers` are the superclass fields;
//! `methods` has one [`elab::Binding::Fun`] per class method, in class
//! order, named by the method's global: the instance's own definition, or
//! the default method applied to `this` (`M.$dmshow this`), or
//! [`elab::Expr::NoMethod`] (a run-time error "No instance nor default
//! method for class operation show"). A method binding's `dicts` are the
//! method's extra constraints.
//!
//! **Default methods** are ordinary top-level bindings in `Module::binds`,
//! named by `ClassDef::defaults` (`M.$dm==`), whose first dictionary
//! parameter is the class dictionary.
//!
//! **Bindings.** [`elab::Binding::Fun`] `{ name, dicts, clauses }`: a
//! function or variable whose value is `\dicts... -> <match clauses>`: the
//! dictionary parameters come first (one per constraint of its type, in
//! the order of its printed context), then the clauses' arguments (all
//! clauses have the same number; zero for a variable binding `x = e`).
//! Clauses, guards and `where` are as in the source (the desugarer does
//! pattern matching). [`elab::Binding::Pat`] is a lazy pattern binding;
//! it never takes dictionaries. All bindings of a `let`/`where`/top level
//! are mutually recursive as in the source. Local bindings take
//! dictionaries too when they are overloaded (`let sq x = x * x in ...`
//! used at two types), and their uses pass them.
//!
//! **Dictionary passing.** Every use of an overloaded variable (global,
//! method selector or overloaded local) is applied to its dictionaries:
//! `App(App(Var(Prelude.+), Dict(..)), ...)`. A recursive use inside its
//! own binding group passes the group's own dictionary parameters. An
//! [`elab::Dict`] is a parameter (`Var`), an instance's dictionary applied
//! to the dictionaries of its context (`Inst(dfun, args)`; known types give
//! known dictionaries, no run-time search), or a superclass field of a
//! dictionary (`Super(d, class, index)`: field `index` of a dictionary of
//! `class`).
//!
//! **Literals.** An integer literal at type `Int`, `Integer` or `Double`
//! is a [`elab::Lit::Int`]/`Integer`/`Double`; at another type it is
//! `fromInteger d (Lit::Integer n)`. A fractional literal at `Double` is a
//! `Lit::Double`, else `fromRational d (Lit::Rational n m)` (the desugarer
//! builds the `Prelude.:%` value). Characters are `Lit::Char`, strings
//! `Lit::Str` (type `[Char]`).
//!
//! **Syntax made explicit.** Negation is `Prelude.negate d e`;
//! arithmetic sequences are `Prelude.enumFrom d a` (`enumFromThen`,
//! `enumFromTo`, `enumFromThenTo`); operators are applications
//! (`BinOp` disappears); a left section `(e op)` is `op e`, a right
//! section `(op e)` is `\$secN -> op $secN e` (when `e` is not a variable
//! or literal: `let $argM = e in \$secN -> op $secN $argM`, so that `e` is
//! shared); parentheses disappear; an
//! annotation `(e :: T)` is just `e` (or, for a polymorphic `T`, a `let`
//! of a local binding with dictionary parameters, used at one instance).
//! `do` blocks are translated: `e; s` is `(>>) d e s`, `p <- e; s` is
//! `(>>=) d e (\p -> s)` when `p` cannot fail, else
//! `(>>=) d e (\$doN -> case $doN of { p -> s; _ -> fail d' (Lit::DoFailMsg span) })`,
//! `let ds; s` is `let ds in s`. List comprehensions stay
//! ([`elab::Expr::Comprehension`], lists only, no dictionaries).
//!
//! **Patterns.** As in the source, with built-in constructors as
//! [`elab::Pat::Con`] where written so (`x : xs`), tuple and list syntax
//! as `Pat::Tuple`/`Pat::List`. A numeric literal pattern at `Int`,
//! `Integer` or `Double` is `Pat::Lit` (compare primitively, negative
//! literals folded in); at another type it is `Pat::Overloaded { eq, value }`
//! (matches `v` when `eq v value` is `True`). Character and string literal
//! patterns are `Pat::Lit`.

pub mod bind;
pub mod classes;
pub mod decls;
pub mod elab;
pub mod env;
pub mod errors;
pub mod finish;
pub mod infer;
pub mod kinds;
pub mod pretty;
pub mod tc;
pub mod ty;

#[cfg(test)]
mod tests;

use gph_syntax::ast;
use gph_syntax::Diagnostic;

/// What the type checker produces.
pub struct TypeResult {
    /// Every top-level binding of the main (last) module with its type, in
    /// source order: (`name`, `type`), e.g. (`f`, `(Num a, Ord a) => a -> a`).
    pub types_of_main: Vec<(String, String)>,
    pub diagnostics: Vec<Diagnostic>,
    pub elaborated: elab::Program,
    /// Every type, class, instance and value the checker knew at the end
    /// (for the REPL's `:info` and `:kind`).
    pub env: env::Env,
}

/// Type-checks the modules of a renamed program (in dependency order, the
/// main module last). Constraints arising at or after `interactive_from`
/// (a global offset: text typed at the REPL) follow GHCi's extended default
/// rules.
pub fn typecheck(modules: &[ast::Module], interactive_from: Option<u32>) -> TypeResult {
    let mut tc = tc::Tc::new();
    tc.interactive_from = interactive_from;
    let mut elaborated = elab::Program::default();
    for m in modules {
        elaborated.modules.push(tc.check_module(m));
    }
    let types_of_main = modules
        .last()
        .map(|m| tc.binding_types(m))
        .unwrap_or_default();
    let mut diagnostics = std::mem::take(&mut tc.diags);
    gph_syntax::diag::sort(&mut diagnostics);
    TypeResult {
        types_of_main,
        diagnostics,
        elaborated,
        env: std::mem::take(&mut tc.env),
    }
}

/// The `:browse`-style listing of `types_of_main`, one binding per line.
pub fn show_types(r: &TypeResult) -> String {
    r.types_of_main
        .iter()
        .map(|(n, t)| format!("{n} :: {t}\n"))
        .collect()
}
