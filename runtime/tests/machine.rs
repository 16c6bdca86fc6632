//! The one-PE machine on hand-assembled programs.

mod common;
use common::*;

#[test]
fn nfib_unboxed() {
    let o = run_both(&nfib_program(20));
    assert_eq!(o.exit, Exit::Success);
    assert_eq!(o.out, "21891");
    let o = run(&nfib_program(25));
    assert_eq!(o.out, "242785");
    // main + one entry per nfib call
    assert_eq!(o.stats.total.reductions, 242785 + 1);
}

#[test]
fn nfib_with_thunks() {
    let o = run_both(&nfib_boxed_program(18));
    assert_eq!(o.exit, Exit::Success);
    assert_eq!(o.out, "8361");
}

#[test]
fn lazy_infinite_list() {
    // sum (take 5 (from 10)) = 10+11+12+13+14
    let mut a = Asm::new();
    let from = from(&mut a);
    let take = take(&mut a);
    let sum = sum_worker(&mut a);
    // a thunk for (from 10), to test laziness of the argument
    let from_t = a.thunk(
        "Main.main$t",
        1,
        1,
        0,
        vec![TailCall {
            sc: from,
            args: regs(&[0]),
            vargs: vec![],
        }],
    );
    a.main_printing(
        vec![
            ConstV {
                dst: v(0),
                bits: 10,
            },
            BoxInt {
                dst: r(2),
                src: v(0),
            },
            MkThunk {
                dst: r(3),
                sc: from_t,
                args: regs(&[2]),
            },
            ConstV { dst: v(0), bits: 5 },
            BoxInt {
                dst: r(2),
                src: v(0),
            },
            Call {
                sc: take,
                args: regs(&[2, 3]),
                vargs: vec![],
                dst: r(4),
            },
            ConstV { dst: v(0), bits: 0 },
            CallV {
                sc: sum,
                args: regs(&[4]),
                vargs: vregs(&[0]),
                dst: v(1),
            },
            BoxInt {
                dst: r(1),
                src: v(1),
            },
        ],
        5,
        2,
    );
    let o = run_both(&a.p);
    assert_eq!(o.exit, Exit::Success);
    assert_eq!(o.out, "60");
}

#[test]
fn letrec_knot_with_fill() {
    // xs = 7 : xs; sum (take 5 xs)
    let mut a = Asm::new();
    let take = take(&mut a);
    let sum = sum_worker(&mut a);
    a.main_printing(
        vec![
            ConstV { dst: v(0), bits: 7 },
            BoxInt {
                dst: r(2),
                src: v(0),
            },
            MkCon {
                dst: r(3),
                con: CONS,
                args: regs(&[2, 2]),
            },
            Fill {
                node: r(3),
                field: 1,
                src: r(3),
            },
            ConstV { dst: v(0), bits: 5 },
            BoxInt {
                dst: r(2),
                src: v(0),
            },
            Call {
                sc: take,
                args: regs(&[2, 3]),
                vargs: vec![],
                dst: r(4),
            },
            ConstV { dst: v(0), bits: 0 },
            CallV {
                sc: sum,
                args: regs(&[4]),
                vargs: vregs(&[0]),
                dst: v(1),
            },
            BoxInt {
                dst: r(1),
                src: v(1),
            },
        ],
        5,
        2,
    );
    let o = run_both(&a.p);
    assert_eq!(o.out, "35");
}

/// add3 x y z = x + y + z (boxed), and konst x = add3 x (a PAP).
fn add3(a: &mut Asm) -> ScId {
    a.fun(
        "Main.add3",
        3,
        4,
        3,
        vec![
            Eval { reg: r(0) },
            Eval { reg: r(1) },
            Eval { reg: r(2) },
            Unbox {
                dst: v(0),
                src: r(0),
            },
            Unbox {
                dst: v(1),
                src: r(1),
            },
            Unbox {
                dst: v(2),
                src: r(2),
            },
            OpV {
                op: VOp::IAdd,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            OpV {
                op: VOp::IAdd,
                dst: v(0),
                a: v(0),
                b: v(2),
            },
            BoxInt {
                dst: r(3),
                src: v(0),
            },
            Ret { reg: r(3) },
        ],
    )
}

#[test]
fn apply_partial_exact_and_oversaturated() {
    let mut a = Asm::new();
    let add3 = add3(&mut a);
    let g_add3 = a.global(add3);
    // konst x = add3 x  (returns a PAP)
    let konst = a.fun(
        "Main.konst",
        1,
        2,
        0,
        vec![
            MkPap {
                dst: r(1),
                sc: add3,
                args: regs(&[0]),
            },
            Ret { reg: r(1) },
        ],
    );
    let g_konst = a.global(konst);
    // tailer f x y z = f x y z (TailApply, over-saturated for konst)
    let tailer = a.fun(
        "Main.tailer",
        4,
        4,
        0,
        vec![TailApply {
            f: r(0),
            args: regs(&[1, 2, 3]),
        }],
    );
    a.main_printing(
        vec![
            ConstV {
                dst: v(0),
                bits: 100,
            },
            BoxInt {
                dst: r(4),
                src: v(0),
            },
            ConstV {
                dst: v(0),
                bits: 20,
            },
            BoxInt {
                dst: r(5),
                src: v(0),
            },
            ConstV { dst: v(0), bits: 3 },
            BoxInt {
                dst: r(6),
                src: v(0),
            },
            // partial: p1 = add3 100; p2 = p1 20; exact: p2 3 = 123
            Instr::Global {
                dst: r(7),
                g: g_add3,
            },
            Apply {
                f: r(7),
                args: regs(&[4]),
                dst: r(8),
            },
            Apply {
                f: r(8),
                args: regs(&[5]),
                dst: r(8),
            },
            Apply {
                f: r(8),
                args: regs(&[6]),
                dst: r(9),
            },
            Unbox {
                dst: v(1),
                src: r(9),
            },
            // over-saturated: konst 100 20 3 = 123
            Instr::Global {
                dst: r(7),
                g: g_konst,
            },
            Apply {
                f: r(7),
                args: regs(&[4, 5, 6]),
                dst: r(9),
            },
            Unbox {
                dst: v(2),
                src: r(9),
            },
            OpV {
                op: VOp::IAdd,
                dst: v(1),
                a: v(1),
                b: v(2),
            },
            // tail-applied, over-saturated: tailer konst 100 20 3 = 123
            Call {
                sc: tailer,
                args: regs(&[7, 4, 5, 6]),
                vargs: vec![],
                dst: r(9),
            },
            Unbox {
                dst: v(2),
                src: r(9),
            },
            OpV {
                op: VOp::IAdd,
                dst: v(1),
                a: v(1),
                b: v(2),
            },
            // tail-applied partial: tailer add3 100 20 3 via a PAP of tailer
            Instr::Global {
                dst: r(7),
                g: g_add3,
            },
            MkPap {
                dst: r(8),
                sc: tailer,
                args: regs(&[7, 4]),
            },
            Apply {
                f: r(8),
                args: regs(&[5, 6]),
                dst: r(9),
            },
            Unbox {
                dst: v(2),
                src: r(9),
            },
            OpV {
                op: VOp::IAdd,
                dst: v(1),
                a: v(1),
                b: v(2),
            },
            BoxInt {
                dst: r(1),
                src: v(1),
            },
        ],
        10,
        3,
    );
    let o = run_both(&a.p);
    assert_eq!(o.exit, Exit::Success);
    assert_eq!(o.out, "492");
}

#[test]
fn caf_is_evaluated_once() {
    let mut a = Asm::new();
    let w = nfib_worker(&mut a);
    let caf = a.declare("Main.big", ScKind::Caf, 0, 0, RetKind::Boxed);
    a.define(
        caf,
        1,
        2,
        vec![
            ConstV {
                dst: v(0),
                bits: 20,
            },
            CallV {
                sc: w,
                args: vec![],
                vargs: vregs(&[0]),
                dst: v(1),
            },
            BoxInt {
                dst: r(0),
                src: v(1),
            },
            Ret { reg: r(0) },
        ],
    );
    let g = a.global(caf);
    a.main_printing(
        vec![
            Instr::Global { dst: r(4), g },
            Eval { reg: r(4) },
            Unbox {
                dst: v(0),
                src: r(4),
            },
            Instr::Global { dst: r(4), g },
            Eval { reg: r(4) },
            Unbox {
                dst: v(1),
                src: r(4),
            },
            OpV {
                op: VOp::IAdd,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            BoxInt {
                dst: r(1),
                src: v(0),
            },
        ],
        5,
        2,
    );
    let o = run_both(&a.p);
    assert_eq!(o.out, "43782");
    // main, the CAF once, and 21891 nfib calls
    assert_eq!(o.stats.total.reductions, 1 + 1 + 21891);
}

#[test]
fn self_dependent_thunk_is_a_loop() {
    let mut a = Asm::new();
    let t = a.thunk(
        "Main.x$t",
        1,
        1,
        0,
        vec![Eval { reg: r(0) }, Ret { reg: r(0) }],
    );
    a.main_printing(
        vec![
            MkThunk {
                dst: r(1),
                sc: t,
                args: regs(&[0]),
            },
            Fill {
                node: r(1),
                field: 0,
                src: r(1),
            },
        ],
        4,
        0,
    );
    let o = run_both(&a.p);
    assert_eq!(o.exit, Exit::Error("<<loop>>".into()));
}

#[test]
fn division_by_zero() {
    let mut a = Asm::new();
    a.main_printing(
        vec![
            ConstV { dst: v(0), bits: 1 },
            ConstV { dst: v(1), bits: 0 },
            OpV {
                op: VOp::IDiv,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            BoxInt {
                dst: r(1),
                src: v(0),
            },
        ],
        4,
        2,
    );
    let o = run(&a.p);
    assert_eq!(o.exit, Exit::Error("divide by zero".into()));
    let mut a = Asm::new();
    a.main_printing(
        vec![
            ConstV {
                dst: v(0),
                bits: i64::MIN as u64,
            },
            ConstV {
                dst: v(1),
                bits: -1i64 as u64,
            },
            OpV {
                op: VOp::IQuot,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            BoxInt {
                dst: r(1),
                src: v(0),
            },
        ],
        4,
        2,
    );
    assert_eq!(run(&a.p).exit, Exit::Error("arithmetic overflow".into()));
}

/// The length of [1..n], the list produced lazily and dropped as consumed.
fn length_program(n: i64) -> Program {
    let mut a = Asm::new();
    let upto = upto(&mut a);
    let len = length_worker(&mut a);
    a.main_printing(
        vec![
            ConstV { dst: v(0), bits: 1 },
            BoxInt {
                dst: r(2),
                src: v(0),
            },
            ConstV {
                dst: v(0),
                bits: int(n),
            },
            BoxInt {
                dst: r(3),
                src: v(0),
            },
            Call {
                sc: upto,
                args: regs(&[2, 3]),
                vargs: vec![],
                dst: r(4),
            },
            ConstV { dst: v(0), bits: 0 },
            CallV {
                sc: len,
                args: regs(&[4]),
                vargs: vregs(&[0]),
                dst: v(1),
            },
            BoxInt {
                dst: r(1),
                src: v(1),
            },
        ],
        5,
        2,
    );
    a.p
}

#[test]
fn long_lazy_list_runs_in_flat_memory() {
    let o = run(&length_program(10_000_000));
    assert_eq!(o.exit, Exit::Success);
    assert_eq!(o.out, "10000000");
    assert!(o.stats.total.gcs > 10, "{:?}", o.stats);
    // the heap never grew past its first size
    assert!(o.stats.total.peak_heap_bytes.0 <= 8 << 20, "{:?}", o.stats);
    assert!(o.stats.max_stack_bytes < 4096, "{:?}", o.stats);
    let small = run(&length_program(1000));
    assert_eq!(
        small.stats.total.peak_heap_bytes.0,
        o.stats.total.peak_heap_bytes.0
    );
}

#[test]
fn tail_recursive_loop_in_constant_stack() {
    // loop n acc = if n == 0 then acc else loop (n-1) (acc+n)
    let mut a = Asm::new();
    let lp = a.declare("Main.loop", ScKind::Fun, 0, 2, RetKind::Int);
    a.define_at(
        lp,
        0,
        3,
        vec![
            To(
                BranchEqConst {
                    a: v(0),
                    bits: 0,
                    target: 0,
                },
                vec!["done"],
            ),
            I(OpV {
                op: VOp::IAdd,
                dst: v(1),
                a: v(1),
                b: v(0),
            }),
            I(ConstV { dst: v(2), bits: 1 }),
            I(OpV {
                op: VOp::ISub,
                dst: v(0),
                a: v(0),
                b: v(2),
            }),
            I(TailCall {
                sc: lp,
                args: vec![],
                vargs: vregs(&[0, 1]),
            }),
            At("done"),
            I(RetV { reg: v(1) }),
        ],
    );
    a.main_printing(
        vec![
            ConstV {
                dst: v(0),
                bits: 20_000_000,
            },
            ConstV { dst: v(1), bits: 0 },
            CallV {
                sc: lp,
                args: vec![],
                vargs: vregs(&[0, 1]),
                dst: v(0),
            },
            BoxInt {
                dst: r(1),
                src: v(0),
            },
        ],
        4,
        2,
    );
    let o = run(&a.p);
    assert_eq!(o.out, "200000010000000");
    assert!(o.stats.max_stack_bytes < 1024);
    assert_eq!(o.stats.total.gcs, 0);
}

#[test]
fn heap_exhaustion() {
    // build n acc = if n == 0 then acc else build (n-1) (n : acc); length
    let mut a = Asm::new();
    let len = length_worker(&mut a);
    let build = a.declare("Main.build", ScKind::Fun, 1, 1, RetKind::Boxed);
    a.define_at(
        build,
        3,
        2,
        vec![
            To(
                BranchEqConst {
                    a: v(0),
                    bits: 0,
                    target: 0,
                },
                vec!["done"],
            ),
            I(BoxInt {
                dst: r(1),
                src: v(0),
            }),
            I(MkCon {
                dst: r(2),
                con: CONS,
                args: regs(&[1, 0]),
            }),
            I(ConstV { dst: v(1), bits: 1 }),
            I(OpV {
                op: VOp::ISub,
                dst: v(0),
                a: v(0),
                b: v(1),
            }),
            I(TailCall {
                sc: build,
                args: regs(&[2]),
                vargs: vregs(&[0]),
            }),
            At("done"),
            I(Ret { reg: r(0) }),
        ],
    );
    a.main_printing(
        vec![
            MkCon {
                dst: r(2),
                con: NIL,
                args: vec![],
            },
            ConstV {
                dst: v(0),
                bits: 1_000_000,
            },
            Call {
                sc: build,
                args: regs(&[2]),
                vargs: vregs(&[0]),
                dst: r(3),
            },
            ConstV { dst: v(0), bits: 0 },
            CallV {
                sc: len,
                args: regs(&[3]),
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
    let cfg = Config {
        heap_limit: 8 << 20,
        ..Config::default()
    };
    let o = run_with(&a.p, &cfg, &Tuning::default(), "");
    assert_eq!(
        o.exit,
        Exit::Error("heap exhausted (the heap limit is 8 MB; use --heap-limit to raise it)".into())
    );
    // with room it works, and the heap grew
    let o = run(&a.p);
    assert_eq!(o.out, "1000000");
    assert!(o.stats.total.peak_heap_bytes.0 > 8 << 20);
}

/// stdout's handle in r4 and stdin's in r5 (Gph.Prim's handle numbers).
fn std_handles() -> Vec<Instr> {
    vec![
        ConstV { dst: v(0), bits: 1 },
        BoxInt {
            dst: r(4),
            src: v(0),
        },
        ConstV { dst: v(0), bits: 0 },
        BoxInt {
            dst: r(5),
            src: v(0),
        },
    ]
}

/// putStr of the (forced) string in register `reg` on stdout (r4).
fn put_str(reg: u16) -> Instr {
    Instr::Prim {
        prim: gph_runtime::code::Prim::PutStr,
        dst: r(2),
        args: regs(&[4, reg, 0]),
    }
}

/// The IO primitive `prim` on registers `args` (the world last), its
/// value (the first field of its result) into r1.
fn io_value(prim: gph_runtime::code::Prim, args: &[u16]) -> Vec<Instr> {
    vec![
        Instr::Prim {
            prim,
            dst: r(1),
            args: regs(args),
        },
        Field {
            dst: r(1),
            reg: r(1),
            field: 0,
        },
    ]
}

/// The string in register `reg`, forced by `force` (`force_list`).
fn forced(force: ScId, reg: u16) -> Instr {
    Call {
        sc: force,
        args: regs(&[reg]),
        vargs: vec![],
        dst: r(reg),
    }
}

#[test]
fn put_str_of_string_literals() {
    let mut a = Asm::new();
    let force = force_list(&mut a);
    let long: String = (0..100)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let s1 = a.string("héllo, wörld ✓\n");
    let s2 = a.string(&long);
    let s3 = a.string("");
    let m = a.fun(
        "Main.main",
        1,
        6,
        1,
        [
            std_handles(),
            vec![
                Str { dst: r(1), idx: s1 },
                forced(force, 1),
                put_str(1),
                Str { dst: r(1), idx: s2 },
                forced(force, 1),
                put_str(1),
                Str { dst: r(1), idx: s3 },
                forced(force, 1),
                put_str(1),
                Ret { reg: r(2) },
            ],
        ]
        .concat(),
    );
    let g = a.global(m);
    a.p.main = Some(g);
    let o = run_both(&a.p);
    assert_eq!(o.exit, Exit::Success);
    assert_eq!(o.out, format!("héllo, wörld ✓\n{long}"));
}

#[test]
fn error_primitive_flushes_output_first() {
    let mut a = Asm::new();
    let force = force_list(&mut a);
    let s1 = a.string("partial ");
    let s2 = a.string("boom");
    let m = a.fun(
        "Main.main",
        1,
        6,
        1,
        [
            std_handles(),
            vec![
                Str { dst: r(1), idx: s1 },
                forced(force, 1),
                put_str(1),
                Str { dst: r(1), idx: s2 },
                forced(force, 1),
                Instr::Prim {
                    prim: gph_runtime::code::Prim::Raise,
                    dst: r(2),
                    args: regs(&[1]),
                },
                Ret { reg: r(2) },
            ],
        ]
        .concat(),
    );
    let g = a.global(m);
    a.p.main = Some(g);
    let o = run(&a.p);
    assert_eq!(o.exit, Exit::Error("boom".into()));
    assert_eq!(o.out, "partial ");
}

#[test]
fn stdin_get_line_and_get_contents() {
    // main = getLine >>= putStr; getContents >>= putStr . force
    let mut a = Asm::new();
    let force = force_list(&mut a);
    let m = a.fun(
        "Main.main",
        1,
        6,
        1,
        [
            std_handles(),
            io_value(gph_runtime::code::Prim::GetLine, &[5, 0]),
            vec![put_str(1)],
            io_value(gph_runtime::code::Prim::GetContents, &[5, 0]),
            vec![
                forced(force, 1),
                put_str(1),
                Instr::Prim {
                    prim: gph_runtime::code::Prim::GetLine,
                    dst: r(1),
                    args: regs(&[5, 0]),
                },
                Ret { reg: r(2) },
            ],
        ]
        .concat(),
    );
    let g = a.global(m);
    a.p.main = Some(g);
    let o = run_with(
        &a.p,
        &Config::default(),
        &Tuning::default(),
        "first\nsecond\nthird",
    );
    assert_eq!(o.out, "first|second\nthird".replace('|', ""));
    assert_eq!(
        o.exit,
        Exit::Error("<stdin>: hGetLine: illegal operation (handle is closed)".into())
    );
    // getLine at end of input
    let o = run_with(&a.p, &Config::default(), &Tuning::default(), "");
    assert_eq!(o.exit, Exit::Error("<stdin>: hGetLine: end of file".into()));
}

#[test]
fn exit_with_and_args() {
    let mut a = Asm::new();
    let m = a.fun(
        "Main.main",
        1,
        6,
        2,
        [
            std_handles(),
            io_value(gph_runtime::code::Prim::GetArgs, &[0]),
            vec![
                // The first argument (the list's head).
                Field {
                    dst: r(1),
                    reg: r(1),
                    field: 0,
                },
                put_str(1),
            ],
            io_value(gph_runtime::code::Prim::GetProgName, &[0]),
            vec![
                put_str(1),
                ConstV { dst: v(0), bits: 3 },
                BoxInt {
                    dst: r(1),
                    src: v(0),
                },
                Instr::Prim {
                    prim: gph_runtime::code::Prim::ExitWith,
                    dst: r(2),
                    args: regs(&[1, 0]),
                },
                Ret { reg: r(2) },
            ],
        ]
        .concat(),
    );
    let g = a.global(m);
    a.p.main = Some(g);
    let cfg = Config {
        args: vec!["arg1".into(), "arg2".into()],
        prog_name: "prog".into(),
        ..Config::default()
    };
    let o = run_with(&a.p, &cfg, &Tuning::default(), "");
    assert_eq!(o.out, "arg1prog");
    assert_eq!(o.exit, Exit::ExitWith(3));
}

/// A thunk shared by two threads: the spark's thread evaluates it, the
/// main thread needs it meanwhile, blocks on the black hole, and is woken
/// by the update.
#[test]
fn shared_thunk_blocks_and_wakes() {
    let mut a = Asm::new();
    let w = nfib_worker(&mut a);
    // s = nfib 22 (boxed thunk)
    let s = a.thunk(
        "Main.s$t",
        1,
        1,
        2,
        vec![
            ConstV {
                dst: v(0),
                bits: 22,
            },
            CallV {
                sc: w,
                args: vec![],
                vargs: vregs(&[0]),
                dst: v(1),
            },
            BoxInt {
                dst: r(0),
                src: v(1),
            },
            Ret { reg: r(0) },
        ],
    );
    // sp = s + 0 (the spark), evaluates s
    let sp = a.thunk(
        "Main.sp$t",
        1,
        1,
        0,
        vec![Eval { reg: r(0) }, Ret { reg: r(0) }],
    );
    a.main_printing(
        vec![
            MkThunk {
                dst: r(2),
                sc: s,
                args: regs(&[0]),
            },
            MkThunk {
                dst: r(3),
                sc: sp,
                args: regs(&[2]),
            },
            Par { reg: r(3) },
            // some work first, so that the spark's thread starts on s
            ConstV {
                dst: v(0),
                bits: 15,
            },
            CallV {
                sc: w,
                args: vec![],
                vargs: vregs(&[0]),
                dst: v(1),
            },
            Eval { reg: r(2) },
            Unbox {
                dst: v(0),
                src: r(2),
            },
            OpV {
                op: VOp::IAdd,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            BoxInt {
                dst: r(1),
                src: v(0),
            },
        ],
        4,
        2,
    );
    let tuning = Tuning {
        slice: 100,
        eager_threads: 2,
        ..Tuning::default()
    };
    for stress in [false, true] {
        let cfg = Config {
            gc_stress: stress,
            ..Config::default()
        };
        let o = run_with(&a.p, &cfg, &tuning, "");
        assert_eq!(o.exit, Exit::Success);
        assert_eq!(o.out, (57313 + 1973).to_string());
        assert_eq!(o.stats.total.threads, 2);
        assert_eq!(o.stats.total.sparks_converted, 1);
        assert_eq!(o.stats.total.blocked, 1, "{:?}", o.stats);
    }
    // On one PE with the default policy the spark is never needed: it
    // fizzles, and the result is the same.
    let o = run(&a.p);
    assert_eq!(o.out, (57313 + 1973).to_string());
    assert_eq!(o.stats.total.threads, 1);
}

#[test]
fn deadlock_of_two_threads_is_a_loop() {
    // x = y + 1; y = x + 1; spark x, evaluate y
    let mut a = Asm::new();
    let t = a.thunk(
        "Main.inc$t",
        1,
        1,
        2,
        vec![
            // busy for a while, so that both threads hold their black hole
            ConstV {
                dst: v(0),
                bits: 14,
            },
            CallV {
                sc: ScId(0),
                args: vec![],
                vargs: vregs(&[0]),
                dst: v(1),
            },
            Eval { reg: r(0) },
            Unbox {
                dst: v(0),
                src: r(0),
            },
            OpV {
                op: VOp::IAdd,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            BoxInt {
                dst: r(0),
                src: v(0),
            },
            Ret { reg: r(0) },
        ],
    );
    let mut b = Asm::new();
    let w = nfib_worker(&mut b);
    assert_eq!(w, ScId(0));
    b.p.scs.push(a.p.scs[t.0 as usize].clone());
    let t = ScId(b.p.scs.len() as u32 - 1);
    b.main_printing(
        vec![
            MkThunk {
                dst: r(2),
                sc: t,
                args: regs(&[0]),
            },
            MkThunk {
                dst: r(3),
                sc: t,
                args: regs(&[2]),
            },
            Fill {
                node: r(2),
                field: 0,
                src: r(3),
            },
            Par { reg: r(2) },
            Move {
                dst: r(1),
                src: r(3),
            },
        ],
        4,
        0,
    );
    let tuning = Tuning {
        slice: 50,
        eager_threads: 2,
        ..Tuning::default()
    };
    let o = run_with(&b.p, &Config::default(), &tuning, "");
    assert_eq!(o.exit, Exit::Error("<<loop>>".into()));
    assert_eq!(run(&b.p).exit, Exit::Error("<<loop>>".into()));
}

#[test]
fn interrupt_stops_a_run() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let flag = Arc::new(AtomicBool::new(true));
    let cfg = Config {
        interrupt: Some(flag),
        ..Config::default()
    };
    let o = run_with(&nfib_program(30), &cfg, &Tuning::default(), "");
    assert_eq!(o.exit, Exit::Error("interrupted".into()));
}

#[test]
fn invalid_code_is_rejected_at_load() {
    let mut a = Asm::new();
    a.main_printing(
        vec![Move {
            dst: r(40),
            src: r(0),
        }],
        4,
        0,
    );
    match run(&a.p).exit {
        Exit::Error(e) => assert!(e.starts_with("invalid code"), "{e}"),
        e => panic!("{e:?}"),
    }
}
