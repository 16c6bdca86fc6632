//! Steps an expression with the stepper and prints every step:
//!
//! ```text
//! cargo run --release -p gph-compiler --example step -- '(\y -> y * y) (1 + 2)'
//! cargo run --release -p gph-compiler --example step -- --defs defs.gph --max 50 'EXPR'
//! cargo run --release -p gph-compiler --example step -- --dot 'EXPR'      # the graph at the end
//! cargo run --release -p gph-compiler --example step -- --time 'EXPR'     # steps per second
//! ```

use gph_compiler::step::Stepper;
use gph_syntax::SourceFile;
use std::time::Instant;

fn main() {
    // Quietly stop when the reader does (`| head`).
    std::panic::set_hook(Box::new(|_| std::process::exit(0)));
    let mut args = std::env::args().skip(1);
    let (mut defs, mut max, mut dot, mut time, mut expr) =
        (String::new(), 1000u64, false, false, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--defs" => {
                defs = std::fs::read_to_string(args.next().expect("a file")).expect("readable")
            }
            "--max" => max = args.next().and_then(|n| n.parse().ok()).expect("a number"),
            "--dot" => dot = true,
            "--time" => time = true,
            _ => expr = Some(a),
        }
    }
    let expr = expr.expect("an expression");
    let text = format!("module Interactive where\n{defs}\ngph'it =\n  {expr}\n");
    let file = SourceFile::new("<interactive>", text);
    let mut s = match Stepper::new(&file, "gph'it", &gph_compiler::Options::default()) {
        Ok(s) => s,
        Err((_, ds)) => {
            for d in ds {
                eprintln!("error: {}", d.message);
            }
            std::process::exit(1);
        }
    };
    if time {
        let start = Instant::now();
        let n = s.run(max);
        let t = start.elapsed().as_secs_f64();
        println!(
            "{n} steps ({} reductions) in {t:.3} s: {:.0} steps/s; done: {}, error: {:?}",
            s.reductions(),
            n as f64 / t,
            s.is_done(),
            s.error()
        );
        println!("{}", s.show_limited(300));
        return;
    }
    println!("   {}", s.show_limited(2000));
    for _ in 0..max {
        match s.step() {
            Some(st) => {
                println!("-- {}: {}  ==>  {}", st.rule, st.redex, st.result);
                println!("=> {}", s.show_limited(2000));
            }
            None => break,
        }
    }
    if let Some(e) = s.error() {
        println!("error: {e}");
    }
    if dot {
        print!("{}", s.graph().to_dot());
    }
}
