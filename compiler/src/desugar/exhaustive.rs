//! Exhaustiveness and redundancy of pattern matches, by Maranget's
//! usefulness algorithm ("Warnings for pattern matching", JFP 2007): a row
//! is redundant when it is not useful after the rows above it; a match is
//! non-exhaustive when a row of wildcards is useful after all its rows.
//!
//! It works on a simplified view of patterns (constructors with arguments,
//! literals, wildcards), separately from code generation, so that the
//! warnings do not depend on how the match compiler shares failure code.
//!
//! Large matches (5,000 literals, strings or constructors) are checked in
//! linear time: a row without wildcards matches one value, so it is
//! redundant exactly when an equal row or a row with wildcards above it
//! matches that value (a hash set and a scan of the few rows with
//! wildcards); for other rows, the rows above are first narrowed to those
//! whose first pattern can match the same values (same constructor or
//! literal, or a wildcard) through an index. And, as GHC's checker does,
//! the check gives up (no warning) after a bounded amount of work
//! ([`BUDGET`]): the algorithm is exponential in the worst case.

use crate::types::elab::{self, Pat};
use gph_syntax::lexer::Sym;
use std::collections::{HashMap, HashSet};

/// Pattern rows the checker may look at for one match before it gives up.
pub const BUDGET: usize = 2_000_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum P {
    Wild,
    Con(Sym, Vec<P>),
    /// A literal: a constructor of a type with infinitely many.
    Lit(String),
}

/// What the checker needs to know about constructors.
pub trait Signature {
    /// All constructors of the constructor's type, when known.
    fn siblings(&self, con: &str) -> Option<&[Sym]>;
    /// The constructor of a newtype (matching it never fails).
    fn is_newtype(&self, con: &str) -> bool;
}

/// Simplifies an elaborated pattern. Overloaded literals are literals,
/// identified by the expression of their value.
pub fn simplify(p: &Pat, sig: &dyn Signature) -> P {
    gph_syntax::stack::guard();
    match p {
        Pat::Var(..) | Pat::Wildcard(_) | Pat::Lazy(..) | Pat::Pending(..) => P::Wild,
        Pat::As(_, p, _) | Pat::Bang(p, _) => simplify(p, sig),
        Pat::Con(g, ps, _) => {
            let name = Sym::from(g.to_string());
            if sig.is_newtype(&name) && ps.len() == 1 {
                return simplify(&ps[0], sig);
            }
            P::Con(name, ps.iter().map(|p| simplify(p, sig)).collect())
        }
        Pat::Tuple(ps, _) => P::Con(
            Sym::from(format!("({})", ",".repeat(ps.len().saturating_sub(1)))),
            ps.iter().map(|p| simplify(p, sig)).collect(),
        ),
        Pat::List(ps, _) => ps
            .iter()
            .rev()
            .fold(P::Con(Sym::from("[]"), vec![]), |acc, p| {
                P::Con(Sym::from(":"), vec![simplify(p, sig), acc])
            }),
        Pat::Lit(elab::Lit::Str(s), _) => s
            .chars()
            .rev()
            .fold(P::Con(Sym::from("[]"), vec![]), |acc, c| {
                P::Con(Sym::from(":"), vec![P::Lit(format!("{c:?}")), acc])
            }),
        Pat::Lit(l, _) => P::Lit(l.to_string()),
        Pat::Overloaded { value, .. } => P::Lit(format!("overloaded {}", expr_key(value))),
        // A view always matches when its pattern does; otherwise whether
        // it matches is the function's business: a value of its own, as
        // GHC takes each view (it would compare functions).
        Pat::View(_, p, s) => match simplify(p, sig) {
            P::Wild => P::Wild,
            _ => P::Lit(format!("view at {}..{}", s.start, s.end)),
        },
    }
}

/// A text that identifies an overloaded literal's value (`fromInteger d 3`):
/// equal texts for equal values; anything unusual is keyed by its position.
fn expr_key(e: &elab::Expr) -> String {
    gph_syntax::stack::guard();
    match e {
        elab::Expr::Lit(l, _) => l.to_string(),
        elab::Expr::Var(n, _) => n.to_string(),
        elab::Expr::Con(g, _) => g.to_string(),
        elab::Expr::Dict(d) => d.to_string(),
        elab::Expr::App(f, a, _) => format!("({} {})", expr_key(f), expr_key(a)),
        e => format!("<{:?}>", e.span()),
    }
}

/// The work left for the current check; at zero every row is useful and
/// the match exhaustive (nothing to warn about).
struct Budget(usize);

impl Budget {
    fn spend(&mut self, n: usize) -> bool {
        self.0 = self.0.saturating_sub(n.max(1));
        self.0 > 0
    }
}

fn specialize<'a>(
    rows: impl IntoIterator<Item = &'a Vec<P>>,
    con: &P,
    arity: usize,
) -> Vec<Vec<P>> {
    rows.into_iter()
        .filter_map(|r| {
            let (first, rest) = r.split_first()?;
            let mut head = match (first, con) {
                (P::Wild, _) => vec![P::Wild; arity],
                (P::Con(c, args), P::Con(k, _)) if c == k => args.clone(),
                (P::Lit(a), P::Lit(b)) if a == b => Vec::new(),
                _ => return None,
            };
            head.extend(rest.iter().cloned());
            Some(head)
        })
        .collect()
}

/// Whether vector `q` matches some value that no row of `rows` matches.
pub fn useful(rows: &[Vec<P>], q: &[P], sig: &dyn Signature) -> bool {
    useful_within(rows, q, sig, &mut Budget(usize::MAX))
}

fn useful_within(rows: &[Vec<P>], q: &[P], sig: &dyn Signature, budget: &mut Budget) -> bool {
    gph_syntax::stack::guard();
    if !budget.spend(rows.len()) {
        return true;
    }
    let Some((q1, qs)) = q.split_first() else {
        return rows.is_empty();
    };
    match q1 {
        P::Con(_, args) => {
            let mut v = args.clone();
            v.extend(qs.iter().cloned());
            useful_within(&specialize(rows, q1, args.len()), &v, sig, budget)
        }
        P::Lit(_) => useful_within(&specialize(rows, q1, 0), qs, sig, budget),
        P::Wild => {
            // The constructors the first column mentions, each with its
            // rows (those starting with it or with a wildcard).
            let mut seen: Vec<(Sym, usize)> = Vec::new();
            let mut rows_of: HashMap<&str, Vec<&Vec<P>>> = HashMap::new();
            let mut wild: Vec<&Vec<P>> = Vec::new();
            for r in rows {
                match r.first() {
                    Some(P::Con(c, a)) => {
                        let of = rows_of.entry(&**c).or_insert_with(|| {
                            seen.push((c.clone(), a.len()));
                            // The wildcard rows above come first.
                            wild.clone()
                        });
                        of.push(r);
                    }
                    Some(P::Wild) => {
                        wild.push(r);
                        rows_of.values_mut().for_each(|of| of.push(r));
                    }
                    _ => {}
                }
            }
            let names: HashSet<&str> = seen.iter().map(|(c, _)| &**c).collect();
            let complete = seen
                .first()
                .and_then(|(c, _)| sig.siblings(c))
                .is_some_and(|all| all.iter().all(|k| names.contains(&**k)));
            if complete {
                seen.iter().any(|(c, a)| {
                    let mut v = vec![P::Wild; *a];
                    v.extend(qs.iter().cloned());
                    let con = P::Con(c.clone(), vec![]);
                    let specialized = specialize(rows_of[&**c].iter().copied(), &con, *a);
                    useful_within(&specialized, &v, sig, budget)
                })
            } else {
                let default: Vec<Vec<P>> = wild.iter().map(|r| r[1..].to_vec()).collect();
                useful_within(&default, qs, sig, budget)
            }
        }
    }
}

/// Checks a match: returns the indices of redundant rows and whether the
/// match is exhaustive. `guarded[i]` says row i may fall through.
pub fn check(rows: &[Vec<P>], guarded: &[bool], sig: &dyn Signature) -> (Vec<usize>, bool) {
    let mut budget = Budget(BUDGET);
    let mut covering: Vec<Vec<P>> = Vec::new();
    // The covering rows by the constructor or literal of their first
    // pattern, and those starting with a wildcard (indices, in order).
    let mut by_head: HashMap<Head, Vec<usize>> = HashMap::new();
    let mut wild: Vec<usize> = Vec::new();
    // The covering rows without wildcards, and the others.
    let mut ground: HashSet<&Vec<P>> = HashSet::new();
    let mut open: Vec<usize> = Vec::new();
    let mut redundant = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let useful_row = match r.first() {
            _ if is_ground(r) && budget.spend(open.len()) => {
                !ground.contains(r) && !open.iter().any(|&j| subsumes(&covering[j], r))
            }
            Some(first @ (P::Con(..) | P::Lit(_))) => {
                // Only these rows can match what `r` matches.
                let same = by_head.get(&head_key(first)).map_or(&[][..], Vec::as_slice);
                let mut at: Vec<usize> = same.iter().chain(&wild).copied().collect();
                at.sort_unstable();
                let above: Vec<Vec<P>> = at.into_iter().map(|j| covering[j].clone()).collect();
                useful_within(&above, r, sig, &mut budget)
            }
            _ => useful_within(&covering, r, sig, &mut budget),
        };
        if !useful_row {
            redundant.push(i);
        }
        if !guarded.get(i).copied().unwrap_or(false) {
            if is_ground(r) {
                ground.insert(r);
            } else {
                open.push(covering.len());
            }
            match r.first() {
                Some(first @ (P::Con(..) | P::Lit(_))) => by_head
                    .entry(head_key(first))
                    .or_default()
                    .push(covering.len()),
                _ => wild.push(covering.len()),
            }
            covering.push(r.clone());
        }
    }
    let width = rows.first().map_or(0, Vec::len);
    let exhaustive = !useful_within(&covering, &vec![P::Wild; width], sig, &mut budget);
    if budget.0 == 0 {
        // Gave up: nothing is known, so nothing to warn about.
        return (Vec::new(), true);
    }
    (redundant, exhaustive)
}

/// Whether a row has no wildcard (it matches one value).
fn is_ground(r: &[P]) -> bool {
    r.iter().all(|p| match p {
        P::Wild => false,
        P::Con(_, ps) => is_ground(ps),
        P::Lit(_) => true,
    })
}

/// Whether row `p` matches every value row `q` matches.
fn subsumes(p: &[P], q: &[P]) -> bool {
    p.len() == q.len()
        && p.iter().zip(q).all(|pq| match pq {
            (P::Wild, _) => true,
            (P::Con(c, ps), P::Con(d, qs)) => c == d && subsumes(ps, qs),
            (P::Lit(a), P::Lit(b)) => a == b,
            _ => false,
        })
}

/// A first pattern as an index key: its constructor or literal.
#[derive(PartialEq, Eq, Hash)]
enum Head<'a> {
    Con(&'a str),
    Lit(&'a str),
}

fn head_key(p: &P) -> Head<'_> {
    match p {
        P::Con(c, _) => Head::Con(c),
        P::Lit(l) => Head::Lit(l),
        P::Wild => unreachable!("wildcards are not indexed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists are the only type with known constructors here.
    struct Sig(Vec<Sym>);
    impl Signature for Sig {
        fn siblings(&self, con: &str) -> Option<&[Sym]> {
            self.0
                .iter()
                .any(|c| &**c == con)
                .then_some(self.0.as_slice())
        }
        fn is_newtype(&self, _: &str) -> bool {
            false
        }
    }

    fn sig() -> Sig {
        Sig(vec![Sym::from("[]"), Sym::from(":")])
    }

    fn nil() -> P {
        P::Con(Sym::from("[]"), vec![])
    }
    fn cons(a: P, b: P) -> P {
        P::Con(Sym::from(":"), vec![a, b])
    }

    #[test]
    fn merge_is_exhaustive() {
        // merge [] ys; merge xs []; merge (x:xs) (y:ys)
        let rows = vec![
            vec![nil(), P::Wild],
            vec![P::Wild, nil()],
            vec![cons(P::Wild, P::Wild), cons(P::Wild, P::Wild)],
        ];
        assert_eq!(check(&rows, &[false; 3], &sig()), (vec![], true));
    }

    #[test]
    fn missing_and_redundant_rows() {
        let rows = vec![vec![cons(P::Wild, P::Wild)], vec![cons(P::Wild, nil())]];
        assert_eq!(check(&rows, &[false; 2], &sig()), (vec![1], false));
    }

    #[test]
    fn guarded_rows_do_not_cover() {
        let rows = vec![vec![P::Wild], vec![nil()]];
        assert_eq!(check(&rows, &[true, false], &sig()), (vec![], false));
        let rows = vec![
            vec![P::Lit("1".into())],
            vec![P::Lit("1".into())],
            vec![P::Wild],
        ];
        assert_eq!(check(&rows, &[false; 3], &sig()), (vec![1], true));
    }
}
