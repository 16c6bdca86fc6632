//! Random command lines typed at `gph repl`: whatever they are, the REPL
//! answers (an error is fine) and never panics, hangs or exits on its own.

mod common;

use common::gph_with;

/// A small deterministic generator (xorshift), so a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

/// Pieces of input: names, literals, operators, brackets, keywords and
/// junk. No `=` or `..`: a random definition or enumeration could loop
/// for ever, which is the program's business, not the REPL's.
const TOKENS: &[&str] = &[
    "x",
    "xs",
    "it",
    "map",
    "head",
    "tail",
    "sum",
    "length",
    "show",
    "reverse",
    "id",
    "Just",
    "Nothing",
    "True",
    "fst",
    "1",
    "0",
    "-3",
    "2.5",
    "'c'",
    "\"str\"",
    "\"",
    "'",
    "[]",
    "[",
    "]",
    "(",
    ")",
    ",",
    "+",
    "*",
    "-",
    "/",
    "`div`",
    "++",
    ":",
    "$",
    ".",
    "\\",
    "->",
    "<-",
    "|",
    "::",
    "Int",
    "[Int]",
    "Maybe",
    "let",
    "in",
    "case",
    "of",
    "do",
    "if",
    "then",
    "else",
    "where",
    ";",
    "{",
    "}",
    "λ",
    "\t",
    "@",
    "#",
    "~",
    "undefined",
    "error",
    "return",
    "print",
    "getArgs",
    "_",
    "{-",
    "-}",
    "--",
];

const COMMANDS: &[&str] = &[
    ":type",
    ":t",
    ":sprint",
    ":print",
    ":set",
    ":unset",
    ":sc",
    ":browse",
    ":sparks",
    ":stats",
    ":main",
    ":load",
    ":reload",
    ":help",
    ":kind",
    ":info",
    ":",
    ":bogus",
    ":set pes",
    ":set engine",
    ":set grid",
    ":set sched",
    ":unset pes",
    ":set +s",
];

fn line(r: &mut Rng) -> String {
    let words = |r: &mut Rng, n: u64| {
        let k = r.next() % n;
        (0..k).map(|_| r.pick(TOKENS)).collect::<Vec<_>>().join(" ")
    };
    match r.next() % 10 {
        0..=2 => format!("{} {}", r.pick(COMMANDS), words(r, 4)),
        3 => format!("{} <- {}", r.pick(&["x", "y", "it", "_x"]), words(r, 6)),
        4 => format!("let {} = {}", r.pick(&["x", "xs", "f y"]), words(r, 6)),
        _ => words(r, 10),
    }
}

#[test]
fn random_command_lines_never_break_the_repl() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut script = String::new();
    for _ in 0..150 {
        script.push_str(&line(&mut r));
        script.push('\n');
    }
    // A last evaluation shows that the session still works.
    script.push_str("1 + 1\n");
    let home = std::env::temp_dir().join("gph-repl-fuzz-home");
    let _ = std::fs::create_dir_all(&home);
    let env = [
        ("HOME", home.to_str().unwrap()),
        ("EDITOR", "true"),
        ("VISUAL", "true"),
    ];
    let out = gph_with(&["repl"], Some(script.as_bytes()), &env);
    assert_eq!(
        out.status,
        Some(0),
        "script:\n{script}\nstderr:\n{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("internal error") && !out.stderr.contains("panicked"),
        "script:\n{script}\nstderr:\n{}",
        out.stderr
    );
    assert!(out.stdout.ends_with("2\n"), "stdout:\n{}", out.stdout);
}
