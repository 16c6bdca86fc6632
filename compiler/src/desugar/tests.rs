//! Unit tests of the desugarer: the Core it builds for small programs,
//! before any simplification.

use crate::core::{AltCon, Bind, Expr};
use crate::testing::{binding, desugared, shown};

#[test]
fn a_nested_pattern_becomes_a_case_tree_with_one_fallthrough() {
    let (core, _) = desugared(
        r"
        f :: [Maybe Int] -> Int
        f (Just x : _) = x
        f _ = 0
        ",
    );
    // \a -> let fail = 0 in case a of { (:) h t -> case h of { Just x -> x;
    // _ -> fail }; _ -> fail }: the second equation is bound once and
    // reached from both places where the first can fail.
    let Expr::Lam(params, body) = binding(&core, "Main.f") else {
        panic!("not a lambda")
    };
    let Expr::Let(fail, body) = &**body else {
        panic!("no failure continuation: {}", shown(body))
    };
    let Bind::NonRec(fail, _) = &**fail else {
        panic!("a recursive failure continuation")
    };
    let Expr::Case(outer, _, alts, Some(outer_default)) = &**body else {
        panic!("no case on the argument: {}", shown(body))
    };
    assert!(matches!(&**outer, Expr::Local(v) if *v == params[0]));
    assert!(matches!(&**outer_default, Expr::Local(v) if v == fail));
    let [cons] = &alts[..] else {
        panic!("one alternative expected")
    };
    assert_eq!(cons.con, AltCon::Con(":".into()));
    let Expr::Case(inner, _, alts, Some(inner_default)) = &cons.body else {
        panic!("no case on the head: {}", shown(&cons.body))
    };
    assert!(matches!(&**inner, Expr::Local(v) if *v == cons.vars[0]));
    assert!(matches!(&**inner_default, Expr::Local(v) if v == fail));
    let [just] = &alts[..] else {
        panic!("one alternative expected")
    };
    assert_eq!(just.con, AltCon::Con("Prelude.Just".into()));
    assert!(matches!(&just.body, Expr::Local(v) if *v == just.vars[0]));
}

#[test]
fn a_failing_guard_falls_through_to_the_next_equation() {
    let (core, warnings) = desugared(
        r"
        sign :: Int -> Int
        sign n | n > 0 = 1
        sign 0 = 0
        ",
    );
    let f = shown(binding(&core, "Main.sign"));
    // The guard's `False` goes to the next equation, whose own failure is
    // the pattern-match failure located at the equations (lines 2-3).
    assert_eq!(
        f,
        "\\n ->
  let nomatch = Prelude.patternMatchFail \"t.gph:(2,1)-(3,10)|function sign\"
  in let fail = case n of c {
           0# ->
             0#
           _ ->
             nomatch
         }
     in case (Prelude.>) Prelude.$fOrdInt n 0# of b {
          Gph.Prim.True ->
            1#
          _ ->
            fail
        }"
    );
    assert_eq!(
        warnings,
        ["pattern match(es) are non-exhaustive in function sign"]
    );
}

#[test]
fn overloading_becomes_dictionary_passing() {
    let (core, _) = desugared(
        r"
        double :: Num a => a -> a
        double x = x + x

        g :: Int -> Int
        g n = double n
        ",
    );
    // The class constraint is a first parameter; the method selects from it.
    assert_eq!(
        shown(binding(&core, "Main.double")),
        "\\$dNum x ->\n  (Prelude.+) $dNum x x"
    );
    // A use at `Int` passes the instance's dictionary.
    assert_eq!(
        shown(binding(&core, "Main.g")),
        "\\n ->\n  Main.double Prelude.$fNumInt n"
    );
}

#[test]
fn a_redundant_equation_is_reported() {
    let (_, warnings) = desugared(
        r"
        dup :: Bool -> Int
        dup True = 1
        dup False = 2
        dup _ = 3
        ",
    );
    assert_eq!(warnings, ["pattern match is redundant in function dup"]);
}
