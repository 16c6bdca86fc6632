//! Unit tests of the simplifier: the Core that lambda lifting takes
//! (`gph dump --stage simplified`) for small programs.

use crate::core::{Bind, Expr};
use crate::testing::{binding, compiled, desugared, shown};
use crate::Options;
use std::collections::HashSet;

/// The simplified right-hand side of each `Main.NAME`, numbers left out.
fn simplified(src: &str, names: &[&str]) -> Vec<String> {
    let c = compiled(src, &Options::default());
    names
        .iter()
        .map(|n| shown(binding(&c.core, &format!("Main.{n}"))))
        .collect()
}

#[test]
fn a_known_lambda_is_beta_reduced_and_a_let_used_once_inlined() {
    let got = simplified(
        r"
        beta :: Int -> Int
        beta y = (\x -> x * 2) (y + 1)

        once :: Int -> Int
        once y = let z = y + 1 in z * 2
        ",
        &["beta", "once"],
    );
    let want = "\\y ->\n  Gph.Prim.primIntMul (Gph.Prim.primIntAdd y 1#) 2#";
    assert_eq!(got, [want, want]);
}

#[test]
fn a_let_used_twice_stays_shared() {
    let got = simplified(
        r"
        twice :: Int -> Int
        twice y = let z = y + 1 in z * z
        ",
        &["twice"],
    );
    // Inlining `z` would compute `y + 1` twice.
    assert_eq!(
        got,
        ["\\y ->\n  let z = Gph.Prim.primIntAdd y 1#\n  in Gph.Prim.primIntMul z z"]
    );
}

#[test]
fn a_known_dictionary_and_a_small_function_are_inlined() {
    let got = simplified(
        r"
        double :: Num a => a -> a
        double x = x + x

        g :: Int -> Int
        g n = double n
        ",
        &["g"],
    );
    // `double $fNumInt n` becomes Int addition: no dictionary is left.
    assert_eq!(got, ["\\n ->\n  Gph.Prim.primIntAdd n n"]);
}

#[test]
fn a_case_of_a_known_constructor_picks_its_alternative() {
    let got = simplified(
        r"
        known :: Int
        known = case Just 3 of
          Just x -> x
          Nothing -> 0
        ",
        &["known"],
    );
    assert_eq!(got, ["3#"]);
}

/// Every variable bound in `e`: lambda parameters, `let` binders, case
/// binders and the fields of alternatives.
fn binders(e: &Expr, out: &mut Vec<u32>) {
    match e {
        Expr::Lam(vs, _) => out.extend(vs.iter().map(|v| v.id)),
        Expr::Let(b, _) => match &**b {
            Bind::NonRec(v, _) => out.push(v.id),
            Bind::Rec(bs) => out.extend(bs.iter().map(|(v, _)| v.id)),
        },
        Expr::Case(_, b, alts, _) => {
            out.push(b.id);
            for a in alts {
                out.extend(a.vars.iter().map(|v| v.id));
            }
        }
        _ => {}
    }
    e.for_each_child(|c| binders(c, out));
}

#[test]
fn at_o0_every_variable_is_still_renamed_apart() {
    // The later passes substitute without renaming: they rely on each
    // variable being bound once in the whole program, library included.
    let src = r"
        f :: Int -> Int
        f x = x

        g :: Int -> Int -> Int
        g x = let y = x in \x -> case x of { 0 -> y; x -> x }
        ";
    let twice = |core: &crate::core::Program| {
        let mut ids = Vec::new();
        for (_, e) in &core.binds {
            binders(e, &mut ids);
        }
        let mut seen = HashSet::new();
        ids.into_iter()
            .filter(|id| !seen.insert(*id))
            .collect::<Vec<u32>>()
    };
    // The desugarer numbers each binding's variables from 1.
    assert!(!twice(&desugared(src).0).is_empty());
    let opts = Options {
        optimise: false,
        ..Options::default()
    };
    let c = compiled(src, &opts);
    assert_eq!(twice(&c.core), Vec::<u32>::new());
    // Nothing was simplified: `y` is still bound.
    assert!(shown(binding(&c.core, "Main.g")).contains("y = x"));
}
