//! A tiny assembler for hand-built `code::Program`s, and a runner that
//! captures stdout.
#![allow(dead_code)]

pub use gph_runtime::code::asm::Item::{self, At, To, I};
pub use gph_runtime::code::*;
pub use gph_runtime::{run_main_with, Config, Exit, Stats, Tuning};
pub use Instr::*;

pub fn r(n: u16) -> Reg {
    Reg(n)
}
pub fn v(n: u16) -> VReg {
    VReg(n)
}
pub fn regs(ns: &[u16]) -> Vec<Reg> {
    ns.iter().map(|n| Reg(*n)).collect()
}
pub fn vregs(ns: &[u16]) -> Vec<VReg> {
    ns.iter().map(|n| VReg(*n)).collect()
}

pub struct Asm {
    pub p: Program,
}

impl Default for Asm {
    fn default() -> Self {
        Self::new()
    }
}

impl Asm {
    pub fn new() -> Asm {
        let mut p = Program::default();
        for (name, tag, arity, siblings) in [
            ("()", 0, 0, 1),
            ("[]", 0, 0, 2),
            (":", 1, 2, 2),
            ("False", 0, 0, 2),
            ("True", 1, 0, 2),
            ("IORes", 0, 1, 1),
        ] {
            p.cons.push(ConInfo {
                name: name.into(),
                tag,
                arity,
                siblings,
            });
        }
        Asm { p }
    }

    /// A supercombinator to be defined later (for recursion).
    pub fn declare(
        &mut self,
        name: &str,
        kind: ScKind,
        arity: u16,
        varity: u16,
        returns: RetKind,
    ) -> ScId {
        self.p.scs.push(Supercomb {
            name: name.into(),
            kind,
            arity,
            varity,
            nregs: arity,
            nvregs: varity,
            returns,
            code: vec![],
        });
        ScId(self.p.scs.len() as u32 - 1)
    }

    /// `define` with code whose jumps name labels.
    pub fn define_at(&mut self, sc: ScId, nregs: u16, nvregs: u16, items: Vec<Item<&'static str>>) {
        self.define(sc, nregs, nvregs, gph_runtime::code::asm::assemble(items));
    }

    pub fn define(&mut self, sc: ScId, nregs: u16, nvregs: u16, code: Vec<Instr>) {
        let s = &mut self.p.scs[sc.0 as usize];
        s.nregs = nregs;
        s.nvregs = nvregs;
        s.code = code;
    }

    pub fn fun(
        &mut self,
        name: &str,
        arity: u16,
        nregs: u16,
        nvregs: u16,
        code: Vec<Instr>,
    ) -> ScId {
        let s = self.declare(name, ScKind::Fun, arity, 0, RetKind::Boxed);
        self.define(s, nregs, nvregs, code);
        s
    }

    pub fn thunk(
        &mut self,
        name: &str,
        arity: u16,
        nregs: u16,
        nvregs: u16,
        code: Vec<Instr>,
    ) -> ScId {
        let s = self.declare(name, ScKind::Thunk, arity, 0, RetKind::Boxed);
        self.define(s, nregs, nvregs, code);
        s
    }

    pub fn global(&mut self, sc: ScId) -> GlobalId {
        let g = match self.p.scs[sc.0 as usize].kind {
            ScKind::Caf => gph_runtime::code::Global::Caf(sc),
            _ => gph_runtime::code::Global::Fun(sc),
        };
        self.p.globals.push(g);
        self.p
            .global_names
            .push(self.p.scs[sc.0 as usize].name.clone());
        GlobalId(self.p.globals.len() as u32 - 1)
    }

    pub fn con(&mut self, name: &str, tag: u32, arity: u32, siblings: u32) -> ConId {
        self.p.cons.push(ConInfo {
            name: name.into(),
            tag,
            arity,
            siblings,
        });
        ConId(self.p.cons.len() as u32 - 1)
    }

    pub fn string(&mut self, s: &str) -> u32 {
        self.p.strings.push(s.into());
        self.p.strings.len() as u32 - 1
    }

    /// `main w = putStr (show <Int in r1 after pre>) w`; pre may use
    /// r1.. and v0.. (at least 4 pointer registers are given).
    pub fn main_printing(&mut self, pre: Vec<Instr>, nregs: u16, nvregs: u16) {
        let mut code = pre;
        code.push(Eval { reg: r(1) });
        code.push(Instr::Prim {
            prim: gph_runtime::code::Prim::IntShow,
            dst: r(2),
            args: regs(&[1]),
        });
        let (h, vh) = (nregs.max(4), nvregs);
        code.push(ConstV {
            dst: VReg(vh),
            bits: 1,
        });
        code.push(BoxInt {
            dst: r(h),
            src: VReg(vh),
        });
        code.push(Instr::Prim {
            prim: gph_runtime::code::Prim::PutStr,
            dst: r(3),
            args: regs(&[h, 2, 0]),
        });
        code.push(Ret { reg: r(3) });
        let m = self.fun("Main.main", 1, h + 1, vh + 1, code);
        let g = self.global(m);
        self.p.main = Some(g);
    }
}

pub struct Outcome {
    pub exit: Exit,
    pub stats: Stats,
    pub out: String,
}

pub fn run_with(p: &Program, config: &Config, tuning: &Tuning, stdin: &str) -> Outcome {
    let mut out: Vec<u8> = Vec::new();
    let mut input = stdin.as_bytes();
    let (exit, stats) = run_main_with(p, config, tuning, &mut out, false, &mut input);
    Outcome {
        exit,
        stats,
        out: String::from_utf8(out).unwrap(),
    }
}

pub fn run(p: &Program) -> Outcome {
    run_with(p, &Config::default(), &Tuning::default(), "")
}

/// Runs normally and in GC-stress mode; both must agree.
pub fn run_both(p: &Program) -> Outcome {
    let a = run(p);
    let cfg = Config {
        gc_stress: true,
        ..Config::default()
    };
    let b = run_with(p, &cfg, &Tuning::default(), "");
    assert_eq!(a.exit, b.exit, "GC stress changed the exit");
    assert_eq!(a.out, b.out, "GC stress changed the output");
    if a.stats.total.allocated_bytes > 4096 {
        assert!(b.stats.total.gcs > 10, "{:?}", b.stats);
    }
    a
}

pub fn int(i: i64) -> u64 {
    i as u64
}

// ------------------------------------------------------------ building blocks

/// nfib$w :: Int# -> Int#, the unboxed worker.
pub fn nfib_worker(a: &mut Asm) -> ScId {
    let w = a.declare("Main.nfib$w", ScKind::Fun, 0, 1, RetKind::Int);
    a.define_at(
        w,
        0,
        5,
        vec![
            I(ConstV { dst: v(1), bits: 2 }),
            To(
                BranchCmp {
                    cmp: Cmp::ILt,
                    a: v(0),
                    b: v(1),
                    target: 0,
                },
                vec!["small"],
            ),
            I(ConstV { dst: v(1), bits: 1 }),
            I(OpV {
                op: VOp::ISub,
                dst: v(2),
                a: v(0),
                b: v(1),
            }),
            I(CallV {
                sc: w,
                args: vec![],
                vargs: vregs(&[2]),
                dst: v(3),
            }),
            I(ConstV { dst: v(1), bits: 2 }),
            I(OpV {
                op: VOp::ISub,
                dst: v(2),
                a: v(0),
                b: v(1),
            }),
            I(CallV {
                sc: w,
                args: vec![],
                vargs: vregs(&[2]),
                dst: v(4),
            }),
            I(OpV {
                op: VOp::IAdd,
                dst: v(3),
                a: v(3),
                b: v(4),
            }),
            I(ConstV { dst: v(1), bits: 1 }),
            I(OpV {
                op: VOp::IAdd,
                dst: v(3),
                a: v(3),
                b: v(1),
            }),
            I(RetV { reg: v(3) }),
            At("small"),
            I(ConstV { dst: v(3), bits: 1 }),
            I(RetV { reg: v(3) }),
        ],
    );
    w
}

/// nfib :: Int -> Int, boxed, with the two recursive calls as thunks.
pub fn nfib_boxed(a: &mut Asm) -> ScId {
    let f = a.declare("Main.nfib", ScKind::Fun, 1, 0, RetKind::Boxed);
    let t1 = a.thunk(
        "Main.nfib$t1",
        1,
        2,
        2,
        vec![
            Unbox {
                dst: v(0),
                src: r(0),
            },
            ConstV { dst: v(1), bits: 1 },
            OpV {
                op: VOp::ISub,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            BoxInt {
                dst: r(1),
                src: v(0),
            },
            TailCall {
                sc: f,
                args: regs(&[1]),
                vargs: vec![],
            },
        ],
    );
    let t2 = a.thunk(
        "Main.nfib$t2",
        1,
        2,
        2,
        vec![
            Unbox {
                dst: v(0),
                src: r(0),
            },
            ConstV { dst: v(1), bits: 2 },
            OpV {
                op: VOp::ISub,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            BoxInt {
                dst: r(1),
                src: v(0),
            },
            TailCall {
                sc: f,
                args: regs(&[1]),
                vargs: vec![],
            },
        ],
    );
    a.define_at(
        f,
        4,
        4,
        vec![
            I(Eval { reg: r(0) }),
            I(Unbox {
                dst: v(0),
                src: r(0),
            }),
            I(ConstV { dst: v(1), bits: 2 }),
            To(
                BranchCmp {
                    cmp: Cmp::ILt,
                    a: v(0),
                    b: v(1),
                    target: 0,
                },
                vec!["small"],
            ),
            I(MkThunk {
                dst: r(1),
                sc: t1,
                args: regs(&[0]),
            }),
            I(MkThunk {
                dst: r(2),
                sc: t2,
                args: regs(&[0]),
            }),
            I(Eval { reg: r(1) }),
            I(Eval { reg: r(2) }),
            I(Unbox {
                dst: v(2),
                src: r(1),
            }),
            I(Unbox {
                dst: v(3),
                src: r(2),
            }),
            I(OpV {
                op: VOp::IAdd,
                dst: v(2),
                a: v(2),
                b: v(3),
            }),
            I(ConstV { dst: v(1), bits: 1 }),
            I(OpV {
                op: VOp::IAdd,
                dst: v(2),
                a: v(2),
                b: v(1),
            }),
            I(BoxInt {
                dst: r(3),
                src: v(2),
            }),
            I(Ret { reg: r(3) }),
            At("small"),
            I(ConstV { dst: v(2), bits: 1 }),
            I(BoxInt {
                dst: r(3),
                src: v(2),
            }),
            I(Ret { reg: r(3) }),
        ],
    );
    f
}

/// main = print (nfib n), with nfib's unboxed worker.
pub fn nfib_program(n: i64) -> Program {
    let mut a = Asm::new();
    let w = nfib_worker(&mut a);
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
    a.p
}

/// main = print (nfib n), with the boxed nfib that builds thunks.
pub fn nfib_boxed_program(n: i64) -> Program {
    let mut a = Asm::new();
    let f = nfib_boxed(&mut a);
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
    a.p
}

/// upto :: Int -> Int -> [Int] (lazy enumFromTo on boxed, evaluated Ints).
pub fn upto(a: &mut Asm) -> ScId {
    let f = a.declare("Main.upto", ScKind::Fun, 2, 0, RetKind::Boxed);
    let t = a.thunk(
        "Main.upto$t",
        2,
        3,
        2,
        vec![
            Unbox {
                dst: v(0),
                src: r(0),
            },
            ConstV { dst: v(1), bits: 1 },
            OpV {
                op: VOp::IAdd,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            BoxInt {
                dst: r(2),
                src: v(0),
            },
            TailCall {
                sc: f,
                args: regs(&[2, 1]),
                vargs: vec![],
            },
        ],
    );
    a.define_at(
        f,
        4,
        2,
        vec![
            I(Unbox {
                dst: v(0),
                src: r(0),
            }),
            I(Unbox {
                dst: v(1),
                src: r(1),
            }),
            To(
                BranchCmp {
                    cmp: Cmp::IGt,
                    a: v(0),
                    b: v(1),
                    target: 0,
                },
                vec!["empty"],
            ),
            I(MkThunk {
                dst: r(2),
                sc: t,
                args: regs(&[0, 1]),
            }),
            I(MkCon {
                dst: r(3),
                con: CONS,
                args: regs(&[0, 2]),
            }),
            I(Ret { reg: r(3) }),
            At("empty"),
            I(MkCon {
                dst: r(3),
                con: NIL,
                args: vec![],
            }),
            I(Ret { reg: r(3) }),
        ],
    );
    f
}

/// from :: Int -> [Int], infinite.
pub fn from(a: &mut Asm) -> ScId {
    let f = a.declare("Main.from", ScKind::Fun, 1, 0, RetKind::Boxed);
    let t = a.thunk(
        "Main.from$t",
        1,
        2,
        2,
        vec![
            Eval { reg: r(0) },
            Unbox {
                dst: v(0),
                src: r(0),
            },
            ConstV { dst: v(1), bits: 1 },
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
            TailCall {
                sc: f,
                args: regs(&[1]),
                vargs: vec![],
            },
        ],
    );
    a.define(
        f,
        3,
        0,
        vec![
            MkThunk {
                dst: r(1),
                sc: t,
                args: regs(&[0]),
            },
            MkCon {
                dst: r(2),
                con: CONS,
                args: regs(&[0, 1]),
            },
            Ret { reg: r(2) },
        ],
    );
    f
}

/// take :: Int -> [a] -> [a] (lazy).
pub fn take(a: &mut Asm) -> ScId {
    let f = a.declare("Main.take", ScKind::Fun, 2, 0, RetKind::Boxed);
    let t = a.thunk(
        "Main.take$t",
        2,
        3,
        2,
        vec![
            Unbox {
                dst: v(0),
                src: r(0),
            },
            ConstV { dst: v(1), bits: 1 },
            OpV {
                op: VOp::ISub,
                dst: v(0),
                a: v(0),
                b: v(1),
            },
            BoxInt {
                dst: r(2),
                src: v(0),
            },
            TailCall {
                sc: f,
                args: regs(&[2, 1]),
                vargs: vec![],
            },
        ],
    );
    a.define_at(
        f,
        6,
        2,
        vec![
            I(Eval { reg: r(0) }),
            I(Unbox {
                dst: v(0),
                src: r(0),
            }),
            I(ConstV { dst: v(1), bits: 0 }),
            To(
                BranchCmp {
                    cmp: Cmp::ILe,
                    a: v(0),
                    b: v(1),
                    target: 0,
                },
                vec!["nil"],
            ),
            I(Eval { reg: r(1) }),
            To(
                Switch {
                    reg: r(1),
                    targets: vec![],
                },
                vec!["nil", "cons"],
            ),
            At("cons"),
            I(Fields {
                reg: r(1),
                dst: r(2),
                n: 2,
            }),
            I(MkThunk {
                dst: r(4),
                sc: t,
                args: regs(&[0, 3]),
            }),
            To(Jump { target: 0 }, vec!["build"]),
            At("nil"),
            I(MkCon {
                dst: r(5),
                con: NIL,
                args: vec![],
            }),
            I(Ret { reg: r(5) }),
            At("build"),
            I(MkCon {
                dst: r(5),
                con: CONS,
                args: regs(&[2, 4]),
            }),
            I(Ret { reg: r(5) }),
        ],
    );
    f
}

/// sum$w :: [Int] -> Int# -> Int#, tail recursive with an unboxed accumulator.
pub fn sum_worker(a: &mut Asm) -> ScId {
    let f = a.declare("Main.sum$w", ScKind::Fun, 1, 1, RetKind::Int);
    a.define_at(
        f,
        3,
        2,
        vec![
            I(Eval { reg: r(0) }),
            To(
                Switch {
                    reg: r(0),
                    targets: vec![],
                },
                vec!["nil", "cons"],
            ),
            At("nil"),
            I(RetV { reg: v(0) }),
            At("cons"),
            I(Fields {
                reg: r(0),
                dst: r(1),
                n: 2,
            }),
            I(Eval { reg: r(1) }),
            I(Unbox {
                dst: v(1),
                src: r(1),
            }),
            I(OpV {
                op: VOp::IAdd,
                dst: v(0),
                a: v(0),
                b: v(1),
            }),
            I(TailCall {
                sc: f,
                args: regs(&[2]),
                vargs: vregs(&[0]),
            }),
        ],
    );
    f
}

/// length$w :: [a] -> Int# -> Int#.
pub fn length_worker(a: &mut Asm) -> ScId {
    let f = a.declare("Main.length$w", ScKind::Fun, 1, 1, RetKind::Int);
    a.define_at(
        f,
        3,
        2,
        vec![
            I(Eval { reg: r(0) }),
            To(
                Switch {
                    reg: r(0),
                    targets: vec![],
                },
                vec!["nil", "cons"],
            ),
            At("nil"),
            I(RetV { reg: v(0) }),
            At("cons"),
            I(Field {
                dst: r(1),
                reg: r(0),
                field: 1,
            }),
            I(ConstV { dst: v(1), bits: 1 }),
            I(OpV {
                op: VOp::IAdd,
                dst: v(0),
                a: v(0),
                b: v(1),
            }),
            I(TailCall {
                sc: f,
                args: regs(&[1]),
                vargs: vregs(&[0]),
            }),
        ],
    );
    f
}

/// forceList :: [a] -> [a]: evaluates every cell and element.
pub fn force_list(a: &mut Asm) -> ScId {
    let f = a.declare("Main.forceList", ScKind::Fun, 1, 0, RetKind::Boxed);
    a.define_at(
        f,
        4,
        0,
        vec![
            I(Eval { reg: r(0) }),
            To(
                Switch {
                    reg: r(0),
                    targets: vec![],
                },
                vec!["nil", "cons"],
            ),
            At("nil"),
            I(Ret { reg: r(0) }),
            At("cons"),
            I(Fields {
                reg: r(0),
                dst: r(1),
                n: 2,
            }),
            I(Eval { reg: r(1) }),
            I(Call {
                sc: f,
                args: regs(&[2]),
                vargs: vec![],
                dst: r(3),
            }),
            I(Ret { reg: r(0) }),
        ],
    );
    f
}
