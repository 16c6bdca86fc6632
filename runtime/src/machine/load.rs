//! Loading: `code::Program` (the code generator's contract) pre-decoded
//! into the compact form the reducer runs, checked once so that the hot
//! loop can index registers without bounds checks, and the static area of
//! the heap laid out.
//!
//! All supercombinators' code is one flat array of 16-byte [`Op`]s; jump
//! targets and return addresses are indices into it. Register lists live
//! in a shared pool (`args`) and jump tables in `targets`.

use crate::code::{self, Cmp, Instr, Prim, ScKind, VOp, VUnOp};
use crate::machine::heap::{header, kind, Ptr};

#[derive(Clone, Copy, Debug)]
pub enum Op {
    Move {
        dst: u16,
        src: u16,
    },
    MoveV {
        dst: u16,
        src: u16,
    },
    /// A static node: a FUN, a nullary constructor.
    Node {
        dst: u16,
        node: u32,
    },
    Caf {
        dst: u16,
        caf: u32,
    },
    ConstV {
        dst: u16,
        bits: u64,
    },
    Integer {
        dst: u16,
        idx: u32,
    },
    Str {
        dst: u16,
        idx: u32,
    },
    BoxInt {
        dst: u16,
        src: u16,
    },
    BoxDouble {
        dst: u16,
        src: u16,
    },
    BoxChar {
        dst: u16,
        src: u16,
    },
    Unbox {
        dst: u16,
        src: u16,
    },
    MkCon {
        dst: u16,
        n: u16,
        con: u32,
        args: u32,
    },
    MkThunk {
        dst: u16,
        n: u16,
        sc: u32,
        args: u32,
    },
    MkPap {
        dst: u16,
        n: u16,
        sc: u32,
        args: u32,
    },
    Fill {
        node: u16,
        field: u16,
        src: u16,
    },
    Eval {
        reg: u16,
    },
    /// `Eval reg` followed by `Switch reg` (kept at the next pc, where
    /// an entered thunk returns): a value is switched on at once.
    EvalSwitch {
        reg: u16,
        n: u16,
        targets: u32,
    },
    /// Two `Field`s of one node (the second kept at the next pc): a
    /// constructor's fields taken apart into registers that are not in a
    /// row, which `Fields` needs.
    Field2 {
        reg: u16,
        dst: u16,
        field: u16,
        dst2: u16,
        field2: u16,
    },
    /// `Move` followed by a `Jump` (kept at the next pc): a loop's
    /// back edge.
    MoveJump {
        dst: u16,
        src: u16,
        target: u32,
    },
    /// `MkCon dst` followed by `Ret dst` (kept at the next pc).
    MkConRet {
        dst: u16,
        n: u16,
        con: u32,
        args: u32,
    },
    /// `Eval src` followed by `Unbox dst src` (kept at the next pc).
    EvalUnbox {
        dst: u16,
        src: u16,
    },
    Switch {
        reg: u16,
        n: u16,
        targets: u32,
    },
    Fields {
        reg: u16,
        dst: u16,
        n: u16,
    },
    Field {
        dst: u16,
        reg: u16,
        field: u16,
    },
    Jump {
        target: u32,
    },
    BrILt {
        a: u16,
        b: u16,
        target: u32,
    },
    BrILe {
        a: u16,
        b: u16,
        target: u32,
    },
    BrIGt {
        a: u16,
        b: u16,
        target: u32,
    },
    BrIGe {
        a: u16,
        b: u16,
        target: u32,
    },
    BrIEq {
        a: u16,
        b: u16,
        target: u32,
    },
    BrINe {
        a: u16,
        b: u16,
        target: u32,
    },
    Br {
        cmp: Cmp,
        a: u16,
        b: u16,
        target: u32,
    },
    BrEqConst {
        a: u16,
        target: u32,
        bits: u64,
    },
    IAdd {
        dst: u16,
        a: u16,
        b: u16,
    },
    ISub {
        dst: u16,
        a: u16,
        b: u16,
    },
    IMul {
        dst: u16,
        a: u16,
        b: u16,
    },
    OpV {
        op: VOp,
        dst: u16,
        a: u16,
        b: u16,
    },
    UnOpV {
        op: VUnOp,
        dst: u16,
        a: u16,
    },
    CmpBool {
        cmp: Cmp,
        dst: u16,
        a: u16,
        b: u16,
    },
    Prim {
        prim: Prim,
        dst: u16,
        n: u16,
        args: u32,
    },
    /// `args` indexes the pool: the boxed arguments, then the unboxed ones
    /// (their numbers are the callee's arity and varity).
    Call {
        dst: u16,
        sc: u32,
        args: u32,
    },
    CallV {
        dst: u16,
        sc: u32,
        args: u32,
    },
    TailCall {
        sc: u32,
        args: u32,
    },
    /// A tail call of the supercombinator the op is in (a loop): its
    /// window stays where it is, the same size.
    Loop {
        sc: u32,
        args: u32,
    },
    Apply {
        f: u16,
        dst: u16,
        n: u16,
        args: u32,
    },
    TailApply {
        f: u16,
        n: u16,
        args: u32,
    },
    Ret {
        reg: u16,
    },
    RetV {
        reg: u16,
    },
    Enter {
        reg: u16,
    },
    Par {
        reg: u16,
    },
    // Superinstructions (made at load time from `ConstV k` followed by an
    // op that reads k; they write k too, then skip the next op, which
    // stays in place for jumps that target it).
    AddK {
        dst: u16,
        a: u16,
        k: u16,
        imm: i32,
    },
    SubK {
        dst: u16,
        a: u16,
        k: u16,
        imm: i32,
    },
    BrILtK {
        a: u16,
        k: u16,
        imm: i32,
        target: u32,
    },
    BrILeK {
        a: u16,
        k: u16,
        imm: i32,
        target: u32,
    },
    BrIGtK {
        a: u16,
        k: u16,
        imm: i32,
        target: u32,
    },
    BrIGeK {
        a: u16,
        k: u16,
        imm: i32,
        target: u32,
    },
    BrIEqK {
        a: u16,
        k: u16,
        imm: i32,
        target: u32,
    },
    BrINeK {
        a: u16,
        k: u16,
        imm: i32,
        target: u32,
    },
    /// Internal: the thread ends with this value.
    Halt {
        reg: u16,
    },
    /// Internal: control ran past the end of a supercombinator.
    FellOff {
        sc: u32,
    },
}

#[derive(Clone, Copy, Debug)]
pub struct ScInfo {
    pub entry: u32,
    pub arity: u16,
    pub varity: u16,
    pub nregs: u16,
    pub nvregs: u16,
    pub kind: ScKind,
}

/// The static area's fixed part: small boxes shared by every program.
pub const INT_MIN_STATIC: i64 = -16;
pub const INT_MAX_STATIC: i64 = 256;
pub const CHAR_STATIC: u32 = 256;

pub struct Loaded<'p> {
    pub prog: &'p code::Program,
    pub ops: Vec<Op>,
    pub args: Vec<u16>,
    pub targets: Vec<u32>,
    pub scs: Vec<ScInfo>,
    pub con_tag: Vec<u32>,
    pub con_arity: Vec<u32>,
    /// The static node of each nullary constructor (else u32::MAX).
    pub con_node: Vec<u32>,
    /// The static FUN node of each supercombinator of kind Fun.
    pub fun_node: Vec<u32>,
    /// For each global: its CAF slot if it is a CAF.
    pub caf_of_global: Vec<Option<u32>>,
    /// The supercombinator of each CAF slot.
    pub caf_sc: Vec<u32>,
    pub statics: Vec<u64>,
    pub int_base: u32,
    pub char_base: u32,
    pub main_entry: u32,
    /// The entry of an Eden process's first thread: registers `f`,
    /// `input`, the world token; runs `f input world`.
    pub process_entry: u32,
    pub spark_entry: u32,
    /// Where a thread resumes when an exception unwinds it to a `catchIO`
    /// handler: registers handler, strings, value, world token; tail-applies
    /// the handler to the other three (its result returns to the frames
    /// below, as the action's would have).
    pub catch_entry: u32,
    /// The dummy pointer scratch registers start with (the unit node).
    pub dummy: Ptr,
    pub false_node: Ptr,
    pub true_node: Ptr,
    pub nil_node: Ptr,
    pub unit_node: Ptr,
    /// For a return point (a frame's pc): the index in `dead_regs` of the
    /// registers dead there (a count, then the registers), or u32::MAX.
    pub dead_at: Vec<u32>,
    pub dead_regs: Vec<u16>,
    /// For each supercombinator: the field a selector thunk picks from
    /// its only free variable, or [`NOT_SELECTOR`] (see [`selector_field`]).
    pub selectors: Vec<u16>,
}

/// No field: the supercombinator is not a selector thunk.
pub const NOT_SELECTOR: u16 = u16::MAX;

/// A thunk whose code is `eval r0; r1 := r0.i; enter r1` (what a lazy
/// pattern binding such as `(ys, zs) = splitAt n xs` compiles to for each
/// variable) selects field i of its free variable. Once that is evaluated,
/// the garbage collector and the packer replace the thunk by the field, as
/// GHC's collector does: otherwise the thunk keeps the whole tuple alive
/// (Wadler's space leak), and another PE would have to fetch it to learn
/// what is already known here.
pub fn selector_field(s: &code::Supercomb) -> u16 {
    match (s.kind, s.arity, &s.code[..]) {
        (
            ScKind::Thunk,
            1,
            [Instr::Eval { reg: code::Reg(0) }, Instr::Field {
                dst,
                reg: code::Reg(0),
                field,
            }, Instr::Enter { reg }],
        ) if dst == reg && *field != NOT_SELECTOR => *field,
        _ => NOT_SELECTOR,
    }
}

impl<'p> Loaded<'p> {
    #[inline(always)]
    pub fn int_box(&self, i: i64) -> Option<Ptr> {
        if (INT_MIN_STATIC..=INT_MAX_STATIC).contains(&i) {
            Some(Ptr(self.int_base + 2 * (i - INT_MIN_STATIC) as u32))
        } else {
            None
        }
    }
    #[inline(always)]
    pub fn char_box(&self, c: u32) -> Option<Ptr> {
        if c < CHAR_STATIC {
            Some(Ptr(self.char_base + 2 * c))
        } else {
            None
        }
    }
}

/// Entry code that applies register 0 (evaluated) to registers 1..=n and
/// ends the thread with the result: the main thread's `main world`, an
/// Eden process's `f input world`.
fn apply_entry(l: &mut Loaded, n: u16) -> u32 {
    let entry = l.ops.len() as u32;
    let args = l.args.len() as u32;
    l.args.extend(1..=n);
    let dst = n + 1;
    l.ops.push(Op::Eval { reg: 0 });
    l.ops.push(Op::Apply { f: 0, dst, n, args });
    l.ops.push(Op::Halt { reg: dst });
    entry
}

pub fn load(prog: &code::Program) -> Result<Loaded<'_>, String> {
    let bad = |what: String| Err(format!("invalid code: {what}"));
    // Arities, kinds and return conventions are the validator's; decoding
    // below only converts (and bounds-checks what it indexes).
    if let Err(errors) = crate::validate::validate(prog) {
        return bad(errors.join("; "));
    }
    // ----- the static area
    let mut statics: Vec<u64> = Vec::new();
    let mut con_node = vec![u32::MAX; prog.cons.len()];
    for (i, c) in prog.cons.iter().enumerate() {
        if c.arity == 0 {
            con_node[i] = statics.len() as u32;
            // one padding word: every node has at least one payload word
            statics.push(header(kind::CON, 0, i as u32));
            statics.push(0);
        }
    }
    let mut fun_node = vec![u32::MAX; prog.scs.len()];
    for (i, s) in prog.scs.iter().enumerate() {
        if s.kind == ScKind::Fun {
            fun_node[i] = statics.len() as u32;
            statics.push(header(kind::FUN, 0, i as u32));
            statics.push(0);
        }
    }
    let int_base = statics.len() as u32;
    for i in INT_MIN_STATIC..=INT_MAX_STATIC {
        statics.push(header(kind::INT, 1, 0));
        statics.push(i as u64);
    }
    let char_base = statics.len() as u32;
    for c in 0..CHAR_STATIC {
        statics.push(header(kind::CHAR, 1, 0));
        statics.push(c as u64);
    }

    // ----- globals
    let mut caf_of_global = Vec::with_capacity(prog.globals.len());
    let mut caf_sc = Vec::new();
    for g in &prog.globals {
        match g {
            code::Global::Fun(sc) => {
                if prog.scs.get(sc.0 as usize).map(|s| s.kind) != Some(ScKind::Fun) {
                    return bad(format!("global function {} is not a Fun", sc.0));
                }
                caf_of_global.push(None);
            }
            code::Global::Caf(sc) => {
                match prog.scs.get(sc.0 as usize) {
                    Some(s) if s.kind == ScKind::Caf && s.arity == 0 && s.varity == 0 => {}
                    _ => return bad(format!("global CAF {} is not a Caf of arity 0", sc.0)),
                }
                caf_of_global.push(Some(caf_sc.len() as u32));
                caf_sc.push(sc.0);
            }
        }
    }

    // ----- supercombinators
    let mut scs = Vec::with_capacity(prog.scs.len());
    let mut entry = 0u32;
    for s in &prog.scs {
        if s.nregs < s.arity || s.nvregs < s.varity {
            return bad(format!("{}: fewer registers than parameters", s.name));
        }
        if s.kind != ScKind::Fun && s.varity != 0 {
            return bad(format!(
                "{}: a thunk or CAF with unboxed parameters",
                s.name
            ));
        }
        scs.push(ScInfo {
            entry,
            arity: s.arity,
            varity: s.varity,
            nregs: s.nregs,
            nvregs: s.nvregs,
            kind: s.kind,
        });
        entry += s.code.len() as u32 + 1;
    }

    let mut l = Loaded {
        prog,
        ops: Vec::with_capacity(entry as usize + 8),
        args: Vec::new(),
        targets: Vec::new(),
        scs,
        con_tag: prog.cons.iter().map(|c| c.tag).collect(),
        con_arity: prog.cons.iter().map(|c| c.arity).collect(),
        con_node,
        fun_node,
        caf_of_global,
        caf_sc,
        statics,
        int_base,
        char_base,
        main_entry: 0,
        process_entry: 0,
        spark_entry: 0,
        catch_entry: 0,
        dummy: Ptr(0),
        false_node: Ptr(0),
        true_node: Ptr(0),
        nil_node: Ptr(0),
        unit_node: Ptr(0),
        dead_at: Vec::new(),
        dead_regs: Vec::new(),
        selectors: prog.scs.iter().map(selector_field).collect(),
    };
    l.unit_node = Ptr(l.con_node[code::UNIT.0 as usize]);
    l.dummy = l.unit_node;
    l.nil_node = Ptr(l.con_node[code::NIL.0 as usize]);
    l.false_node = Ptr(l.con_node[code::FALSE.0 as usize]);
    l.true_node = Ptr(l.con_node[code::TRUE.0 as usize]);

    for (i, s) in prog.scs.iter().enumerate() {
        for (pc, ins) in s.code.iter().enumerate() {
            match decode(&mut l, s, i as u32, ins) {
                Ok(op) => l.ops.push(op),
                Err(e) => return bad(format!("{} at {pc}: {e}", s.name)),
            }
        }
        superinstructions(&mut l.ops[l.scs[i].entry as usize..]);
        loops(&mut l.ops[l.scs[i].entry as usize..], i as u32);
        l.ops.push(Op::FellOff { sc: i as u32 });
    }
    // The synthetic entry code of the main thread and of spark threads.
    l.main_entry = apply_entry(&mut l, 1);
    l.spark_entry = l.ops.len() as u32;
    l.ops.push(Op::Eval { reg: 0 });
    l.ops.push(Op::Halt { reg: 0 });
    l.process_entry = apply_entry(&mut l, 2);
    l.catch_entry = l.ops.len() as u32;
    let args = l.args.len() as u32;
    l.args.extend([1, 2, 3]);
    l.ops.push(Op::Eval { reg: 0 });
    l.ops.push(Op::TailApply { f: 0, n: 3, args });
    compute_liveness(&mut l);
    Ok(l)
}

fn decode(l: &mut Loaded, s: &code::Supercomb, _sc: u32, ins: &Instr) -> Result<Op, String> {
    let prog = l.prog;
    let base = l.scs[_sc as usize].entry;
    let r = |x: code::Reg| -> Result<u16, String> {
        if x.0 < s.nregs {
            Ok(x.0)
        } else {
            Err(format!("register r{} out of range", x.0))
        }
    };
    let v = |x: code::VReg| -> Result<u16, String> {
        if x.0 < s.nvregs {
            Ok(x.0)
        } else {
            Err(format!("value register v{} out of range", x.0))
        }
    };
    let t = |pc: code::Pc| -> Result<u32, String> {
        if (pc as usize) < s.code.len() {
            Ok(base + pc)
        } else {
            Err(format!("jump target {pc} out of range"))
        }
    };
    let pool = |l: &mut Loaded, rs: &[code::Reg], vs: &[code::VReg]| -> Result<u32, String> {
        let start = l.args.len() as u32;
        for x in rs {
            l.args.push(r(*x)?);
        }
        for x in vs {
            l.args.push(v(*x)?);
        }
        Ok(start)
    };
    let n16 = |n: usize| -> Result<u16, String> {
        u16::try_from(n).map_err(|_| "too many arguments".to_string())
    };
    use Instr as I;
    Ok(match ins {
        I::Move { dst, src } => Op::Move {
            dst: r(*dst)?,
            src: r(*src)?,
        },
        I::MoveV { dst, src } => Op::MoveV {
            dst: v(*dst)?,
            src: v(*src)?,
        },
        I::Global { dst, g } => {
            let gi = g.0 as usize;
            match prog.globals.get(gi) {
                None => return Err(format!("no global {gi}")),
                Some(code::Global::Fun(sc)) => Op::Node {
                    dst: r(*dst)?,
                    node: l.fun_node[sc.0 as usize],
                },
                Some(code::Global::Caf(_)) => Op::Caf {
                    dst: r(*dst)?,
                    caf: l.caf_of_global[gi].unwrap(),
                },
            }
        }
        I::ConstV { dst, bits } => Op::ConstV {
            dst: v(*dst)?,
            bits: *bits,
        },
        I::Integer { dst, idx } => {
            if *idx as usize >= prog.integers.len() {
                return Err(format!("no integer constant {idx}"));
            }
            Op::Integer {
                dst: r(*dst)?,
                idx: *idx,
            }
        }
        I::Str { dst, idx } => {
            if *idx as usize >= prog.strings.len() {
                return Err(format!("no string constant {idx}"));
            }
            Op::Str {
                dst: r(*dst)?,
                idx: *idx,
            }
        }
        I::BoxInt { dst, src } => Op::BoxInt {
            dst: r(*dst)?,
            src: v(*src)?,
        },
        I::BoxDouble { dst, src } => Op::BoxDouble {
            dst: r(*dst)?,
            src: v(*src)?,
        },
        I::BoxChar { dst, src } => Op::BoxChar {
            dst: r(*dst)?,
            src: v(*src)?,
        },
        I::Unbox { dst, src } => Op::Unbox {
            dst: v(*dst)?,
            src: r(*src)?,
        },
        I::MkCon { dst, con, args } => {
            if args.is_empty() {
                Op::Node {
                    dst: r(*dst)?,
                    node: l.con_node[con.0 as usize],
                }
            } else {
                Op::MkCon {
                    dst: r(*dst)?,
                    n: n16(args.len())?,
                    con: con.0,
                    args: pool(l, args, &[])?,
                }
            }
        }
        I::MkThunk { dst, sc, args } => Op::MkThunk {
            dst: r(*dst)?,
            n: n16(args.len())?,
            sc: sc.0,
            args: pool(l, args, &[])?,
        },
        I::MkPap { dst, sc, args } => {
            if args.is_empty() {
                Op::Node {
                    dst: r(*dst)?,
                    node: l.fun_node[sc.0 as usize],
                }
            } else {
                Op::MkPap {
                    dst: r(*dst)?,
                    n: n16(args.len())?,
                    sc: sc.0,
                    args: pool(l, args, &[])?,
                }
            }
        }
        I::Fill { node, field, src } => Op::Fill {
            node: r(*node)?,
            field: *field,
            src: r(*src)?,
        },
        I::Eval { reg } => Op::Eval { reg: r(*reg)? },
        I::Switch { reg, targets } => {
            let start = l.targets.len() as u32;
            for x in targets {
                let tt = t(*x)?;
                l.targets.push(tt);
            }
            Op::Switch {
                reg: r(*reg)?,
                n: n16(targets.len())?,
                targets: start,
            }
        }
        I::Fields { reg, dst, n } => {
            if *n > 0 {
                r(code::Reg(dst.0 + n - 1))?;
            }
            Op::Fields {
                reg: r(*reg)?,
                dst: r(*dst)?,
                n: *n,
            }
        }
        I::Field { dst, reg, field } => Op::Field {
            dst: r(*dst)?,
            reg: r(*reg)?,
            field: *field,
        },
        I::Jump { target } => Op::Jump {
            target: t(*target)?,
        },
        I::BranchCmp { cmp, a, b, target } => {
            let (a, b, target) = (v(*a)?, v(*b)?, t(*target)?);
            match cmp {
                Cmp::ILt => Op::BrILt { a, b, target },
                Cmp::ILe => Op::BrILe { a, b, target },
                Cmp::IGt => Op::BrIGt { a, b, target },
                Cmp::IGe => Op::BrIGe { a, b, target },
                Cmp::IEq => Op::BrIEq { a, b, target },
                Cmp::INe => Op::BrINe { a, b, target },
                _ => Op::Br {
                    cmp: *cmp,
                    a,
                    b,
                    target,
                },
            }
        }
        I::BranchEqConst { a, bits, target } => Op::BrEqConst {
            a: v(*a)?,
            target: t(*target)?,
            bits: *bits,
        },
        I::OpV { op, dst, a, b } => {
            let (dst, a, b) = (v(*dst)?, v(*a)?, v(*b)?);
            match op {
                VOp::IAdd => Op::IAdd { dst, a, b },
                VOp::ISub => Op::ISub { dst, a, b },
                VOp::IMul => Op::IMul { dst, a, b },
                _ => Op::OpV { op: *op, dst, a, b },
            }
        }
        I::UnOpV { op, dst, a } => Op::UnOpV {
            op: *op,
            dst: v(*dst)?,
            a: v(*a)?,
        },
        I::CmpBool { cmp, dst, a, b } => Op::CmpBool {
            cmp: *cmp,
            dst: r(*dst)?,
            a: v(*a)?,
            b: v(*b)?,
        },
        I::Prim { prim, dst, args } => Op::Prim {
            prim: *prim,
            dst: r(*dst)?,
            n: n16(args.len())?,
            args: pool(l, args, &[])?,
        },
        I::Call {
            sc, args, vargs, ..
        }
        | I::CallV {
            sc, args, vargs, ..
        }
        | I::TailCall { sc, args, vargs } => {
            let p = pool(l, args, vargs)?;
            match ins {
                I::Call { dst, .. } => Op::Call {
                    dst: r(*dst)?,
                    sc: sc.0,
                    args: p,
                },
                I::CallV { dst, .. } => Op::CallV {
                    dst: v(*dst)?,
                    sc: sc.0,
                    args: p,
                },
                _ => Op::TailCall { sc: sc.0, args: p },
            }
        }
        I::Apply { f, args, dst } => Op::Apply {
            f: r(*f)?,
            dst: r(*dst)?,
            n: n16(args.len())?,
            args: pool(l, args, &[])?,
        },
        I::TailApply { f, args } => Op::TailApply {
            f: r(*f)?,
            n: n16(args.len())?,
            args: pool(l, args, &[])?,
        },
        I::Ret { reg } => Op::Ret { reg: r(*reg)? },
        I::RetV { reg } => Op::RetV { reg: v(*reg)? },
        I::Enter { reg } => Op::Enter { reg: r(*reg)? },
        I::Par { reg } => Op::Par { reg: r(*reg)? },
    })
}

// ------------------------------------------------------------ liveness
//
// A caller's registers stay on the stack while a callee runs. Those that
// the caller will not read again must not keep data alive (`length
// [1..n]` would otherwise hold on to the head of the list), so the GC
// clears them in every suspended activation. Which ones are dead at each
// return point is computed here once, by backward dataflow per
// supercombinator.

/// Pointer registers an op reads and writes (into the two buffers).
fn uses_defs(l: &Loaded, op: &Op, uses: &mut Vec<u16>, defs: &mut Vec<u16>) {
    let pool = |start: u32, n: usize| l.args[start as usize..start as usize + n].to_vec();
    match *op {
        Op::Move { dst, src } | Op::MoveJump { dst, src, .. } => {
            uses.push(src);
            defs.push(dst);
        }
        Op::Node { dst, .. }
        | Op::Caf { dst, .. }
        | Op::Integer { dst, .. }
        | Op::Str { dst, .. }
        | Op::BoxInt { dst, .. }
        | Op::BoxDouble { dst, .. }
        | Op::BoxChar { dst, .. }
        | Op::CmpBool { dst, .. } => defs.push(dst),
        Op::Unbox { src, .. } => uses.push(src),
        Op::MkCon { dst, n, args, .. }
        | Op::MkConRet { dst, n, args, .. }
        | Op::MkThunk { dst, n, args, .. }
        | Op::MkPap { dst, n, args, .. }
        | Op::Prim { dst, n, args, .. } => {
            uses.extend(pool(args, n as usize));
            defs.push(dst);
        }
        Op::Fill { node, src, .. } => {
            uses.push(node);
            uses.push(src);
        }
        Op::Eval { reg } | Op::EvalSwitch { reg, .. } | Op::EvalUnbox { src: reg, .. } => {
            uses.push(reg);
        }
        Op::Switch { reg, .. } | Op::Ret { reg } | Op::Enter { reg } | Op::Par { reg } => {
            uses.push(reg)
        }
        Op::Halt { reg } => uses.push(reg),
        Op::Fields { reg, dst, n } => {
            uses.push(reg);
            defs.extend(dst..dst + n);
        }
        Op::Field { dst, reg, .. } | Op::Field2 { dst, reg, .. } => {
            uses.push(reg);
            defs.push(dst);
        }
        Op::Call { dst, sc, args } => {
            uses.extend(pool(args, l.scs[sc as usize].arity as usize));
            defs.push(dst);
        }
        Op::CallV { sc, args, .. } | Op::TailCall { sc, args } | Op::Loop { sc, args } => {
            uses.extend(pool(args, l.scs[sc as usize].arity as usize));
        }
        Op::Apply { f, dst, n, args } => {
            uses.push(f);
            uses.extend(pool(args, n as usize));
            defs.push(dst);
        }
        Op::TailApply { f, n, args } => {
            uses.push(f);
            uses.extend(pool(args, n as usize));
        }
        _ => {}
    }
}

/// The ops control may go to after `op` at `pc`.
fn successors(l: &Loaded, op: &Op, pc: u32, out: &mut Vec<u32>) {
    match *op {
        Op::Jump { target } => out.push(target),
        Op::BrILt { target, .. }
        | Op::BrILe { target, .. }
        | Op::BrIGt { target, .. }
        | Op::BrIGe { target, .. }
        | Op::BrIEq { target, .. }
        | Op::BrINe { target, .. }
        | Op::Br { target, .. }
        | Op::BrEqConst { target, .. }
        | Op::BrILtK { target, .. }
        | Op::BrILeK { target, .. }
        | Op::BrIGtK { target, .. }
        | Op::BrIGeK { target, .. }
        | Op::BrIEqK { target, .. }
        | Op::BrINeK { target, .. } => {
            out.push(pc + 1);
            out.push(target);
        }
        Op::Switch { n, targets, .. } => {
            out.extend_from_slice(&l.targets[targets as usize..targets as usize + n as usize])
        }
        Op::TailCall { .. }
        | Op::Loop { .. }
        | Op::TailApply { .. }
        | Op::Ret { .. }
        | Op::RetV { .. }
        | Op::Enter { .. }
        | Op::Halt { .. }
        | Op::FellOff { .. } => {}
        _ => out.push(pc + 1),
    }
}

/// Is `op` one that suspends its activation under a return frame?
fn suspends(op: &Op) -> bool {
    matches!(
        op,
        Op::Eval { .. }
            | Op::EvalSwitch { .. }
            | Op::EvalUnbox { .. }
            | Op::Call { .. }
            | Op::CallV { .. }
            | Op::Apply { .. }
    )
}

pub fn compute_liveness(l: &mut Loaded) {
    l.dead_at = vec![u32::MAX; l.ops.len()];
    let mut uses = Vec::new();
    let mut defs = Vec::new();
    let mut succ = Vec::new();
    for s in 0..l.scs.len() {
        let info = l.scs[s];
        let start = info.entry as usize;
        let len = l.prog.scs[s].code.len() + 1;
        let nregs = info.nregs as usize;
        if nregs == 0 {
            continue;
        }
        let words = nregs.div_ceil(64);
        let mut live = vec![0u64; len * words];
        let mut changed = true;
        while changed {
            changed = false;
            for i in (0..len).rev() {
                let pc = (start + i) as u32;
                let op = l.ops[start + i];
                let mut out = vec![0u64; words];
                succ.clear();
                successors(l, &op, pc, &mut succ);
                for &t in &succ {
                    let j = t as usize - start;
                    if j < len {
                        for w in 0..words {
                            out[w] |= live[j * words + w];
                        }
                    }
                }
                uses.clear();
                defs.clear();
                uses_defs(l, &op, &mut uses, &mut defs);
                for &d in &defs {
                    out[d as usize / 64] &= !(1 << (d % 64));
                }
                for &u in &uses {
                    out[u as usize / 64] |= 1 << (u % 64);
                }
                if live[i * words..(i + 1) * words] != out[..] {
                    live[i * words..(i + 1) * words].copy_from_slice(&out);
                    changed = true;
                }
            }
        }
        // At each return point (the op after a suspending one), the
        // registers not live there are dead in the suspended window.
        for i in 0..len.saturating_sub(1) {
            if suspends(&l.ops[start + i]) {
                let j = i + 1;
                let dead: Vec<u16> = (0..nregs as u16)
                    .filter(|&r| live[j * words + r as usize / 64] & (1 << (r % 64)) == 0)
                    .collect();
                if !dead.is_empty() {
                    l.dead_at[start + j] = l.dead_regs.len() as u32;
                    l.dead_regs.push(dead.len() as u16);
                    l.dead_regs.extend(dead);
                }
            }
        }
    }
}

/// Fuses `ConstV k imm; op ... k ...` into one superinstruction, and
/// `Eval r` with a `Switch` or `Unbox` of `r` after it, two `Field`s of
/// one node, a `Move` before a `Jump` and a `MkCon` before its `Ret`.
///
/// An `Eval` finds a value far more often than it enters a thunk, and then
/// the op after it, a `Switch` or an `Unbox` of the same register, looks
/// at the same node again: 7-12 % and 5-6 % of all the ops of the Sudoku,
/// word-count and text programs of bench/styles. The fused op does both at
/// one dispatch and one look at the node; the second op stays where it
/// was, for a thunk entered to return to.
fn superinstructions(code: &mut [Op]) {
    for i in 0..code.len().saturating_sub(1) {
        if let Some(op) = fuse(code[i], code[i + 1]) {
            code[i] = op;
        }
    }
}

/// Marks the tail calls of supercombinator `sc` in its own code `code`.
fn loops(code: &mut [Op], sc: u32) {
    for op in code {
        if let Op::TailCall { sc: callee, args } = *op {
            if callee == sc {
                *op = Op::Loop { sc, args };
            }
        }
    }
}

/// The one op that does `first` and then `second`, if there is one.
fn fuse(first: Op, second: Op) -> Option<Op> {
    Some(match (first, second) {
        (Op::Eval { reg }, Op::Switch { reg: r, n, targets }) if r == reg => {
            Op::EvalSwitch { reg, n, targets }
        }
        (Op::Eval { reg }, Op::Unbox { dst, src }) if src == reg => Op::EvalUnbox { dst, src },
        (Op::Move { dst, src }, Op::Jump { target }) => Op::MoveJump { dst, src, target },
        (Op::MkCon { dst, n, con, args }, Op::Ret { reg }) if reg == dst => {
            Op::MkConRet { dst, n, con, args }
        }
        (
            Op::Field { dst, reg, field },
            Op::Field {
                dst: dst2,
                reg: r,
                field: field2,
            },
        ) if r == reg && dst != reg => Op::Field2 {
            reg,
            dst,
            field,
            dst2,
            field2,
        },
        (Op::ConstV { dst: k, bits }, next) => {
            let imm = i32::try_from(bits as i64).ok()?;
            match next {
                Op::IAdd { dst, a, b } if b == k => Op::AddK { dst, a, k, imm },
                Op::IAdd { dst, a, b } if a == k => Op::AddK { dst, a: b, k, imm },
                Op::ISub { dst, a, b } if b == k => Op::SubK { dst, a, k, imm },
                Op::BrILt { a, b, target } if b == k => Op::BrILtK { a, k, imm, target },
                Op::BrILe { a, b, target } if b == k => Op::BrILeK { a, k, imm, target },
                Op::BrIGt { a, b, target } if b == k => Op::BrIGtK { a, k, imm, target },
                Op::BrIGe { a, b, target } if b == k => Op::BrIGeK { a, k, imm, target },
                Op::BrIEq { a, b, target } if b == k => Op::BrIEqK { a, k, imm, target },
                Op::BrINe { a, b, target } if b == k => Op::BrINeK { a, k, imm, target },
                _ => return None,
            }
        }
        _ => return None,
    })
}
