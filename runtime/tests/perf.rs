//! Timings (run with `cargo test --release -p gph-runtime --test perf --
//! --ignored --nocapture`).

mod common;
use common::*;

fn nfib_main(a: &mut Asm, n: i64, boxed: bool) {
    if boxed {
        let f = nfib_boxed(a);
        a.main_printing(
            vec![
                ConstV {
                    dst: v(0),
                    bits: int(n),
                },
                BoxInt {
                    dst: r(2),
                    src: v(0),
                },
                Call {
                    sc: f,
                    args: regs(&[2]),
                    vargs: vec![],
                    dst: r(1),
                },
            ],
            4,
            1,
        );
    } else {
        let w = nfib_worker(a);
        a.main_printing(
            vec![
                ConstV {
                    dst: v(0),
                    bits: int(n),
                },
                CallV {
                    sc: w,
                    args: vec![],
                    vargs: vregs(&[0]),
                    dst: v(1),
                },
                BoxInt {
                    dst: r(1),
                    src: v(1),
                },
            ],
            4,
            2,
        );
    }
}

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
        let mut a = Asm::new();
        nfib_main(&mut a, n, boxed);
        let o = run(&a.p);
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
            o.stats.reductions as f64 / s / 1e6,
            o.stats.gcs,
            o.stats.allocated_bytes >> 20
        );
    }
}
