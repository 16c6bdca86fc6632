//! Exhaustiveness and redundancy of pattern matches, by Maranget's
//! usefulness algorithm ("Warnings for pattern matching", JFP 2007): a row
//! is redundant when it is not useful after the rows above it; a match is
//! non-exhaustive when a row of wildcards is useful after all its rows.
//!
//! It works on a simplified view of patterns (constructors with arguments,
//! literals, wildcards), separately from code generation, so that the
//! warnings do not depend on how the match compiler shares failure code.

use crate::types::elab::{self, Pat};
use gph_syntax::lexer::Sym;

#[derive(Clone, Debug, PartialEq)]
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
    }
}

/// A text that identifies an overloaded literal's value (`fromInteger d 3`):
/// equal texts for equal values; anything unusual is keyed by its position.
fn expr_key(e: &elab::Expr) -> String {
    match e {
        elab::Expr::Lit(l, _) => l.to_string(),
        elab::Expr::Var(n, _) => n.to_string(),
        elab::Expr::Con(g, _) => g.to_string(),
        elab::Expr::Dict(d) => d.to_string(),
        elab::Expr::App(f, a, _) => format!("({} {})", expr_key(f), expr_key(a)),
        e => format!("<{:?}>", e.span()),
    }
}

fn specialize(rows: &[Vec<P>], con: &P, arity: usize) -> Vec<Vec<P>> {
    rows.iter()
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
    let Some((q1, qs)) = q.split_first() else {
        return rows.is_empty();
    };
    match q1 {
        P::Con(_, args) => {
            let mut v = args.clone();
            v.extend(qs.iter().cloned());
            useful(&specialize(rows, q1, args.len()), &v, sig)
        }
        P::Lit(_) => useful(&specialize(rows, q1, 0), qs, sig),
        P::Wild => {
            // The constructors the first column mentions.
            let mut seen: Vec<(Sym, usize)> = Vec::new();
            for r in rows {
                if let Some(P::Con(c, a)) = r.first() {
                    if !seen.iter().any(|(s, _)| s == c) {
                        seen.push((c.clone(), a.len()));
                    }
                }
            }
            let complete = seen
                .first()
                .and_then(|(c, _)| sig.siblings(c))
                .is_some_and(|all| all.iter().all(|k| seen.iter().any(|(s, _)| s == k)));
            if complete {
                seen.iter().any(|(c, a)| {
                    let mut v = vec![P::Wild; *a];
                    v.extend(qs.iter().cloned());
                    useful(&specialize(rows, &P::Con(c.clone(), vec![]), *a), &v, sig)
                })
            } else {
                let default: Vec<Vec<P>> = rows
                    .iter()
                    .filter(|r| matches!(r.first(), Some(P::Wild)))
                    .map(|r| r[1..].to_vec())
                    .collect();
                useful(&default, qs, sig)
            }
        }
    }
}

/// Checks a match: returns the indices of redundant rows and whether the
/// match is exhaustive. `guarded[i]` says row i may fall through.
pub fn check(rows: &[Vec<P>], guarded: &[bool], sig: &dyn Signature) -> (Vec<usize>, bool) {
    let mut covering: Vec<Vec<P>> = Vec::new();
    let mut redundant = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if !useful(&covering, r, sig) {
            redundant.push(i);
        }
        if !guarded.get(i).copied().unwrap_or(false) {
            covering.push(r.clone());
        }
    }
    let width = rows.first().map_or(0, Vec::len);
    let exhaustive = !useful(&covering, &vec![P::Wild; width], sig);
    (redundant, exhaustive)
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
