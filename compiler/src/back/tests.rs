//! Unit tests of the back end: lambda lifting, strictness and code
//! generation on small programs.

use super::*;
use crate::testing::compiled;
use crate::Options;
use gph_code::{Instr, ScId, ScKind};

// The code of every program of the repository is checked by the machine's
// validator in tests/core_closed.rs, in the same compilation as Core Lint
// (a pass of its own over the corpus here compiled every program again).

// ----- lambda lifting

/// The supercombinators lifted out of `Main.*`.
fn main_scs(c: &Compiled) -> Vec<&lift::ScDef> {
    c.lifted
        .scs
        .iter()
        .filter(|sc| sc.parent.starts_with("Main."))
        .collect()
}

#[test]
fn lifted_supercombinators_have_no_free_variables() {
    let c = compiled(
        r"
        adder :: Int -> [Int] -> [Int]
        adder n = map (\x -> x + n)

        compose :: (b -> c) -> (a -> b) -> a -> c
        compose f g = \x -> f (g x)

        local :: Int -> Int -> Int
        local k n = let go i = if i > n then 0 else i * k + go (i + 1) in go 1
        ",
        &Options::default(),
    );
    let scs = main_scs(&c);
    // Lambdas, the local `go` and lazy arguments were lifted out.
    assert!(scs.len() > 5, "{}", c.show_sc("Main."));
    for sc in scs {
        let free: Vec<_> = lift::free_vars(&sc.body)
            .into_iter()
            .filter(|v| !sc.params.contains(v))
            .collect();
        assert!(free.is_empty(), "{} has free {free:?}:\n{sc}", sc.name);
    }
}

#[test]
fn a_lifted_lambda_takes_its_free_variables_first() {
    let c = compiled(
        r"
        adder :: Int -> [Int -> Int]
        adder n = [\x -> x + n]
        ",
        &Options::default(),
    );
    // `\x -> x + n` becomes `adder$l1 n x`: `n` first, then the lambda's own.
    // (Stored in a list: a lambda passed to `map` is called in its loop.)
    let sc = c.lifted.sc("Main.adder$l1").expect("the lambda lifted");
    assert_eq!(sc.kind, ScKind::Fun);
    let names: Vec<&str> = sc.params.iter().map(|v| &*v.name).collect();
    assert_eq!(names, ["n", "x"]);
}

#[test]
fn a_partial_application_of_a_known_function_is_eta_expanded() {
    let c = compiled(
        r"
        plus :: Int -> Int -> Int
        plus a b = a + b

        inc :: Int -> Int
        inc = plus 1
        ",
        &Options::default(),
    );
    let sc = c.lifted.sc("Main.inc").unwrap();
    assert_eq!((sc.kind, sc.params.len()), (ScKind::Fun, 1), "{sc}");
}

// ----- strictness

/// The strictness line of `gph dump --stage sc` for each `Main.NAME`.
fn strictness(src: &str, names: &[&str]) -> Vec<String> {
    let c = compiled(src, &Options::default());
    names
        .iter()
        .map(|n| {
            c.info
                .show(&[format!("Main.{n}").into()])
                .trim_end()
                .to_string()
        })
        .collect()
}

#[test]
fn an_argument_scrutinised_on_every_path_is_strict() {
    let got = strictness(
        r"
        pick :: Bool -> Int -> Int -> Int
        pick b x y = if b then x else y

        both :: Bool -> Int -> Int -> Int
        both b x y = if b then x + y else x
        ",
        &["pick", "both"],
    );
    // `b` is scrutinised; `x` is evaluated on both paths of `both` only.
    assert_eq!(
        got,
        [
            "Main.pick: SLL",
            "Main.both: SSL  worker (_, Int, _) -> Int"
        ]
    );
}

#[test]
fn a_path_that_fails_does_not_make_an_argument_lazy() {
    let got = strictness(
        r#"
        orError :: Int -> Int -> Int
        orError x y = if x > 0 then y else error "no"

        onlyError :: Int -> Int
        onlyError x = error "no"
        "#,
        &["orError", "onlyError"],
    );
    // The `error` branch is left out of what every path evaluates; the call
    // of `error` itself evaluates none of the parameters.
    assert_eq!(
        got,
        [
            "Main.orError: SS  worker (Int, _) -> Boxed",
            "Main.onlyError: L"
        ]
    );
}

#[test]
fn a_recursive_function_is_strict_in_its_accumulator() {
    let got = strictness(
        r"
        count :: Int -> Int -> Int
        count acc n = if n == 0 then acc else count (acc + n) (n - 1)

        rev :: [a] -> [a] -> [a]
        rev acc [] = acc
        rev acc (x : xs) = rev (x : acc) xs
        ",
        &["count", "rev"],
    );
    // The greatest fixed point: `acc` is returned on one path and passed
    // to a strict parameter on the other. A list accumulator is returned
    // unevaluated, so it stays lazy.
    assert_eq!(
        got,
        ["Main.count: SS  worker (Int, Int) -> Int", "Main.rev: LS"]
    );
}

// ----- code generation

/// The code of supercombinator `name`.
fn code_of<'a>(c: &'a Compiled, name: &str) -> &'a [Instr] {
    let sc = c.code.scs.iter().find(|s| s.name == name);
    &sc.unwrap_or_else(|| panic!("no code for {name}")).code
}

/// The names of the supercombinators that `code` calls, tail or not.
fn calls(c: &Compiled, code: &[Instr]) -> (Vec<String>, Vec<String>) {
    let name = |sc: &ScId| c.code.sc(*sc).name.clone();
    let mut tail = Vec::new();
    let mut other = Vec::new();
    for i in code {
        match i {
            Instr::TailCall { sc, .. } => tail.push(name(sc)),
            Instr::Call { sc, .. } | Instr::CallV { sc, .. } => other.push(name(sc)),
            _ => {}
        }
    }
    (tail, other)
}

const LISTS: &str = r"
    rev :: [a] -> [a] -> [a]
    rev acc [] = acc
    rev acc (x : xs) = rev (x : acc) xs

    isEmpty :: [a] -> Bool
    isEmpty xs = case rev [] xs of
      [] -> True
      _ -> False

    apply :: (Int -> Int) -> Int -> Int
    apply f x = f x

    pick :: Bool -> [Int] -> [Int] -> [Int]
    pick b x y = if b then x else y
    ";

#[test]
fn a_saturated_call_in_tail_position_is_a_tail_call() {
    let c = compiled(LISTS, &Options::default());
    let code = code_of(&c, "Main.rev");
    assert_eq!(calls(&c, code), (vec!["Main.rev".to_string()], vec![]));
    // A call whose value is scrutinised is not in tail position.
    let code = code_of(&c, "Main.isEmpty");
    assert_eq!(calls(&c, code), (vec![], vec!["Main.rev".to_string()]));
}

#[test]
fn an_unknown_function_or_a_variable_in_tail_position_ends_the_activation() {
    let c = compiled(LISTS, &Options::default());
    // `f x`: evaluate `f`, then apply it in place of this activation.
    assert!(matches!(
        code_of(&c, "Main.apply"),
        [Instr::Eval { .. }, Instr::TailApply { .. }]
    ));
    // A variable in tail position is entered, not evaluated and returned.
    let code = code_of(&c, "Main.pick");
    assert_eq!(
        code.iter()
            .filter(|i| matches!(i, Instr::Enter { .. }))
            .count(),
        2,
        "{code:?}"
    );
    assert!(!code.iter().any(|i| matches!(i, Instr::Ret { .. })));
}
