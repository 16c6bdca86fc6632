//! The stepper's unit tests (the comparison with the real machine on many
//! expressions is tests/step.rs at the root).

use super::*;
use std::time::Instant;

fn try_stepper(defs: &str, expr: &str) -> Result<Stepper, Vec<String>> {
    let text = format!("module Interactive where\n{defs}\ngph'it =\n  {expr}\n");
    let file = SourceFile::new("<interactive>", text);
    Stepper::new(&file, "gph'it", &Options::default())
        .map_err(|(_, d)| d.into_iter().map(|d| d.message).collect())
}

fn stepper(defs: &str, expr: &str) -> Stepper {
    try_stepper(defs, expr).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Every step until the end (at most `max`), and `show` after each.
fn steps(s: &mut Stepper, max: usize) -> Vec<(Step, String)> {
    let mut out = Vec::new();
    for _ in 0..max {
        match s.step() {
            Some(st) => {
                let now = s.show();
                out.push((st, now));
            }
            None => break,
        }
    }
    out
}

fn transcript(start: &str, steps: &[(Step, String)]) -> String {
    let mut t = format!("   {start}\n");
    for (s, now) in steps {
        t.push_str(&format!(
            "-- {}: {} ==> {}\n=> {now}\n",
            s.rule, s.redex, s.result
        ));
    }
    t
}

#[test]
fn sharing_reduces_the_argument_once() {
    let mut s = stepper("", "(\\y -> y * y) (1 + 2)");
    let start = s.show();
    assert_eq!(start, "(\\y -> y * y) (1 + 2)");
    let st = steps(&mut s, 100);
    let t = transcript(&start, &st);
    assert!(s.is_done() && s.error().is_none(), "{t}");
    assert_eq!(s.show(), "9");
    let adds = st
        .iter()
        .filter(|(s, _)| s.rule == Rule::Primitive("+".into()))
        .count();
    assert_eq!(adds, 1, "{t}");
    // After the beta step the argument is shared, named after `y`.
    assert_eq!(st[0].1, "let y = 1 + 2 in y * y", "{t}");
    assert_eq!(
        (st[1].0.redex.as_str(), st[1].0.result.as_str()),
        ("1 + 2", "3")
    );
    assert_eq!(st[1].1, "3 * 3", "{t}");
    assert_eq!(st.len(), 3, "{t}");
}

#[test]
fn a_cycle_is_a_cycle() {
    let mut s = stepper("", "take 3 (let xs = 1 : xs in xs)");
    let st = steps(&mut s, 1000);
    let t = transcript("", &st);
    assert!(s.is_done(), "{t}");
    assert_eq!(s.show(), "[1,1,1]");
    assert!(
        st.iter()
            .any(|(_, now)| now.starts_with("let xs = 1 : xs in 1 : 1 : ")),
        "{t}"
    );
    // A cyclic value is in normal form once each node is evaluated.
    let mut s = stepper("", "let xs = 1 : 2 : xs in xs");
    steps(&mut s, 100);
    assert!(s.is_done());
    assert_eq!(s.show(), "let xs = 1 : 2 : xs in xs");
    let g = s.graph();
    // Two cons cells, each pointing at the other.
    let cells: Vec<u32> = g
        .nodes
        .iter()
        .filter(|n| n.label == ":")
        .map(|n| n.id)
        .collect();
    assert_eq!(cells.len(), 2);
    for c in &cells {
        assert!(g
            .edges
            .iter()
            .any(|e| e.from == *c && cells.contains(&e.to) && e.to != *c));
    }
}

#[test]
fn a_thunk_that_needs_itself_is_a_loop() {
    let mut s = stepper("", "let x = x + 1 :: Int in x");
    assert_eq!(s.show(), "let x = x + 1 in x");
    let st = steps(&mut s, 100);
    assert_eq!(s.error(), Some("<<loop>>"), "{}", transcript("", &st));
    assert!(!s.is_done());
    // x is under evaluation: a black hole, in the graph and in show.
    let g = s.graph();
    assert!(g.nodes.iter().any(|n| n.kind == NodeKind::BlackHole));
    assert_eq!(s.show(), "let x = {-blackhole-} x + 1 in x");
    // Through an indirection, and through a data structure.
    for e in [
        "let x = id x :: Int in x",
        "let xs = tail xs :: [Int] in head xs",
    ] {
        let mut s = stepper("", e);
        steps(&mut s, 1000);
        assert_eq!(s.error(), Some("<<loop>>"), "{e}");
    }
    // Sharing a partial application is no loop.
    let mut s = stepper("", "let g = (+) (1 :: Int) in g (g 2)");
    steps(&mut s, 1000);
    assert_eq!((s.error(), s.show().as_str()), (None, "4"));
}

#[test]
fn errors_say_what_the_real_machine_says() {
    for (e, msg) in [
        ("head ([] :: [Int])", "Prelude.head: empty list"),
        ("1 `div` (0 :: Int)", "divide by zero"),
        ("7 `mod` (0 :: Integer)", "divide by zero"),
        ("error \"boom\" :: Int", "boom"),
        ("[1, 2, 3 :: Int] !! 5", "Prelude.!!: index too large"),
    ] {
        let mut s = stepper("", e);
        steps(&mut s, 10_000);
        assert_eq!(s.error(), Some(msg), "{e}");
        assert!(s.step().is_none());
    }
}

#[test]
fn dictionaries_do_not_show() {
    let mut s = stepper("", "1 + 2");
    assert_eq!(s.show(), "1 + 2");
    let st = steps(&mut s, 10);
    assert_eq!(st.len(), 1, "{}", transcript("1 + 2", &st));
    assert_eq!(st[0].0.rule, Rule::Primitive("+".into()));
    assert_eq!(
        (st[0].0.redex.as_str(), st[0].0.result.as_str()),
        ("1 + 2", "3")
    );
    assert!(st[0].0.folded > 0);
    for e in [
        "sum [1, 2, 3 :: Int]",
        "show (3 :: Int, 2.5 :: Double, 'c', \"s\", [1 :: Integer])",
        "[1 .. 5 :: Int] == [1 .. 5]",
        "compare \"ab\" \"b\"",
        "maximum [3, 1, 2 :: Double]",
        "map succ \"abc\"",
        "show (Just [LT, GT])",
    ] {
        let mut s = stepper("", e);
        let st = steps(&mut s, 5000);
        assert!(s.is_done(), "{e}: {:?}", s.error());
        let t = transcript(&s.show(), &st);
        assert!(
            !t.contains("$f") && !t.contains("D:") && !t.contains("<dict>") && !t.contains("$d"),
            "{e}:\n{t}"
        );
    }
}

#[test]
fn values_print_as_haskell() {
    let cases = [
        ("[1, 2, 3 :: Int]", "[1,2,3]"),
        ("\"hi\\n\"", "\"hi\\n\""),
        (
            "(negate 3 :: Int, 'x', 2.5 :: Double, -0.5 :: Double)",
            "(-3, 'x', 2.5, -0.5)",
        ),
        ("Just (negate 3 :: Integer)", "Just (-3)"),
        (
            "[Left 1, Right 'a'] :: [Either Int Char]",
            "[Left 1,Right 'a']",
        ),
        ("()", "()"),
        ("1.0e-2 :: Double", "1.0e-2"),
        ("[] :: [Int]", "[]"),
        ("\"\"", "\"\""),
    ];
    for (e, want) in cases {
        let mut s = stepper("", e);
        steps(&mut s, 1000);
        assert_eq!(s.show(), want, "{e}");
    }
    // A string being built: its evaluated characters, then the rest.
    let mut s = stepper("", "\"ab\" ++ \"cd\"");
    let st = steps(&mut s, 1000);
    assert!(
        st.iter().any(|(_, now)| now.starts_with("\"a\" ++ ")),
        "{}",
        transcript("", &st)
    );
    assert_eq!(s.show(), "\"abcd\"");
}

#[test]
fn io_actions_are_refused() {
    let e = try_stepper("", "putStrLn \"hi\"").err().expect("refused");
    assert!(
        e.iter()
            .any(|m| m.contains("pure expressions, not IO actions")),
        "{e:?}"
    );
}

#[test]
fn deep_structures_do_not_overflow() {
    // A deep chain of pending additions (foldr) and a long list.
    let mut s = stepper("", "foldr (+) 0 [1 .. 100000 :: Int]");
    s.run(5_000_000);
    assert_eq!((s.error(), s.show().as_str()), (None, "5000050000"));
    let mut s = stepper("", "[1 .. 50000 :: Int]");
    s.run(5_000_000);
    assert!(s.is_done());
    let text = s.show();
    assert!(text.starts_with("[1,2,3,") && text.ends_with(",50000]"));
    let g = s.graph();
    assert!(g.nodes.len() > 100_000);
    let short = s.show_limited(50);
    assert!(short.len() <= 60 && short.ends_with("..."), "{short}");
    // Midway through a deep evaluation.
    let mut s = stepper("", "foldr (+) 0 [1 .. 100000 :: Int]");
    s.run(300_000);
    let now = s.show_limited(200);
    assert!(now.ends_with("..."), "{now}");
    assert!(s.graph_limited(1000).truncated);
}

#[test]
fn the_heap_is_collected() {
    let mut s = stepper("", "length [1 .. 400000 :: Int]");
    s.run(10_000_000);
    assert_eq!(s.show(), "400000");
    assert!(s.m.heap.len() < 2_500_000, "{}", s.m.heap.len());
}

#[test]
fn steps_are_fast() {
    let mut s = stepper("", "sum [1 .. 20000]");
    s.set_text_limit(None);
    let t = Instant::now();
    let n = s.run(100_000);
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(n, 100_000);
    let bound = if cfg!(debug_assertions) { 20.0 } else { 1.0 };
    assert!(secs < bound, "100000 steps took {secs} s");
}

#[test]
fn graph_to_dot() {
    let mut s = stepper(
        "",
        "let y = 1 + 2 :: Int in (y, y, take 2 (let xs = 'a' : xs in xs))",
    );
    let g = s.graph();
    // y is one node with two edges into it.
    let y = g
        .nodes
        .iter()
        .find(|n| n.kind == NodeKind::Thunk && n.label == "@")
        .map(|n| n.id);
    assert!(y.is_some());
    check_dot(&g.to_dot());
    steps(&mut s, 5);
    let dot = s.graph().to_dot();
    check_dot(&dot);
    steps(&mut s, 1000);
    let g = s.graph();
    let shared = g
        .nodes
        .iter()
        .find(|n| n.label == "3")
        .expect("y evaluated");
    let tuple = g
        .nodes
        .iter()
        .find(|n| n.label == "(,,)")
        .expect("the tuple");
    let into: Vec<&GraphEdge> = g.edges.iter().filter(|e| e.to == shared.id).collect();
    assert!(
        into.len() >= 2 || into.iter().any(|e| e.from != tuple.id),
        "{g:?}"
    );
    check_dot(&g.to_dot());
}

/// DOT text: balanced, every node declared once, every edge between
/// declared nodes; and accepted by Graphviz when it is installed.
fn check_dot(dot: &str) {
    assert!(
        dot.starts_with("digraph gph {\n") && dot.ends_with("}\n"),
        "{dot}"
    );
    // Outside quoted strings, braces balance.
    let mut unquoted = String::new();
    let (mut quoted, mut escaped) = (false, false);
    for c in dot.chars() {
        match (quoted, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (_, false, '"') => quoted = !quoted,
            (false, _, c) => unquoted.push(c),
            _ => {}
        }
    }
    assert!(!quoted, "{dot}");
    assert_eq!(
        unquoted.matches('{').count(),
        unquoted.matches('}').count(),
        "{dot}"
    );
    let mut declared = std::collections::HashSet::new();
    let mut edges = Vec::new();
    for line in dot.lines().map(str::trim) {
        let Some(first) = line.split_whitespace().next() else {
            continue;
        };
        if line.contains(" -> ") {
            let mut it = line.split(" -> ");
            let from = it.next().unwrap_or("").trim().to_string();
            let to = it
                .next()
                .unwrap_or("")
                .split([' ', ';'])
                .next()
                .unwrap_or("")
                .to_string();
            edges.push((from, to));
        } else if line.contains('[') && !matches!(first, "graph" | "node" | "edge") {
            assert!(declared.insert(first.to_string()), "{first} twice");
        }
    }
    for (a, b) in edges {
        assert!(
            declared.contains(&a) && declared.contains(&b),
            "{a} -> {b}:\n{dot}"
        );
    }
    if std::process::Command::new("dot").arg("-V").output().is_ok() {
        use std::io::Write;
        let mut child = std::process::Command::new("dot")
            .arg("-Tsvg")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("dot runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(dot.as_bytes())
            .expect("written");
        let out = child.wait_with_output().expect("dot finishes");
        assert!(
            out.status.success(),
            "{}\n{dot}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
    }
}

#[test]
#[ignore]
fn timing_with_texts() {
    for limit in [Some(80), Some(200), None] {
        let mut s = stepper("", "sum [1 .. 20000]");
        s.set_text_limit(limit);
        let t = Instant::now();
        let mut n = 0;
        while n < 100_000 && s.step().is_some() {
            n += 1;
        }
        eprintln!("{limit:?}: {n} steps in {:.3} s", t.elapsed().as_secs_f64());
    }
    for (what, expr) in [
        ("show list", "length (show [1 .. 20000 :: Int])"),
        (
            "fib 22",
            "let fib n = if n < 2 then n else fib (n - 1) + fib (n - 2) in fib (22 :: Int)",
        ),
    ] {
        let mut s = stepper("", expr);
        let t = Instant::now();
        let n = s.run(10_000_000);
        eprintln!(
            "{what}: {n} steps ({} reductions) in {:.3} s",
            s.reductions(),
            t.elapsed().as_secs_f64()
        );
    }
}
