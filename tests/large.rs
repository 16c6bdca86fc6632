//! Large inputs: programs as long or as deep as people's generated code
//! gets (a 10,000-element list literal, a 100 KB string, 10,000 nested
//! parentheses, a 5,000-alternative `case`, a `do` block of 10,000
//! statements). The compiler must take them in time linear in their size
//! and without refusing them as "nested too deeply" (its stack and the
//! passes that made them quadratic: gph_syntax::stack, docs/frontend.md).
//!
//! The programs are written by `source` below rather than kept (1.7 MB);
//! what each prints is GHC's, in tests/large/NAME.stdout. To regenerate:
//! `GPH_LARGE_OUT=DIR cargo test --test large write_programs -- --ignored`
//! writes DIR/NAME.gph, then `../shared/tools/oracle DIR/NAME.gph`.

mod common;

use common::{gph, two_at_a_time};
use std::fmt::Write;
use std::path::Path;

/// (name, shape, size) of each program.
const PROGRAMS: &[(&str, &str, usize)] = &[
    ("list_literal_10000", "listtup", 10_000),
    ("string_list_10000", "liststr", 10_000),
    ("string_100k", "string", 100_000),
    ("parens_10000", "parens", 10_000),
    ("let_nest_5000", "let", 5_000),
    ("if_chain_5000", "if", 5_000),
    ("case_nest_3000", "case", 3_000),
    ("lambda_nest_3000", "lamnest", 3_000),
    ("append_chain_5000", "append", 5_000),
    ("operator_chain_5000", "mixed", 5_000),
    ("do_binds_10000", "dobind", 10_000),
    ("do_lets_3000", "do", 3_000),
    ("data_5000_constructors", "datacase", 5_000),
    ("case_int_5000", "caseint", 5_000),
    ("case_string_2000", "casestr", 2_000),
    ("clauses_5000", "clauses", 5_000),
    ("decls_5000", "decls", 5_000),
    ("con_nest_5000", "just", 5_000),
];

/// `sep`-separated `f(i)` for i in 0..n.
fn joined(n: usize, sep: &str, f: impl Fn(usize) -> String) -> String {
    (0..n).map(f).collect::<Vec<_>>().join(sep)
}

/// `f(i)` for i in 0..n, concatenated.
fn each(n: usize, f: impl Fn(usize) -> String) -> String {
    (0..n).map(f).collect()
}

/// The program of a shape and size.
fn source(shape: &str, n: usize) -> String {
    let mut s = String::new();
    let datatype = |n| {
        format!(
            "data T = {} deriving (Show, Eq, Ord, Enum, Bounded)\n",
            joined(n, " | ", |i| format!("C{i}"))
        )
    };
    let stats = "print (maxBound :: T, minBound :: T, [C0 ..] == [minBound .. maxBound], C1 < C2, length [C0 ..])";
    let _ = match shape {
        "listtup" => writeln!(
            s,
            "xs :: [(Int, Char)]\nxs = [{}]\nmain = print (sum (map fst xs))",
            joined(n, ", ", |i| format!("({i}, 'c')"))
        ),
        "liststr" => writeln!(
            s,
            "xs :: [String]\nxs = [{}]\nmain = print (length (concat xs))",
            joined(n, ", ", |i| format!("\"s{i}\""))
        ),
        "string" => writeln!(
            s,
            "s :: String\ns = \"{}\"\nmain = print (length s)",
            "abcdefghi\\n".repeat(n / 10)
        ),
        "parens" => writeln!(s, "s :: Int\ns = {}1{}\nmain = print s", "(".repeat(n), ")".repeat(n)),
        "let" => writeln!(
            s,
            "s :: Int\ns = {}0\nmain = print s",
            each(n, |i| format!("let x{i} = {i} in "))
        ),
        "if" => writeln!(
            s,
            "s :: Int -> Int\ns k = {}0\nmain = print (s {})",
            each(n, |i| format!("if k == {i} then {i} else ")),
            n - 1
        ),
        "case" => writeln!(
            s,
            "s :: Int -> Int\ns k = {}0{}\nmain = print (s {})",
            each(n, |i| format!("case k of {{ {i} -> {i}; _ -> ")),
            " }".repeat(n),
            n - 1
        ),
        "lamnest" => writeln!(
            s,
            "s = {}0{}\nmain = print 1",
            each(n, |i| format!("\\x{i} -> (")),
            ")".repeat(n)
        ),
        "append" => writeln!(s, "s = {}\nmain = print (length s)", joined(n, " ++ ", |_| "\"a\"".into())),
        "mixed" => writeln!(
            s,
            "s :: Int\ns = {}\nmain = print s",
            joined(n, " + ", |_| "2 * 3 - 1".into())
        ),
        "dobind" => writeln!(
            s,
            "main :: IO ()\nmain = do\n  r <- return 0\n{}  print (r{} + r)",
            each(n, |i| format!("  r{i} <- return ({i} :: Int)\n")),
            n - 1
        ),
        "do" => write!(
            s,
            "main :: IO ()\nmain = do\n{}",
            each(n, |i| format!("  let x{i} = {i} :: Int\n  print x{i}\n"))
        ),
        "datacase" => writeln!(
            s,
            "{}s :: T -> Int\ns k = case k of\n{}main = do\n  print (s (toEnum {}))\n  {stats}\n  print (map fromEnum [C3, C{}])",
            datatype(n),
            each(n, |i| format!("  C{i} -> {i}\n")),
            n - 1,
            n - 1
        ),
        "caseint" => writeln!(
            s,
            "s :: Int -> Int\ns k = case k of\n{}  _ -> -1\nmain = print (s {}, s {n})",
            each(n, |i| format!("  {i} -> {}\n", i * 2)),
            n - 1
        ),
        "casestr" => writeln!(
            s,
            "s :: String -> Int\ns k = case k of\n{}  _ -> -1\nmain = print (s \"k{}\", s \"zz\")",
            each(n, |i| format!("  \"k{i}\" -> {i}\n")),
            n - 1
        ),
        "clauses" => writeln!(
            s,
            "s :: Int -> Int\n{}s _ = -1\nmain = print (s {})",
            each(n, |i| format!("s {i} = {i}\n")),
            n - 1
        ),
        "decls" => writeln!(
            s,
            "{}main = print (f0 + f{})",
            each(n, |i| format!("f{i} :: Int\nf{i} = {i}\n")),
            n - 1
        ),
        "just" => writeln!(
            s,
            "s = {}(){}\nd :: Maybe a -> Int\nd (Just _) = 1\nd Nothing = 0\nmain = print (d s)",
            "Just (".repeat(n),
            ")".repeat(n)
        ),
        other => panic!("unknown shape {other}"),
    };
    s
}

fn dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("gph-large-{}", std::process::id()))
}

/// Every large program prints what GHC printed, optimised and at -O0.
#[test]
fn large_programs_compile_and_print_what_ghc_prints() {
    let tmp = dir();
    std::fs::create_dir_all(&tmp).unwrap();
    let expected_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/large");
    let failures = two_at_a_time(PROGRAMS, |&(name, shape, n)| {
        let file = tmp.join(format!("{name}.gph"));
        std::fs::write(&file, source(shape, n)).unwrap();
        let want = std::fs::read_to_string(expected_dir.join(format!("{name}.stdout")))
            .unwrap_or_else(|_| panic!("tests/large/{name}.stdout"));
        let mut failed = Vec::new();
        for opt in [&[][..], &["-O0"]] {
            let mut args = vec!["run"];
            args.extend_from_slice(opt);
            args.push(file.to_str().unwrap());
            let out = gph(&args, None);
            if out.status != Some(0) || out.stdout != want {
                failed.push(format!(
                    "{name} {opt:?}: exit {:?}\n--- expected\n{want}--- actual\n{}\nstderr: {}",
                    out.status, out.stdout, out.stderr
                ));
            }
        }
        failed
    });
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Writes the programs for the oracle (see the top of this file).
#[test]
#[ignore]
fn write_programs() {
    let out = std::env::var("GPH_LARGE_OUT").expect("GPH_LARGE_OUT=DIR");
    std::fs::create_dir_all(&out).unwrap();
    for &(name, shape, n) in PROGRAMS {
        std::fs::write(
            Path::new(&out).join(format!("{name}.gph")),
            source(shape, n),
        )
        .unwrap();
    }
}
