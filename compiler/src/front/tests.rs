//! Unit tests of the renamer: what a name resolves to, in the printed
//! renamed module (`gph dump --stage renamed`), where a top-level name is
//! its original name (`Main.x`) and a local one stays bare.

use crate::testing::{renamed, renamed_text};

/// The line of the renamed text that starts with `start`.
fn line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line `{start}…` in:\n{text}"))
}

#[test]
fn a_parameter_shadows_a_top_level_name() {
    let t = renamed_text(
        r"
        x :: Int
        x = 1

        f :: Int -> Int
        f x = x + 1

        g :: Int -> Int
        g y = y + x
        ",
    );
    // Inside `f` the parameter is meant, elsewhere the top-level `x`.
    assert_eq!(line(&t, "f x ="), "f x = x Prelude.+ 1");
    assert_eq!(line(&t, "g y ="), "g y = y Prelude.+ Main.x");
}

#[test]
fn the_innermost_binder_wins() {
    let t = renamed_text(
        r"
        h :: Int -> [Int]
        h map = let map = 3 in [map]

        k :: [Int] -> [Int]
        k xs = case xs of
          (map : _) -> [map]
          _ -> map (+ 1) xs
        ",
    );
    // A `let` and a pattern shadow the Prelude's `map`; where they do not
    // reach, it is the Prelude's again.
    assert_eq!(line(&t, "h map ="), "h map = let map = 3 in [map]");
    assert!(t.contains("(map : _) -> [map]"), "{t}");
    assert!(t.contains("_ -> Prelude.map (Prelude.+ 1) xs"), "{t}");
}

#[test]
fn a_qualified_name_resolves_to_its_defining_module() {
    let t = renamed_text(
        r"
        import qualified Data.List as L

        s :: [Int]
        s = L.sort [2, 1]
        ",
    );
    assert_eq!(line(&t, "s ="), "s = Data.List.sort [2, 1]");
}

#[test]
fn operator_chains_are_resolved_by_fixity() {
    let t = renamed_text(
        r"
        infixr 5 +++
        (+++) :: [a] -> [a] -> [a]
        a +++ b = a ++ b

        e :: Int
        e = 1 - 2 - 3

        l :: [Int]
        l = [1] +++ [2] +++ [3]

        m :: Int -> Int
        m n = 2 + n * 4 ^ 2
        ",
    );
    assert_eq!(line(&t, "e ="), "e = (1 Prelude.- 2) Prelude.- 3");
    assert_eq!(line(&t, "l ="), "l = [1] Main.+++ ([2] Main.+++ [3])");
    assert_eq!(
        line(&t, "m n ="),
        "m n = 2 Prelude.+ (n Prelude.* (4 Prelude.^ 2))"
    );
}

#[test]
fn an_unbound_name_is_reported_and_a_recursive_let_is_not() {
    let (_, errors) = renamed(
        r"
        f :: Int -> Int
        f n = n + y

        g :: Int -> [Int]
        g n = let xs = n : xs in xs
        ",
    );
    assert_eq!(errors, ["variable `y` is not in scope"]);
}
