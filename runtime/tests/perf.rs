//! Timings (run with `cargo test --release -p gph-runtime --test perf --
//! --ignored --nocapture`).

mod common;
use common::*;

#[test]
#[ignore]
fn perf_nfib() {
    for (n, boxed) in [
        (30, false),
        (31, false),
        (31, false),
        (30, true),
        (30, true),
    ] {
        let p = if boxed {
            nfib_boxed_program(n)
        } else {
            nfib_program(n)
        };
        let o = run(&p);
        let s = o.stats.time.as_secs_f64();
        println!(
            "nfib {n} {}: {} in {:.3}s, {:.1} M reductions/s, {} GCs, {} MB allocated",
            if boxed {
                "boxed (thunks)"
            } else {
                "unboxed worker"
            },
            o.out,
            s,
            o.stats.total.reductions as f64 / s / 1e6,
            o.stats.total.gcs,
            o.stats.total.allocated_bytes >> 20
        );
    }
}
