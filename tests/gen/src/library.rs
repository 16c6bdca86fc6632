//! The library functions generated programs call: total ones, or partial
//! ones made total by the pseudo-types of their arguments (`NonEmpty a` for
//! `head`, `Pos a` for the divisor of `div`, `Small` for `take`'s count).
//! Types are in the small language of `ty::parse_ty`.

use crate::ty::{parse_ty, Class, Ty};
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub struct LibFn {
    pub name: &'static str,
    pub ty: Ty,
    pub ctx: Vec<(String, Class)>,
    /// Printed infix when applied to two arguments (`a + b`, ``a `div` b``).
    pub infix: bool,
    pub weight: u32,
}

use Class::*;

/// (name, type, constraints, infix, weight)
type Row = (
    &'static str,
    &'static str,
    &'static [(&'static str, Class)],
    bool,
    u32,
);

const ROWS: &[Row] = &[
    // arithmetic
    ("+", "a -> a -> a", &[("a", Num)], true, 8),
    ("-", "a -> a -> a", &[("a", Num)], true, 6),
    ("*", "a -> a -> a", &[("a", Num)], true, 6),
    ("negate", "a -> a", &[("a", Num)], false, 2),
    ("abs", "a -> a", &[("a", Num)], false, 2),
    ("signum", "a -> a", &[("a", Num)], false, 1),
    ("subtract", "a -> a -> a", &[("a", Num)], false, 1),
    ("div", "a -> Pos a -> a", &[("a", Integral)], true, 4),
    ("mod", "a -> Pos a -> a", &[("a", Integral)], true, 4),
    ("quot", "a -> Pos a -> a", &[("a", Integral)], true, 2),
    ("rem", "a -> Pos a -> a", &[("a", Integral)], true, 2),
    (
        "divMod",
        "a -> Pos a -> (a, a)",
        &[("a", Integral)],
        false,
        1,
    ),
    (
        "quotRem",
        "a -> Pos a -> (a, a)",
        &[("a", Integral)],
        false,
        1,
    ),
    ("gcd", "a -> a -> a", &[("a", Integral)], false, 1),
    ("lcm", "a -> a -> a", &[("a", Integral)], false, 1),
    ("^", "a -> Exp -> a", &[("a", Num)], true, 2),
    ("/", "a -> Pos a -> a", &[("a", Fractional)], true, 3),
    (
        "fromIntegral",
        "a -> b",
        &[("a", Integral), ("b", Num)],
        false,
        4,
    ),
    ("toInteger", "a -> Integer", &[("a", Integral)], false, 2),
    ("even", "a -> Bool", &[("a", Integral)], false, 2),
    ("odd", "a -> Bool", &[("a", Integral)], false, 2),
    ("truncate", "Double -> Integer", &[], false, 1),
    ("round", "Double -> Integer", &[], false, 2),
    ("floor", "Double -> Integer", &[], false, 1),
    ("ceiling", "Double -> Integer", &[], false, 1),
    ("max", "a -> a -> a", &[("a", Ord)], false, 3),
    ("min", "a -> a -> a", &[("a", Ord)], false, 3),
    ("succ", "a -> a", &[("a", Num), ("a", Enum)], false, 1),
    ("pred", "a -> a", &[("a", Num), ("a", Enum)], false, 1),
    ("fromEnum", "a -> Int", &[("a", Enum)], false, 2),
    // comparison and logic
    ("==", "a -> a -> Bool", &[("a", Eq)], true, 5),
    ("/=", "a -> a -> Bool", &[("a", Eq)], true, 2),
    ("<", "a -> a -> Bool", &[("a", Ord)], true, 4),
    ("<=", "a -> a -> Bool", &[("a", Ord)], true, 3),
    (">", "a -> a -> Bool", &[("a", Ord)], true, 3),
    (">=", "a -> a -> Bool", &[("a", Ord)], true, 2),
    ("compare", "a -> a -> Ordering", &[("a", Ord)], false, 3),
    ("&&", "Bool -> Bool -> Bool", &[], true, 3),
    ("||", "Bool -> Bool -> Bool", &[], true, 3),
    ("not", "Bool -> Bool", &[], false, 2),
    // functions
    ("fst", "(a, b) -> a", &[], false, 3),
    ("snd", "(a, b) -> b", &[], false, 3),
    ("id", "a -> a", &[], false, 1),
    ("const", "a -> b -> a", &[], false, 1),
    ("flip", "(a -> b -> c) -> b -> a -> c", &[], false, 1),
    (".", "(b -> c) -> (a -> b) -> a -> c", &[], true, 2),
    ("$", "(a -> b) -> a -> b", &[], true, 1),
    ("seq", "a -> b -> b", &[], true, 2),
    ("curry", "((a, b) -> c) -> a -> b -> c", &[], false, 1),
    ("uncurry", "(a -> b -> c) -> (a, b) -> c", &[], false, 1),
    ("maybe", "b -> (a -> b) -> Maybe a -> b", &[], false, 3),
    (
        "either",
        "(a -> c) -> (b -> c) -> Either a b -> c",
        &[],
        false,
        2,
    ),
    // lists
    ("map", "(a -> b) -> [a] -> [b]", &[], false, 8),
    ("filter", "(a -> Bool) -> [a] -> [a]", &[], false, 6),
    ("++", "[a] -> [a] -> [a]", &[], true, 6),
    ("concat", "[[a]] -> [a]", &[], false, 2),
    ("concatMap", "(a -> [b]) -> [a] -> [b]", &[], false, 3),
    ("reverse", "[a] -> [a]", &[], false, 3),
    ("length", "[a] -> Int", &[], false, 5),
    ("null", "[a] -> Bool", &[], false, 2),
    ("sum", "[a] -> a", &[("a", Num)], false, 4),
    ("product", "[a] -> a", &[("a", Num)], false, 2),
    ("maximum", "NonEmpty a -> a", &[("a", Ord)], false, 3),
    ("minimum", "NonEmpty a -> a", &[("a", Ord)], false, 3),
    ("and", "[Bool] -> Bool", &[], false, 1),
    ("or", "[Bool] -> Bool", &[], false, 1),
    ("any", "(a -> Bool) -> [a] -> Bool", &[], false, 3),
    ("all", "(a -> Bool) -> [a] -> Bool", &[], false, 3),
    ("elem", "a -> [a] -> Bool", &[("a", Eq)], true, 3),
    ("notElem", "a -> [a] -> Bool", &[("a", Eq)], false, 1),
    ("take", "Small -> [a] -> [a]", &[], false, 4),
    ("drop", "Small -> [a] -> [a]", &[], false, 3),
    ("splitAt", "Small -> [a] -> ([a], [a])", &[], false, 2),
    ("takeWhile", "(a -> Bool) -> [a] -> [a]", &[], false, 2),
    ("dropWhile", "(a -> Bool) -> [a] -> [a]", &[], false, 2),
    ("span", "(a -> Bool) -> [a] -> ([a], [a])", &[], false, 2),
    ("break", "(a -> Bool) -> [a] -> ([a], [a])", &[], false, 1),
    ("zip", "[a] -> [b] -> [(a, b)]", &[], false, 4),
    ("zip3", "[a] -> [b] -> [c] -> [(a, b, c)]", &[], false, 1),
    ("unzip", "[(a, b)] -> ([a], [b])", &[], false, 2),
    ("unzip3", "[(a, b, c)] -> ([a], [b], [c])", &[], false, 1),
    (
        "zipWith",
        "(a -> b -> c) -> [a] -> [b] -> [c]",
        &[],
        false,
        4,
    ),
    (
        "zipWith3",
        "(a -> b -> c -> d) -> [a] -> [b] -> [c] -> [d]",
        &[],
        false,
        1,
    ),
    ("lookup", "a -> [(a, b)] -> Maybe b", &[("a", Eq)], false, 3),
    ("replicate", "Small -> a -> [a]", &[], false, 3),
    ("head", "NonEmpty a -> a", &[], false, 2),
    ("last", "NonEmpty a -> a", &[], false, 2),
    ("tail", "NonEmpty a -> [a]", &[], false, 1),
    ("init", "NonEmpty a -> [a]", &[], false, 1),
    ("foldr", "(a -> b -> b) -> b -> [a] -> b", &[], false, 5),
    ("foldl", "(b -> a -> b) -> b -> [a] -> b", &[], false, 4),
    ("foldr1", "(a -> a -> a) -> NonEmpty a -> a", &[], false, 1),
    ("foldl1", "(a -> a -> a) -> NonEmpty a -> a", &[], false, 1),
    ("scanl", "(b -> a -> b) -> b -> [a] -> [b]", &[], false, 2),
    ("scanr", "(a -> b -> b) -> b -> [a] -> [b]", &[], false, 1),
    ("scanl1", "(a -> a -> a) -> [a] -> [a]", &[], false, 1),
    ("words", "String -> [String]", &[], false, 2),
    ("unwords", "[String] -> String", &[], false, 2),
    ("lines", "String -> [String]", &[], false, 1),
    ("unlines", "[String] -> String", &[], false, 1),
    ("show", "a -> String", &[("a", Show)], false, 8),
    (
        "showsPrec",
        "Exp -> a -> String -> String",
        &[("a", Show)],
        false,
        1,
    ),
    ("fmap", "(a -> b) -> Maybe a -> Maybe b", &[], false, 2),
    ("fmap", "(a -> b) -> [a] -> [b]", &[], false, 1),
    (
        "fmap",
        "(a -> b) -> Either c a -> Either c b",
        &[],
        false,
        1,
    ),
    ("<$>", "(a -> b) -> Maybe a -> Maybe b", &[], true, 1),
    (">>=", "Maybe a -> (a -> Maybe b) -> Maybe b", &[], true, 2),
    (">>=", "[a] -> (a -> [b]) -> [b]", &[], true, 1),
    ("return", "a -> Maybe a", &[], false, 1),
    ("mapM", "(a -> Maybe b) -> [a] -> Maybe [b]", &[], false, 1),
    ("sequence", "[Maybe a] -> Maybe [a]", &[], false, 1),
    // Data.List
    ("sort", "[a] -> [a]", &[("a", Ord)], false, 4),
    (
        "sortBy",
        "(a -> a -> Ordering) -> [a] -> [a]",
        &[],
        false,
        2,
    ),
    ("sortOn", "(a -> b) -> [a] -> [a]", &[("b", Ord)], false, 1),
    ("nub", "[a] -> [a]", &[("a", Eq)], false, 3),
    ("group", "[a] -> [[a]]", &[("a", Eq)], false, 2),
    ("groupBy", "(a -> a -> Bool) -> [a] -> [[a]]", &[], false, 1),
    ("insert", "a -> [a] -> [a]", &[("a", Ord)], false, 2),
    ("delete", "a -> [a] -> [a]", &[("a", Eq)], false, 1),
    (
        "partition",
        "(a -> Bool) -> [a] -> ([a], [a])",
        &[],
        false,
        2,
    ),
    ("isPrefixOf", "[a] -> [a] -> Bool", &[("a", Eq)], true, 1),
    ("isSuffixOf", "[a] -> [a] -> Bool", &[("a", Eq)], false, 1),
    ("isInfixOf", "[a] -> [a] -> Bool", &[("a", Eq)], false, 1),
    ("intercalate", "[a] -> [[a]] -> [a]", &[], false, 2),
    ("intersperse", "a -> [a] -> [a]", &[], false, 1),
    ("transpose", "[[a]] -> [[a]]", &[], false, 1),
    ("tails", "[a] -> [[a]]", &[], false, 1),
    ("inits", "[a] -> [[a]]", &[], false, 1),
    ("foldl'", "(b -> a -> b) -> b -> [a] -> b", &[], false, 3),
    ("find", "(a -> Bool) -> [a] -> Maybe a", &[], false, 2),
    (
        "findIndex",
        "(a -> Bool) -> [a] -> Maybe Int",
        &[],
        false,
        1,
    ),
    ("elemIndex", "a -> [a] -> Maybe Int", &[("a", Eq)], false, 1),
    ("union", "[a] -> [a] -> [a]", &[("a", Eq)], false, 1),
    ("intersect", "[a] -> [a] -> [a]", &[("a", Eq)], false, 1),
    ("\\\\", "[a] -> [a] -> [a]", &[("a", Eq)], true, 1),
    (
        "maximumBy",
        "(a -> a -> Ordering) -> NonEmpty a -> a",
        &[],
        false,
        1,
    ),
    (
        "minimumBy",
        "(a -> a -> Ordering) -> NonEmpty a -> a",
        &[],
        false,
        1,
    ),
    (
        "stripPrefix",
        "[a] -> [a] -> Maybe [a]",
        &[("a", Eq)],
        false,
        1,
    ),
    ("genericLength", "[a] -> b", &[("b", Num)], false, 1),
    (
        "mapAccumL",
        "(a -> b -> (a, c)) -> a -> [b] -> (a, [c])",
        &[],
        false,
        1,
    ),
    ("scanl'", "(b -> a -> b) -> b -> [a] -> [b]", &[], false, 1),
    ("dropWhileEnd", "(a -> Bool) -> [a] -> [a]", &[], false, 1),
    // Data.Char
    ("toUpper", "Char -> Char", &[], false, 2),
    ("toLower", "Char -> Char", &[], false, 2),
    ("isDigit", "Char -> Bool", &[], false, 1),
    ("isAlpha", "Char -> Bool", &[], false, 1),
    ("isUpper", "Char -> Bool", &[], false, 1),
    ("isLower", "Char -> Bool", &[], false, 1),
    ("isSpace", "Char -> Bool", &[], false, 1),
    ("isAlphaNum", "Char -> Bool", &[], false, 1),
    ("ord", "Char -> Int", &[], false, 2),
    ("intToDigit", "Small -> Char", &[], false, 1),
    // Data.Maybe
    ("fromMaybe", "a -> Maybe a -> a", &[], false, 3),
    ("isJust", "Maybe a -> Bool", &[], false, 1),
    ("isNothing", "Maybe a -> Bool", &[], false, 1),
    ("catMaybes", "[Maybe a] -> [a]", &[], false, 1),
    ("mapMaybe", "(a -> Maybe b) -> [a] -> [b]", &[], false, 1),
    ("listToMaybe", "[a] -> Maybe a", &[], false, 1),
    ("maybeToList", "Maybe a -> [a]", &[], false, 1),
    // Control.Parallel
    ("par", "a -> b -> b", &[], true, 1),
    ("pseq", "a -> b -> b", &[], true, 1),
];

pub fn table() -> &'static [LibFn] {
    static T: OnceLock<Vec<LibFn>> = OnceLock::new();
    T.get_or_init(|| {
        ROWS.iter()
            .map(|(name, ty, ctx, infix, weight)| LibFn {
                name,
                ty: parse_ty(ty),
                ctx: ctx.iter().map(|(v, c)| (format!("?{v}"), *c)).collect(),
                infix: *infix,
                weight: *weight,
            })
            .collect()
    })
}

/// The module a library name comes from (None: the Prelude or not a library name).
pub fn home_module(name: &str) -> Option<&'static str> {
    static M: OnceLock<BTreeMap<&'static str, &'static str>> = OnceLock::new();
    let m = M.get_or_init(|| {
        let mut m = BTreeMap::new();
        for n in [
            "sort",
            "sortBy",
            "sortOn",
            "nub",
            "group",
            "groupBy",
            "insert",
            "delete",
            "partition",
            "isPrefixOf",
            "isSuffixOf",
            "isInfixOf",
            "intercalate",
            "intersperse",
            "transpose",
            "tails",
            "inits",
            "foldl'",
            "find",
            "findIndex",
            "elemIndex",
            "union",
            "intersect",
            "\\\\",
            "maximumBy",
            "minimumBy",
            "stripPrefix",
            "genericLength",
            "mapAccumL",
            "scanl'",
            "dropWhileEnd",
        ] {
            m.insert(n, "Data.List");
        }
        for n in [
            "toUpper",
            "toLower",
            "isDigit",
            "isAlpha",
            "isUpper",
            "isLower",
            "isSpace",
            "isAlphaNum",
            "ord",
            "chr",
            "intToDigit",
        ] {
            m.insert(n, "Data.Char");
        }
        for n in [
            "fromMaybe",
            "isJust",
            "isNothing",
            "catMaybes",
            "mapMaybe",
            "listToMaybe",
            "maybeToList",
        ] {
            m.insert(n, "Data.Maybe");
        }
        m.insert("par", "Control.Parallel");
        m.insert("pseq", "Control.Parallel");
        for n in [
            "using",
            "withStrategy",
            "parList",
            "evalList",
            "parListChunk",
            "parBuffer",
            "parMap",
            "rseq",
            "rpar",
            "r0",
            "rdeepseq",
            "runEval",
            "parTuple2",
            "evalTuple2",
            "dot",
        ] {
            m.insert(n, "Control.Parallel.Strategies");
        }
        m.insert("process", "Control.Parallel.Eden");
        m.insert("#", "Control.Parallel.Eden");
        m
    });
    m.get(name).copied()
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_parses() {
        assert!(super::table().len() > 100);
    }
}
