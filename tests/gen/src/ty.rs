//! Types of generated programs, the Prelude classes, and which types are
//! instances of which classes (built-in instances and derived ones).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ty {
    Int,
    Integer,
    Double,
    Char,
    Bool,
    Unit,
    Ordering,
    List(Box<Ty>),
    Tuple(Vec<Ty>),
    Maybe(Box<Ty>),
    Either(Box<Ty>, Box<Ty>),
    Fun(Box<Ty>, Box<Ty>),
    /// A user type applied to its arguments.
    Data(String, Vec<Ty>),
    /// A type variable: rigid inside a body, quantified in a scheme.
    Var(String),
    /// Pseudo-types of library arguments that must be safe: see `lib.rs`.
    Pseudo(Pseudo, Box<Ty>),
}

/// The type of expressions whose type the generator does not track (the
/// functions in applications, strategies, `Eval` and `IO` actions): never
/// printed, never replaced by the shrinker.
pub fn opaque() -> Ty {
    Ty::Data("?".to_string(), vec![])
}

/// Arguments a library function needs to be total and cheap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pseudo {
    /// A literal 0..=6 (the type is Int).
    Small,
    /// A positive literal 1..=9 of the numeric type inside.
    Pos,
    /// A non-empty list (the type inside is the list type).
    NonEmpty,
    /// A literal exponent 0..=40 (Int).
    Exp,
}

impl Ty {
    pub fn list(t: Ty) -> Ty {
        Ty::List(Box::new(t))
    }
    pub fn string() -> Ty {
        Ty::list(Ty::Char)
    }
    pub fn maybe(t: Ty) -> Ty {
        Ty::Maybe(Box::new(t))
    }
    pub fn either(a: Ty, b: Ty) -> Ty {
        Ty::Either(Box::new(a), Box::new(b))
    }
    pub fn fun(a: Ty, b: Ty) -> Ty {
        Ty::Fun(Box::new(a), Box::new(b))
    }
    pub fn funs(args: &[Ty], res: Ty) -> Ty {
        args.iter().rev().fold(res, |r, a| Ty::fun(a.clone(), r))
    }
    pub fn var(v: &str) -> Ty {
        Ty::Var(v.to_string())
    }

    /// Splits `a -> b -> c` into `[a, b]` and `c`.
    pub fn split_fun(&self) -> (Vec<Ty>, Ty) {
        let mut args = Vec::new();
        let mut t = self;
        while let Ty::Fun(a, r) = t {
            args.push((**a).clone());
            t = r;
        }
        (args, t.clone())
    }

    pub fn is_fun(&self) -> bool {
        matches!(self, Ty::Fun(..))
    }

    pub fn children(&self) -> Vec<&Ty> {
        match self {
            Ty::List(t) | Ty::Maybe(t) | Ty::Pseudo(_, t) => vec![t],
            Ty::Either(a, b) | Ty::Fun(a, b) => vec![a, b],
            Ty::Tuple(ts) | Ty::Data(_, ts) => ts.iter().collect(),
            _ => vec![],
        }
    }

    pub fn vars(&self, out: &mut BTreeSet<String>) {
        if let Ty::Var(v) = self {
            out.insert(v.clone());
        }
        for c in self.children() {
            c.vars(out);
        }
    }

    pub fn var_set(&self) -> BTreeSet<String> {
        let mut s = BTreeSet::new();
        self.vars(&mut s);
        s
    }

    pub fn has_vars(&self) -> bool {
        match self {
            Ty::Var(_) => true,
            _ => self.children().iter().any(|c| c.has_vars()),
        }
    }

    pub fn subst(&self, s: &BTreeMap<String, Ty>) -> Ty {
        match self {
            Ty::Var(v) => s.get(v).cloned().unwrap_or_else(|| self.clone()),
            Ty::List(t) => Ty::list(t.subst(s)),
            Ty::Maybe(t) => Ty::maybe(t.subst(s)),
            Ty::Pseudo(p, t) => Ty::Pseudo(*p, Box::new(t.subst(s))),
            Ty::Either(a, b) => Ty::either(a.subst(s), b.subst(s)),
            Ty::Fun(a, b) => Ty::fun(a.subst(s), b.subst(s)),
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| t.subst(s)).collect()),
            Ty::Data(n, ts) => Ty::Data(n.clone(), ts.iter().map(|t| t.subst(s)).collect()),
            _ => self.clone(),
        }
    }

    /// The real type of a pseudo-type.
    pub fn strip(&self) -> Ty {
        match self {
            Ty::Pseudo(Pseudo::Small | Pseudo::Exp, _) => Ty::Int,
            Ty::Pseudo(_, t) => t.strip(),
            Ty::List(t) => Ty::list(t.strip()),
            Ty::Maybe(t) => Ty::maybe(t.strip()),
            Ty::Either(a, b) => Ty::either(a.strip(), b.strip()),
            Ty::Fun(a, b) => Ty::fun(a.strip(), b.strip()),
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| t.strip()).collect()),
            Ty::Data(n, ts) => Ty::Data(n.clone(), ts.iter().map(|t| t.strip()).collect()),
            _ => self.clone(),
        }
    }
}

/// The substitution of `args` for a type's parameters.
pub fn params_to(params: &[String], args: &[Ty]) -> BTreeMap<String, Ty> {
    params.iter().cloned().zip(args.iter().cloned()).collect()
}

/// One-way matching: binds the variables of `pat` that are keys of `s` (or
/// unbound scheme variables, those starting with '?') so that `pat` becomes
/// `target`. Variables of `target` are rigid constants.
pub fn match_ty(pat: &Ty, target: &Ty, s: &mut BTreeMap<String, Ty>) -> bool {
    match (pat, target) {
        (Ty::Var(v), _) if v.starts_with('?') => match s.get(v) {
            Some(t) => t == target,
            None => {
                s.insert(v.clone(), target.clone());
                true
            }
        },
        (Ty::Pseudo(..), t) => match_ty(&pat.strip(), t, s),
        (Ty::List(a), Ty::List(b)) | (Ty::Maybe(a), Ty::Maybe(b)) => match_ty(a, b, s),
        (Ty::Either(a1, b1), Ty::Either(a2, b2)) | (Ty::Fun(a1, b1), Ty::Fun(a2, b2)) => {
            match_ty(a1, a2, s) && match_ty(b1, b2, s)
        }
        (Ty::Tuple(xs), Ty::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| match_ty(x, y, s))
        }
        (Ty::Data(n1, xs), Ty::Data(n2, ys)) => {
            n1 == n2 && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| match_ty(x, y, s))
        }
        _ => pat == target,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    Eq,
    Ord,
    Show,
    Num,
    Real,
    Integral,
    Fractional,
    Enum,
    Bounded,
    /// Control.DeepSeq's class: built-in types only (Tier 1 has no instances).
    NFData,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Eq => "Eq",
            Class::Ord => "Ord",
            Class::Show => "Show",
            Class::Num => "Num",
            Class::Real => "Real",
            Class::Integral => "Integral",
            Class::Fractional => "Fractional",
            Class::Enum => "Enum",
            Class::Bounded => "Bounded",
            Class::NFData => "NFData",
        }
    }

    pub fn supers(self) -> &'static [Class] {
        match self {
            Class::Ord => &[Class::Eq],
            Class::Real => &[Class::Num, Class::Ord],
            Class::Integral => &[Class::Real, Class::Enum],
            Class::Fractional => &[Class::Num],
            _ => &[],
        }
    }
}

/// A set of classes closed under superclasses.
pub fn closure(cs: &[Class]) -> BTreeSet<Class> {
    let mut out = BTreeSet::new();
    let mut todo: Vec<Class> = cs.to_vec();
    while let Some(c) = todo.pop() {
        if out.insert(c) {
            todo.extend_from_slice(c.supers());
        }
    }
    out
}

/// What the instance checker needs to know about a user type.
#[derive(Clone, Debug)]
pub struct DataInfo {
    pub params: Vec<String>,
    /// (constructor, field types over the params)
    pub cons: Vec<(String, Vec<Ty>)>,
    pub derived: BTreeSet<Class>,
}

/// The classes of the rigid type variables in scope.
pub type Rigid = BTreeMap<String, BTreeSet<Class>>;

pub struct Instances<'a> {
    pub datas: &'a BTreeMap<String, DataInfo>,
}

impl Instances<'_> {
    pub fn has(&self, t: &Ty, c: Class, rigid: &Rigid) -> bool {
        use Class::*;
        match t {
            Ty::Var(v) => rigid.get(v).is_some_and(|cs| cs.contains(&c)),
            Ty::Pseudo(..) => self.has(&t.strip(), c, rigid),
            Ty::Int => c != Fractional,
            Ty::Integer => !matches!(c, Fractional | Bounded),
            Ty::Double => !matches!(c, Integral | Bounded),
            Ty::Char | Ty::Bool | Ty::Unit | Ty::Ordering => {
                matches!(c, Eq | Ord | Show | Enum | Bounded | NFData)
            }
            Ty::List(e) | Ty::Maybe(e) => {
                matches!(c, Eq | Ord | Show | NFData) && self.has(e, c, rigid)
            }
            Ty::Either(a, b) => {
                matches!(c, Eq | Ord | Show | NFData)
                    && self.has(a, c, rigid)
                    && self.has(b, c, rigid)
            }
            Ty::Tuple(ts) => {
                matches!(c, Eq | Ord | Show | Bounded | NFData)
                    && ts.iter().all(|t| self.has(t, c, rigid))
            }
            Ty::Fun(..) => false,
            Ty::Data(n, args) => match self.datas.get(n) {
                Some(d) => d.derived.contains(&c) && args.iter().all(|a| self.has(a, c, rigid)),
                None => false,
            },
        }
    }

    pub fn has_all(&self, t: &Ty, cs: &BTreeSet<Class>, rigid: &Rigid) -> bool {
        cs.iter().all(|c| self.has(t, *c, rigid))
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", show_ty(self, 0))
    }
}

/// Prints a type: prec 0 top, 1 function argument, 2 constructor argument.
pub fn show_ty(t: &Ty, prec: u8) -> String {
    let paren = |s: String, p: u8| if prec > p { format!("({s})") } else { s };
    match t {
        Ty::Int => "Int".into(),
        Ty::Integer => "Integer".into(),
        Ty::Double => "Double".into(),
        Ty::Char => "Char".into(),
        Ty::Bool => "Bool".into(),
        Ty::Unit => "()".into(),
        Ty::Ordering => "Ordering".into(),
        Ty::List(e) if **e == Ty::Char => "String".into(),
        Ty::List(e) => format!("[{}]", show_ty(e, 0)),
        Ty::Tuple(ts) => format!(
            "({})",
            ts.iter()
                .map(|t| show_ty(t, 0))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ty::Maybe(e) => paren(format!("Maybe {}", show_ty(e, 2)), 1),
        Ty::Either(a, b) => paren(format!("Either {} {}", show_ty(a, 2), show_ty(b, 2)), 1),
        Ty::Fun(a, b) => paren(format!("{} -> {}", show_ty(a, 1), show_ty(b, 0)), 0),
        Ty::Data(n, args) if args.is_empty() => n.clone(),
        Ty::Data(n, args) => paren(
            format!(
                "{} {}",
                n,
                args.iter()
                    .map(|t| show_ty(t, 2))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            1,
        ),
        Ty::Var(v) => v.clone(),
        Ty::Pseudo(..) => show_ty(&t.strip(), prec),
    }
}

/// Parses the small type language of the library table:
/// `(a -> b) -> [a] -> [b]`, `Maybe a`, `Either a b`, `(a, b)`, `String`,
/// `Int`, ..., and the pseudo-types `Small`, `Exp`, `Pos a`, `NonEmpty a`
/// (a non-empty `[a]`). Lower-case names are variables, renamed `?name`.
pub fn parse_ty(s: &str) -> Ty {
    let toks = tokenize(s);
    let mut p = Parser { toks, i: 0 };
    let t = p.fun();
    assert!(p.i == p.toks.len(), "trailing input in type {s}");
    t
}

fn tokenize(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '-' && cs.get(i + 1) == Some(&'>') {
            out.push("->".into());
            i += 2;
        } else if "()[],".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else {
            let st = i;
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            assert!(i > st, "bad type token at {s}");
            out.push(cs[st..i].iter().collect());
        }
    }
    out
}

struct Parser {
    toks: Vec<String>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.i).map(|s| s.as_str())
    }
    fn next(&mut self) -> String {
        self.i += 1;
        self.toks[self.i - 1].clone()
    }
    fn fun(&mut self) -> Ty {
        let a = self.app();
        if self.peek() == Some("->") {
            self.i += 1;
            Ty::fun(a, self.fun())
        } else {
            a
        }
    }
    fn app(&mut self) -> Ty {
        let head = self.peek().unwrap().to_string();
        let mut args = Vec::new();
        let is_con = head.chars().next().unwrap().is_uppercase();
        if !is_con {
            return self.atom();
        }
        self.i += 1;
        while let Some(t) = self.peek() {
            if t == "->" || t == ")" || t == "," || t == "]" {
                break;
            }
            if t.chars().next().unwrap().is_uppercase() {
                // a nullary constructor argument
                let n = self.next();
                args.push(con(&n, vec![]));
            } else {
                args.push(self.atom());
            }
        }
        con(&head, args)
    }
    fn atom(&mut self) -> Ty {
        let t = self.next();
        match t.as_str() {
            "(" => {
                if self.peek() == Some(")") {
                    self.i += 1;
                    return Ty::Unit;
                }
                let mut ts = vec![self.fun()];
                while self.peek() == Some(",") {
                    self.i += 1;
                    ts.push(self.fun());
                }
                assert_eq!(self.next(), ")");
                if ts.len() == 1 {
                    ts.pop().unwrap()
                } else {
                    Ty::Tuple(ts)
                }
            }
            "[" => {
                let e = self.fun();
                assert_eq!(self.next(), "]");
                Ty::list(e)
            }
            _ if t.chars().next().unwrap().is_uppercase() => con(&t, vec![]),
            _ => Ty::Var(format!("?{t}")),
        }
    }
}

fn con(name: &str, mut args: Vec<Ty>) -> Ty {
    let mut one = || {
        assert_eq!(args.len(), 1, "{name} takes one argument");
        Box::new(args.pop().unwrap())
    };
    match name {
        "Int" => Ty::Int,
        "Integer" => Ty::Integer,
        "Double" => Ty::Double,
        "Char" => Ty::Char,
        "Bool" => Ty::Bool,
        "Ordering" => Ty::Ordering,
        "String" => Ty::string(),
        "Small" => Ty::Pseudo(Pseudo::Small, Box::new(Ty::Int)),
        "Exp" => Ty::Pseudo(Pseudo::Exp, Box::new(Ty::Int)),
        "Maybe" => Ty::Maybe(one()),
        "Pos" => Ty::Pseudo(Pseudo::Pos, one()),
        "NonEmpty" => Ty::Pseudo(Pseudo::NonEmpty, Box::new(Ty::List(one()))),
        "Either" => {
            assert_eq!(args.len(), 2);
            let b = args.pop().unwrap();
            let a = args.pop().unwrap();
            Ty::either(a, b)
        }
        _ => panic!("unknown type constructor {name} in the library table"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let t = parse_ty("(a -> b) -> [a] -> Maybe (Either a String)");
        let mut s = BTreeMap::new();
        s.insert("?a".to_string(), Ty::Int);
        s.insert("?b".to_string(), Ty::Char);
        assert_eq!(
            t.subst(&s).to_string(),
            "(Int -> Char) -> [Int] -> Maybe (Either Int String)"
        );
        let t = parse_ty("NonEmpty a -> Pos a -> (a, Small)");
        assert_eq!(t.subst(&s).to_string(), "[Int] -> Int -> (Int, Int)");
    }

    #[test]
    fn matches() {
        let pat = parse_ty("[a] -> Maybe a");
        let mut s = BTreeMap::new();
        assert!(match_ty(
            &pat,
            &Ty::fun(Ty::list(Ty::Int), Ty::maybe(Ty::Int)),
            &mut s
        ));
        assert_eq!(s["?a"], Ty::Int);
        let mut s = BTreeMap::new();
        assert!(!match_ty(
            &pat,
            &Ty::fun(Ty::list(Ty::Int), Ty::maybe(Ty::Char)),
            &mut s
        ));
    }
}
