//! The stepper (`gph_compiler::step`, behind the REPL's `:step`) computes
//! what the real machine computes: for each expression, `show (EXPR)` is
//! stepped to normal form and the resulting string (or error message) is
//! compared with what `main = putStrLn (show (EXPR))` prints when compiled
//! and run. A fixed corpus (numbers of every type, lists, strings, tuples,
//! Maybe/Either, user data types and classes, comprehensions, laziness,
//! higher-order functions, show/read, errors), then expressions from a
//! small seeded generator. A mismatch the generator finds is fixed and
//! kept in the corpus.

use gph_compiler::step::Stepper;
use gph_compiler::Options;
use gph_runtime::{Config, Exit, Tuning};
use gph_syntax::SourceFile;

/// Definitions every expression may use.
const DEFS: &str = r#"import Control.Parallel
import Data.Char (toUpper, isDigit, ord, chr)
import Data.List (sort, nub, foldl', intercalate)

data Shape = Circle Double | Rect Double Double
  deriving (Show, Eq)

data Tree a = Leaf | Node (Tree a) a (Tree a)
  deriving Show

data Colour = Red | Green | Blue
  deriving (Show, Eq, Ord, Enum, Bounded)

data P = P { px :: Int, py :: Int }
  deriving (Show, Eq)

data S = S !Int !Int
  deriving Show

newtype Age = Age Int
  deriving (Show, Eq, Ord)

class Describe a where
  describe :: a -> String
  describe _ = "something"
  name :: a -> String

instance Describe Shape where
  describe (Circle r) = "circle of radius " ++ show r
  describe (Rect w h) = "rectangle " ++ show w ++ "x" ++ show h
  name _ = "shape"

instance Describe Colour where
  name c = map toUpper (show c)

instance Describe a => Describe [a] where
  name xs = intercalate "," (map name xs)

area :: Shape -> Double
area (Circle r) = pi * r * r
area (Rect w h) = w * h

insert :: Ord a => a -> Tree a -> Tree a
insert x Leaf = Node Leaf x Leaf
insert x t@(Node l y r)
  | x < y = Node (insert x l) y r
  | x > y = Node l y (insert x r)
  | otherwise = t

toList :: Tree a -> [a]
toList Leaf = []
toList (Node l x r) = toList l ++ [x] ++ toList r

depth :: Tree a -> Int
depth Leaf = 0
depth (Node l _ r) = 1 + max (depth l) (depth r)

primes :: [Int]
primes = sieve [2 ..]
  where sieve (p : xs) = p : sieve [x | x <- xs, x `mod` p /= 0]

fibs :: [Integer]
fibs = 0 : 1 : zipWith (+) fibs (tail fibs)

collatz :: Int -> Int
collatz 1 = 0
collatz n
  | even n = 1 + collatz (n `div` 2)
  | otherwise = 1 + collatz (3 * n + 1)

twice :: (a -> a) -> a -> a
twice f = f . f

safeDiv :: Int -> Int -> Either String Int
safeDiv _ 0 = Left "divide by zero!"
safeDiv x y = Right (x `div` y)
"#;

/// The fixed corpus: expressions (each is shown with `show`).
const CORPUS: &[&str] = &[
    // Arithmetic at every numeric type, defaulting, negative numbers.
    "1 + 2",
    "(\\y -> y * y) (1 + 2)",
    "2 ^ 64",
    "2 ^ 10 - 3 * 7",
    "negate 5 * 3 - 2",
    "abs (-3) + signum (-2) :: Int",
    "(-7) `div` 2 :: Int",
    "(-7) `mod` 2 :: Int",
    "(-7) `quot` 2 :: Int",
    "(-7) `rem` 2 :: Int",
    "(7 `div` (-2), 7 `mod` (-2), 7 `quot` (-2), 7 `rem` (-2)) :: (Integer, Integer, Integer, Integer)",
    "(divMod (-7) 2, quotRem (-7) (2 :: Int))",
    "(maxBound :: Int) + 1",
    "(minBound :: Int, maxBound :: Int)",
    "product [1 .. 25 :: Int]",
    "product [1 .. 25 :: Integer]",
    "fromIntegral (3 :: Int) / 2 :: Double",
    "(1 / 3 :: Double, 0.1 + 0.2 :: Double, sqrt 2 :: Double)",
    "(1.0e7 :: Double, 1.0e-2 :: Double, 12345.678 :: Double, 0.1 :: Double)",
    "(2 / 0 :: Double, 0 / 0 :: Double, -0.0 :: Double, -1 / 0 :: Double)",
    "(pi :: Double, exp 1 :: Double)",
    "(truncate (-2.5 :: Double) :: Int, round (2.5 :: Double) :: Integer, round (3.5 :: Double) :: Int, ceiling (2.1 :: Double) :: Int, floor (-2.1 :: Double) :: Int)",
    "2 ** 0.5 :: Double",
    "fromIntegral (maxBound :: Int) + (1 :: Integer)",
    "toInteger (minBound :: Int) - 1",
    "(gcd 12 18, lcm 4 6 :: Int)",
    "(even 4, odd (7 :: Integer))",
    "[1.0, 1.5 .. 3.0 :: Double]",
    "(ord 'a', chr 98, succ 'y', pred 10 :: Int)",
    // Lists.
    "sum [1 .. 100]",
    "length [1 .. 50 :: Int]",
    "[1, 3 .. 11 :: Int]",
    "[10, 8 .. 1 :: Integer]",
    "['a' .. 'e']",
    "reverse [1 .. 10 :: Int]",
    "take 5 (iterate (* 2) 1)",
    "takeWhile (< 40) (map (^ 2) [1 ..])",
    "let xs = 1 : map (* 2) xs in take 6 xs",
    "take 7 (cycle [1, 2, 3 :: Int])",
    "take 3 (let xs = 1 : xs in xs)",
    "take 10 primes",
    "fibs !! 80",
    "zip [1 :: Int ..] \"abc\"",
    "zipWith3 (\\a b c -> a + b * c) [1, 2] [3, 4] [5, 6 :: Int]",
    "foldr (\\x acc -> x : take 2 acc) [] [1 .. 10 :: Int]",
    "foldl (-) 100 [1 .. 5 :: Int]",
    "foldl' (+) 0 [1 .. 1000 :: Int]",
    "(scanl (+) 0 [1 .. 5 :: Int], scanr (+) 0 [1 .. 4 :: Int], scanl1 max [3, 1, 4, 1, 5 :: Int])",
    "[(x, y) | x <- [1 .. 3 :: Int], y <- \"ab\", odd x]",
    "[x * x | x <- [1 .. 10 :: Int], even x]",
    "[(a, b, c) | c <- [1 .. 15 :: Int], b <- [1 .. c], a <- [1 .. b], a * a + b * b == c * c]",
    "concatMap show [1, 2, 3 :: Int]",
    "(replicate 3 'x', splitAt 2 [1, 2, 3, 4 :: Int], span even [2, 4, 5, 6 :: Int], break (> 3) [1 .. 6 :: Int])",
    "(elem 3 [1, 2, 3 :: Int], all even [2, 4 :: Int], any odd [2, 4 :: Int], null [], lookup 2 [(1, \"one\"), (2, \"two\")])",
    "(maximum [3, 1, 4 :: Int], minimum \"hello\", sort [3, 1, 2 :: Int], nub [1, 1, 2, 3, 2 :: Int])",
    "(unzip [(1, 'a'), (2, 'b') :: (Int, Char)], last [1, 2, 3 :: Int], init \"abc\", [1, 2, 3 :: Int] !! 1)",
    "map (uncurry (+)) (zip [1, 2] [3, 4 :: Int])",
    // Strings, show and read.
    "reverse \"hello\"",
    "words \"  the quick  brown fox \"",
    "(unwords [\"a\", \"b\"], lines \"a\\nb\\n\\nc\", unlines [\"x\", \"y\"])",
    "show 3.0 ++ show (-2 :: Int) ++ show 'x' ++ show \"q\\\"uote\"",
    "\"tab\\there\\1234\\&5 \\SOH\\DEL\"",
    "filter (\\c -> c /= 'l') \"hello world\"",
    "map toUpper \"shout\" ++ filter isDigit \"a1b2\"",
    "(read \"42\" :: Int, read \"-17\" :: Integer, read \"3.25\" :: Double)",
    "read \"[1,2,3]\" :: [Int]",
    "read \"(1,True)\" :: (Int, Bool)",
    "(show (Just (-3 :: Int)), show [Left 1, Right 'a' :: Either Int Char])",
    // Tuples, Maybe, Either, Ordering, Bool.
    "(fst (1 :: Int, 'a'), snd (1 :: Int, 'a'), ())",
    "Just 3 >>= \\x -> if x > (2 :: Int) then Just (x * 2) else Nothing",
    "fmap (+ 1) (Right 3 :: Either String Int)",
    "(either length negate (Left \"abc\" :: Either String Int), maybe 0 (+ 1) (Nothing :: Maybe Int))",
    "(compare 1 (2 :: Int), max \"ab\" \"b\", [LT ..], not True || False && True)",
    "mapM (\\x -> if x > 0 then Just x else Nothing) [1, 2, 3 :: Int]",
    "sequence [Just 1, Nothing :: Maybe Int]",
    "(safeDiv 7 2, safeDiv 1 0)",
    // User data types, classes, records, strict fields, newtypes.
    "area (Circle 1.0)",
    "map area [Rect 2 3, Circle 2]",
    "toList (foldr insert Leaf [5, 3, 8, 1, 4 :: Int])",
    "insert 2 (insert 1 Leaf) :: Tree Int",
    "depth (foldr insert Leaf \"binary tree\")",
    "(P { px = 1, py = 2 }, px (P 3 4), (P 1 2) { py = 9 })",
    "S (1 + 2) (3 * 4)",
    "(Age 3, Age 3 < Age 4)",
    "(describe (Rect 1 2), describe Red, name [Red, Blue], name (Circle 1))",
    "([minBound .. maxBound :: Colour], succ Red, fromEnum Blue, [Red ..] == [Red, Green, Blue])",
    "Circle 1 == Circle 1 && Rect 1 2 /= Rect 2 1",
    // where / let / case / guards, higher-order functions, laziness.
    "let f 0 = 1; f n = n * f (n - 1) in f (10 :: Integer)",
    "let fib n = if n < 2 then n else fib (n - 1) + fib (n - 2) in fib (15 :: Int)",
    "case [1, 2, 3 :: Int] of (x : _ : z) -> x + sum z; _ -> 0",
    "let (a, b) = (3, 4 :: Int) in a * b",
    "if 3 > (2 :: Int) then \"yes\" else \"no\"",
    "until (> 100) (* 2) (1 :: Int)",
    "map collatz [1 .. 10]",
    "twice (twice (+ 1)) (0 :: Int)",
    "(map (subtract 1) [1, 2, 3 :: Int], (. (* 2)) (+ 1) (5 :: Int), flip (-) 1 (10 :: Int))",
    "let g x | x < 0 = \"neg\" | x == 0 = \"zero\" | otherwise = \"pos\" in map g [-1, 0, 1 :: Int]",
    "fst (1 :: Int, undefined :: Int)",
    "length [undefined, undefined :: Int]",
    "take 3 [1 :: Int, 2, 3, error \"not reached\"]",
    "(\\x -> x `seq` 5) (2 + 3 :: Int)",
    "par (1 :: Int) (pseq (2 :: Int) (3 :: Int))",
    "let ones = 1 : ones in sum (take 100 ones) :: Int",
    // Errors.
    "head ([] :: [Int])",
    "1 `div` (0 :: Int)",
    "10 `mod` (0 :: Integer)",
    "[1, 2, 3 :: Int] !! 5",
    "tail \"\"",
    "error \"custom message\" :: Int",
    "let x = x + 1 :: Int in x",
    "maximum ([] :: [Int])",
    "undefined :: Int",
    "let f (Just x) = x in f Nothing :: Int",
    "toEnum 5 :: Bool",
    "succ (maxBound :: Int)",
    "read \"x\" :: Int",
    "[1, 1 `div` 0 :: Int]",
    "(minBound :: Int) `div` (-1)",
];

/// The program both machines compile: the definitions, `gph'it` and a
/// `main` that prints it.
fn program(expr: &str) -> SourceFile {
    let text = format!(
        "module Interactive where\n{DEFS}\ngph'it :: String\ngph'it = show ({expr})\n\nmain :: IO ()\nmain = putStrLn gph'it\n"
    );
    SourceFile::new("<interactive>", text)
}

/// What a machine printed, or the error that stopped it.
#[derive(Debug, PartialEq)]
enum Outcome {
    Printed(String),
    Error(String),
    /// The stepper's step cap.
    TooLong,
}

const STEP_CAP: u64 = 2_000_000;

fn stepped(expr: &str) -> Result<Outcome, String> {
    let file = program(expr);
    let mut s = Stepper::new(&file, "gph'it", &Options::default())
        .map_err(|(_, d)| format!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()))?;
    s.set_text_limit(None);
    s.run(STEP_CAP);
    if let Some(e) = s.error() {
        return Ok(Outcome::Error(e.to_string()));
    }
    if !s.is_done() {
        return Ok(Outcome::TooLong);
    }
    s.output()
        .map(Outcome::Printed)
        .ok_or_else(|| format!("the value is not a string: {}", s.show_limited(200)))
}

fn ran(expr: &str) -> Result<Outcome, String> {
    let file = program(expr);
    let (code, _, diags) = gph_compiler::compile_entry(&file, "main", &Options::default());
    let code =
        code.ok_or_else(|| format!("{:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>()))?;
    let mut out: Vec<u8> = Vec::new();
    let (exit, _) = gph_runtime::run_main_with(
        &code,
        &Config::default(),
        &Tuning::default(),
        &mut out,
        false,
        &mut std::io::empty(),
    );
    Ok(match exit {
        Exit::Success => {
            let mut s = String::from_utf8_lossy(&out).into_owned();
            if s.ends_with('\n') {
                s.pop();
            }
            Outcome::Printed(s)
        }
        Exit::Error(m) => Outcome::Error(m),
        Exit::ExitWith(c) => Outcome::Error(format!("exit {c}")),
    })
}

/// The mismatch for one expression, if any.
fn check(expr: &str) -> Option<String> {
    let want = match ran(expr) {
        Ok(o) => o,
        Err(e) => return Some(format!("{expr}: does not compile: {e}")),
    };
    let got = match stepped(expr) {
        Ok(o) => o,
        Err(e) => return Some(format!("{expr}: the stepper failed: {e}")),
    };
    (got != want).then(|| format!("{expr}:\n  stepper: {got:?}\n  machine: {want:?}"))
}

fn check_all(exprs: &[String]) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(e) = exprs.get(i) else { break };
                if let Some(f) = check(e) {
                    failures.lock().unwrap().push(f);
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

#[test]
fn the_stepper_agrees_with_the_machine_on_the_corpus() {
    assert!(CORPUS.len() >= 50);
    let exprs: Vec<String> = CORPUS.iter().map(|e| e.to_string()).collect();
    let failures = check_all(&exprs);
    assert!(
        failures.is_empty(),
        "{} of {} expressions differ:\n{}",
        failures.len(),
        exprs.len(),
        failures.join("\n")
    );
}

#[test]
fn the_stepper_agrees_with_the_machine_on_generated_expressions() {
    // GPH_STEP_SEED / GPH_STEP_COUNT: another (or a longer) run.
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let mut g = Gen::new(env("GPH_STEP_SEED").unwrap_or(20_240_611));
    let count = env("GPH_STEP_COUNT").map_or(GENERATED, |n| n as usize);
    let exprs: Vec<String> = (0..count).map(|_| g.top()).collect();
    if std::env::var_os("GPH_STEP_SHOW").is_some() {
        for e in &exprs {
            println!("{e}\n  {:?}", stepped(e));
        }
    }
    let failures = check_all(&exprs);
    assert!(
        failures.is_empty(),
        "{} of {} generated expressions differ:\n{}",
        failures.len(),
        exprs.len(),
        failures.join("\n")
    );
}

/// Every intermediate state of the corpus's evaluations (and some
/// generated ones) can be shown and drawn: no panic, and the texts of the
/// steps are there.
#[test]
fn every_state_can_be_shown_and_drawn() {
    let mut g = Gen::new(77);
    let mut exprs: Vec<String> = CORPUS.iter().map(|e| e.to_string()).collect();
    exprs.extend((0..GENERATED / 3).map(|_| g.top()));
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(e) = exprs.get(i) else { break };
                let Ok(mut s) = Stepper::new(&program(e), "gph'it", &Options::default()) else {
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("{e}: does not compile"));
                    continue;
                };
                for n in 0..400 {
                    let text = if n < 100 {
                        s.show()
                    } else {
                        s.show_limited(300)
                    };
                    let dot = s.graph_limited(300).to_dot();
                    if text.is_empty() || !dot.starts_with("digraph") {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{e}: step {n}: {text:?}"));
                    }
                    match s.step() {
                        Some(st) if st.redex.is_empty() || st.result.is_empty() => {
                            failures
                                .lock()
                                .unwrap()
                                .push(format!("{e}: step {n} has no text: {st:?}"));
                        }
                        Some(_) => {}
                        None => break,
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// How many expressions the generator makes.
/// Generated expressions per run: fewer in a debug build (the README's
/// test command), where each compile is several times slower.
const GENERATED: usize = if cfg!(debug_assertions) { 40 } else { 120 };

// ------------------------------------------------------------ generator

/// A small seeded generator of well-typed expressions (xorshift64*, so a
/// seed names the same expressions in every build). At most one partial
/// operation (`div`, `head`, `!!` ...) goes into an expression, so that
/// its error is the only one it can raise (which of two errors comes
/// first is not specified).
struct Gen {
    state: u64,
    risky: bool,
}

#[derive(Clone, Copy, Debug)]
enum Ty {
    Int,
    Integer,
    Double,
    Bool,
    Char,
    ListInt,
    Str,
    MaybeInt,
    PairIntStr,
}

const TYPES: [Ty; 9] = [
    Ty::Int,
    Ty::Integer,
    Ty::Double,
    Ty::Bool,
    Ty::Char,
    Ty::ListInt,
    Ty::Str,
    Ty::MaybeInt,
    Ty::PairIntStr,
];

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            state: seed.max(1),
            risky: false,
        }
    }

    fn next(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// A partial operation is allowed once per expression.
    fn may_risk(&mut self) -> bool {
        if self.risky || self.below(2) != 0 {
            return false;
        }
        self.risky = true;
        true
    }

    fn top(&mut self) -> String {
        self.risky = false;
        let t = TYPES[self.below(TYPES.len() as u64) as usize];
        let e = self.expr(t, 4);
        format!("{e} :: {}", ty_name(t))
    }

    fn small_int(&mut self) -> String {
        let n = self.below(21) as i64 - 10;
        if n < 0 {
            format!("({n})")
        } else {
            n.to_string()
        }
    }

    fn expr(&mut self, t: Ty, depth: u32) -> String {
        if depth == 0 {
            return self.leaf(t);
        }
        let d = depth - 1;
        match t {
            Ty::Int | Ty::Integer => {
                let tn = ty_name(t);
                match self.below(23) {
                    0 => format!("({} + {})", self.expr(t, d), self.expr(t, d)),
                    1 => format!("({} - {})", self.expr(t, d), self.expr(t, d)),
                    2 => format!("({} * {})", self.expr(t, d), self.expr(t, d)),
                    3 => {
                        let op = self.pick(&["div", "mod", "quot", "rem"]);
                        let r = if self.may_risk() {
                            format!("({} `mod` 3)", self.expr(t, d))
                        } else {
                            format!("(max 1 (abs {}))", self.expr(t, d))
                        };
                        format!("({} `{op}` {r})", self.expr(t, d))
                    }
                    4 => format!("(negate {})", self.expr(t, d)),
                    5 => format!(
                        "(fromIntegral (length {}) :: {tn})",
                        self.expr(Ty::ListInt, d)
                    ),
                    6 => format!("(fromIntegral (sum {}) :: {tn})", self.expr(Ty::ListInt, d)),
                    7 => format!(
                        "(if {} then {} else {})",
                        self.expr(Ty::Bool, d),
                        self.expr(t, d),
                        self.expr(t, d)
                    ),
                    8 => format!("(let v = {} in v * v + v)", self.expr(t, d)),
                    9 => format!("(fromIntegral (ord {}) :: {tn})", self.expr(Ty::Char, d)),
                    10 => format!(
                        "(maybe {} (fromIntegral . (* 2)) {})",
                        self.leaf(t),
                        self.expr(Ty::MaybeInt, d)
                    ),
                    11 => {
                        if self.may_risk() {
                            let f = self.pick(&["head", "last", "maximum", "minimum"]);
                            format!("(fromIntegral ({f} {}) :: {tn})", self.expr(Ty::ListInt, d))
                        } else {
                            format!(
                                "(fromIntegral (foldr (\\x a -> x - a) 0 {}) :: {tn})",
                                self.expr(Ty::ListInt, d)
                            )
                        }
                    }
                    12 => format!("({} ^ {})", self.expr(t, d), self.below(5)),
                    13 => format!(
                        "(fromIntegral (fst {}) :: {tn})",
                        self.expr(Ty::PairIntStr, d)
                    ),
                    14 => format!("(abs {} + signum {})", self.expr(t, d), self.expr(t, d)),
                    15 => format!(
                        "(fromIntegral (length (takeWhile (< {}) (iterate (* 2) 1))) :: {tn})",
                        self.expr(Ty::Int, d)
                    ),
                    16 => format!(
                        "(fromIntegral (sum (take {} (cycle (1 : {})))) :: {tn})",
                        self.below(12),
                        self.expr(Ty::ListInt, d)
                    ),
                    17 => format!(
                        "(fromIntegral (collatz (abs {} `mod` 30 + 1)) :: {tn})",
                        self.expr(Ty::Int, d)
                    ),
                    18 => format!(
                        "(fromIntegral (depth (foldr insert Leaf {})) :: {tn})",
                        self.expr(Ty::ListInt, d)
                    ),
                    19 => match t {
                        Ty::Integer => format!(
                            "(product [1 .. {}] `div` (2 ^ {}) + fibs !! {})",
                            self.below(26),
                            self.below(70),
                            self.below(90)
                        ),
                        _ => format!("(fromEnum (maximum (Red : {})))", self.colours()),
                    },
                    20 => format!("(gcd {} {})", self.expr(t, d), self.expr(t, d)),
                    21 if self.may_risk() => format!(
                        "(fromIntegral ({} !! {}) :: {tn})",
                        self.expr(Ty::ListInt, d),
                        self.expr(Ty::Int, d)
                    ),
                    21 => format!(
                        "(fst ({}, undefined :: Int) + fromIntegral (length [undefined, error \"no\" :: Int]))",
                        self.expr(t, d)
                    ),
                    _ => format!("(read (show {}) :: {tn})", self.expr(t, d)),
                }
            }
            Ty::Double => match self.below(15) {
                0 => format!("({} + {})", self.expr(t, d), self.expr(t, d)),
                1 => format!("({} - {})", self.expr(t, d), self.expr(t, d)),
                2 => format!("({} * {})", self.expr(t, d), self.expr(t, d)),
                3 => format!("({} / {})", self.expr(t, d), self.expr(t, d)),
                4 => format!("(fromIntegral {} :: Double)", self.expr(Ty::Int, d)),
                5 => format!("(sqrt (abs {}))", self.expr(t, d)),
                6 => format!(
                    "(fromIntegral (round {} :: Int) :: Double)",
                    self.expr(t, d)
                ),
                7 => format!("(negate {})", self.expr(t, d)),
                8 => format!(
                    "(if {} then {} else {})",
                    self.expr(Ty::Bool, d),
                    self.expr(t, d),
                    self.expr(t, d)
                ),
                10 => format!("(area (Circle {}))", self.expr(t, d)),
                11 => format!("(abs {} ** 0.5)", self.expr(t, d)),
                12 => format!(
                    "(fromIntegral (truncate {} :: Integer) :: Double)",
                    self.expr(t, d)
                ),
                13 => format!(
                    "(sum (map fromIntegral {}) / 3 :: Double)",
                    self.expr(Ty::ListInt, d)
                ),
                _ => format!("(read (show {}) :: Double)", self.expr(t, d)),
            },
            Ty::Bool => match self.below(11) {
                0 => {
                    let u = [Ty::Int, Ty::Integer, Ty::Double, Ty::Char][self.below(4) as usize];
                    let op = self.pick(&["==", "/=", "<", "<=", ">", ">="]);
                    format!("({} {op} {})", self.expr(u, d), self.expr(u, d))
                }
                1 => format!("({} && {})", self.expr(t, d), self.expr(t, d)),
                2 => format!("({} || {})", self.expr(t, d), self.expr(t, d)),
                3 => format!("(not {})", self.expr(t, d)),
                4 => format!("(even {})", self.expr(Ty::Int, d)),
                5 => format!("(null {})", self.expr(Ty::ListInt, d)),
                6 => format!(
                    "(elem {} {})",
                    self.expr(Ty::Int, d),
                    self.expr(Ty::ListInt, d)
                ),
                7 => format!(
                    "(Circle {} == Circle {})",
                    self.expr(Ty::Double, d),
                    self.expr(Ty::Double, d)
                ),
                8 => format!(
                    "(compare {} {} == LT)",
                    self.expr(Ty::Str, d),
                    self.expr(Ty::Str, d)
                ),
                9 => format!("(all even {})", self.expr(Ty::ListInt, d)),
                _ => format!("({} == {})", self.expr(Ty::Str, d), self.expr(Ty::Str, d)),
            },
            Ty::Char => match self.below(4) {
                0 => format!("(succ {})", self.leaf(t)),
                1 => format!("(toUpper {})", self.expr(t, d)),
                2 => format!(
                    "(if {} then {} else {})",
                    self.expr(Ty::Bool, d),
                    self.expr(t, d),
                    self.expr(t, d)
                ),
                _ => {
                    if self.may_risk() {
                        format!("(head {})", self.expr(Ty::Str, d))
                    } else {
                        format!("(head ({} ++ \"z\"))", self.expr(Ty::Str, d))
                    }
                }
            },
            Ty::ListInt => match self.below(21) {
                0 => format!("[{} .. {}]", self.small_int(), self.small_int()),
                1 => format!("(map (+ {}) {})", self.small_int(), self.expr(t, d)),
                2 => format!("(filter even {})", self.expr(t, d)),
                3 => format!("(take {} {})", self.below(6), self.expr(t, d)),
                4 => format!("(drop {} {})", self.below(4), self.expr(t, d)),
                5 => format!("(reverse {})", self.expr(t, d)),
                6 => format!("(zipWith (*) {} {})", self.expr(t, d), self.expr(t, d)),
                7 => format!("({} ++ {})", self.expr(t, d), self.expr(t, d)),
                8 => format!(
                    "(take {} (iterate (* 2) {}))",
                    self.below(6),
                    self.expr(Ty::Int, d)
                ),
                9 => format!(
                    "(take 6 [x * y | x <- {}, y <- {}, x > y])",
                    self.expr(t, d),
                    self.expr(t, d)
                ),
                10 => format!("(scanl (+) {} {})", self.expr(Ty::Int, d), self.expr(t, d)),
                11 => format!("(replicate {} {})", self.below(4), self.expr(Ty::Int, d)),
                12 => format!("(map fromEnum {})", self.expr(Ty::Str, d)),
                14 => format!("(take {} [{} ..])", self.below(8), self.expr(Ty::Int, d)),
                15 => format!("(take {} primes)", self.below(10)),
                16 => "(takeWhile (< 50) (map (^ 2) [1 ..]))".into(),
                17 => format!("(toList (foldr insert Leaf {}))", self.expr(t, d)),
                18 => format!(
                    "(let xs = {} : map (* 2) xs in take {} xs)",
                    self.expr(Ty::Int, d),
                    self.below(8)
                ),
                19 => format!("(foldr (\\x acc -> x : take 2 acc) [] {})", self.expr(t, d)),
                20 => format!("(map (\\x -> x * x - 1) {})", self.expr(t, d)),
                _ => {
                    if self.may_risk() {
                        format!("(tail {})", self.expr(t, d))
                    } else {
                        format!("(sort {})", self.expr(t, d))
                    }
                }
            },
            Ty::Str => match self.below(15) {
                0 => {
                    let u = TYPES[self.below(TYPES.len() as u64) as usize];
                    format!("(show {})", self.expr(u, d))
                }
                1 => format!("({} ++ {})", self.expr(t, d), self.expr(t, d)),
                2 => format!("(reverse {})", self.expr(t, d)),
                3 => format!("(map toUpper {})", self.expr(t, d)),
                4 => format!("(unwords (words {}))", self.expr(t, d)),
                5 => format!("(take {} {})", self.below(5), self.expr(t, d)),
                6 => format!("(replicate {} {})", self.below(4), self.expr(Ty::Char, d)),
                7 => format!("(concatMap show {})", self.expr(Ty::ListInt, d)),
                9 => format!("(show (Circle {}))", self.expr(Ty::Double, d)),
                10 => format!("(show (foldr insert Leaf {}))", self.expr(Ty::ListInt, d)),
                11 => format!(
                    "(describe (Rect {} {}) ++ name {})",
                    self.expr(Ty::Double, d),
                    self.expr(Ty::Double, d),
                    self.colours()
                ),
                12 => format!("(intercalate \", \" (words {}))", self.expr(t, d)),
                13 => format!("(filter isDigit {})", self.expr(t, d)),
                _ => format!("(snd {})", self.expr(Ty::PairIntStr, d)),
            },
            Ty::MaybeInt => match self.below(5) {
                0 => format!("(Just {})", self.expr(Ty::Int, d)),
                1 => format!(
                    "(lookup {} (zip {} [10 ..]))",
                    self.expr(Ty::Int, d),
                    self.expr(Ty::ListInt, d)
                ),
                2 => format!("(fmap (* 3) {})", self.expr(t, d)),
                3 => format!(
                    "({} >>= \\v -> if v > 0 then Just (v - 1) else Nothing)",
                    self.expr(t, d)
                ),
                _ => "(Nothing :: Maybe Int)".into(),
            },
            Ty::PairIntStr => match self.below(3) {
                0 => format!("({}, {})", self.expr(Ty::Int, d), self.expr(Ty::Str, d)),
                1 => format!(
                    "((let (a, b) = {} in (b, a)) `seq` {})",
                    self.expr(t, d),
                    self.expr(t, d)
                ),
                _ => format!(
                    "((\\(a, s) -> (a + length s, s ++ show a)) {})",
                    self.expr(t, d)
                ),
            },
        }
    }

    fn colours(&mut self) -> String {
        self.pick(&[
            "([] :: [Colour])",
            "[Blue]",
            "[Green, Red]",
            "[minBound .. maxBound :: Colour]",
        ])
        .to_string()
    }

    fn leaf(&mut self, t: Ty) -> String {
        match t {
            Ty::Int => self.small_int(),
            Ty::Integer => match self.below(3) {
                0 => "12345678901234567890".into(),
                _ => self.small_int(),
            },
            Ty::Double => self
                .pick(&[
                    "1.5",
                    "0.1",
                    "(-2.25)",
                    "1.0e-3",
                    "3.0",
                    "12345.678",
                    "1.0e22",
                    "0",
                ])
                .to_string(),
            Ty::Bool => self.pick(&["True", "False"]).to_string(),
            Ty::Char => self
                .pick(&["'a'", "'Z'", "'\\n'", "'7'", "' '", "'\\''"])
                .to_string(),
            Ty::ListInt => self
                .pick(&["([] :: [Int])", "[1, 2, 3]", "[5, -1, 0]", "[7]"])
                .to_string(),
            Ty::Str => self
                .pick(&[
                    "\"\"",
                    "\"abc\"",
                    "\"hello world\"",
                    "\"q\\\"t\"",
                    "\"  x y \"",
                    "\"\\233t\\1234\\&5\\DEL\\n\"",
                ])
                .to_string(),
            Ty::MaybeInt => self
                .pick(&["(Nothing :: Maybe Int)", "(Just 4)", "(Just (-2))"])
                .to_string(),
            Ty::PairIntStr => "(1, \"one\")".into(),
        }
    }
}

fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::Int => "Int",
        Ty::Integer => "Integer",
        Ty::Double => "Double",
        Ty::Bool => "Bool",
        Ty::Char => "Char",
        Ty::ListInt => "[Int]",
        Ty::Str => "String",
        Ty::MaybeInt => "Maybe Int",
        Ty::PairIntStr => "(Int, String)",
    }
}
