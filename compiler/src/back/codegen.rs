//! Code generation: lifted supercombinators → `gph_code::Program`.
//!
//! The G-machine's compilation schemes, adapted to a register machine. An
//! expression is compiled in one of four contexts:
//!
//! * **tail** (`Ctx::Tail`): its value is the activation's result — known
//!   saturated calls become `TailCall`, unknown ones `TailApply`, a variable
//!   `Enter`, a value `Ret` (`RetV` in a worker with an unboxed result);
//! * **strict** (`Ctx::Strict`): its WHNF value is wanted in a pointer
//!   register — `case`, arithmetic and comparisons are compiled inline,
//!   known calls are `Call`, unknown ones `Eval` the function then `Apply`;
//! * **value** (`Ctx::Value(kind)`): an unboxed Int/Double/Char is wanted in
//!   a value register — arithmetic on value registers, `CallV` of workers;
//! * **lazy** ([`FnGen::lazy`]): a closure for it is wanted without
//!   evaluating anything — `MkThunk`, `MkCon`, `MkPap`, `Global`.
//!
//! A `case` on a comparison becomes `BranchCmp`; on literals,
//! `BranchEqConst`; on constructors, `Switch` (or nothing for a single
//! constructor) then `Field`s. A `case` in a non-tail context compiles its
//! alternatives into one result register and a join point. Strict `let`s
//! (the body is strict in the variable) and strict arguments of known
//! functions are evaluated at once, compiling the thunk body in place
//! (lifted thunks take the enclosing variables as parameters). `letrec`
//! allocates every node, then ties the knots with `Fill`.
//!
//! Constructors come first in `cons` as code.rs requires (`()`, `[]`, `:`,
//! `False`, `True`, `IORes`), then every other constructor of the program.
//! Constructors and primitives used as values get wrapper supercombinators
//! (`Con$con`, and the primitive's own name).

use crate::back::lift::{self, ScDef};
use crate::back::prims::{Op, PrimInfo, Special, Ty, ValueKind};
use crate::back::strictness::{self, Info, Worker};
use crate::core::{AltCon, Bind, Expr, Lit, Var};
use gph_code::asm::{set_targets, Asm};
use gph_code::{
    self as code, Cmp, ConId, ConInfo, Global, GlobalId, Instr, Pc, Prim, Reg, RetKind, ScId,
    ScKind, Supercomb, VReg, CONS, IORES, NIL,
};
use gph_syntax::lexer::Sym;
use std::collections::{HashMap, HashSet};

/// The name of the built-in IO result constructor in Core (the simplifier
/// introduces it when it expands `returnIO`/`bindIO`).
pub const IORES_NAME: &str = "Gph.Prim.IORes";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Tail,
    Strict,
    Value(ValueKind),
}

enum Res {
    Done,
    R(Reg),
    V(VReg),
}

#[derive(Clone, Copy, Debug)]
enum Loc {
    Boxed { reg: Reg, evald: bool },
    Unboxed { v: VReg, kind: ValueKind },
}

#[derive(Clone, Debug)]
enum Job {
    Sc(usize),
    Extra(usize),
    Worker(usize),
    PrimWrapper(Sym),
    ConWrapper(Sym),
    DeepString,
    PutStr,
}

struct ConData {
    id: ConId,
    arity: usize,
    strict: Vec<bool>,
    siblings: usize,
    tag: usize,
}

pub struct Gen<'a> {
    lp: &'a lift::Program,
    env: strictness::Env<'a>,
    prog: code::Program,
    cons: HashMap<Sym, ConData>,
    sc_ids: HashMap<String, ScId>,
    jobs: Vec<(ScId, Job)>,
    globals: HashMap<ScId, GlobalId>,
    strings: HashMap<String, u32>,
    /// Thunks made by the code generator itself (lazy positions the lifter
    /// left; not expected, but safe).
    extra: Vec<ScDef>,
    tmp: u32,
    /// Every variable occurring in the program (variables are unique, so
    /// one bound by a `case` is used in its alternatives if it occurs at
    /// all): looking in the alternatives at each `case` was quadratic in a
    /// nest of 2,000 `if`s (4 s).
    occurring: HashSet<u32>,
    pub errors: Vec<String>,
}

impl<'a> Gen<'a> {
    pub fn new(lp: &'a lift::Program, info: Info) -> Gen<'a> {
        let mut env = strictness::Env::new(lp);
        env.info = info;
        let mut g = Gen {
            lp,
            env,
            prog: code::Program::default(),
            cons: HashMap::new(),
            sc_ids: HashMap::new(),
            jobs: Vec::new(),
            globals: HashMap::new(),
            strings: HashMap::new(),
            extra: Vec::new(),
            tmp: 0xF000_0000,
            occurring: HashSet::new(),
            errors: Vec::new(),
        };
        for sc in &lp.scs {
            used_vars_in(&sc.body, &mut g.occurring);
        }
        g.constructors();
        g
    }

    fn constructors(&mut self) {
        let builtin: [(&str, u32, u32, u32); 6] = [
            ("()", 0, 0, 1),
            ("[]", 0, 0, 2),
            (":", 1, 2, 2),
            ("Gph.Prim.False", 0, 0, 2),
            ("Gph.Prim.True", 1, 0, 2),
            (IORES_NAME, 0, 1, 1),
        ];
        for (i, (n, tag, arity, siblings)) in builtin.iter().enumerate() {
            self.prog.cons.push(ConInfo {
                name: n.to_string(),
                tag: *tag,
                arity: *arity,
                siblings: *siblings,
            });
            self.cons.insert(
                Sym::from(*n),
                ConData {
                    id: ConId(i as u32),
                    arity: *arity as usize,
                    strict: vec![false; *arity as usize],
                    siblings: *siblings as usize,
                    tag: *tag as usize,
                },
            );
        }
        for d in &self.lp.data {
            for (tag, c) in d.constrs.iter().enumerate() {
                if let Some(cd) = self.cons.get_mut(&c.name) {
                    cd.strict = c.strict.clone();
                    continue;
                }
                let id = ConId(self.prog.cons.len() as u32);
                self.prog.cons.push(ConInfo {
                    name: c.name.to_string(),
                    tag: tag as u32,
                    arity: c.arity as u32,
                    siblings: d.constrs.len() as u32,
                });
                self.cons.insert(
                    c.name.clone(),
                    ConData {
                        id,
                        arity: c.arity,
                        strict: c.strict.clone(),
                        siblings: d.constrs.len(),
                        tag,
                    },
                );
            }
        }
    }

    fn sc_id(&mut self, name: &str, job: impl FnOnce() -> Job) -> ScId {
        if let Some(id) = self.sc_ids.get(name) {
            return *id;
        }
        let id = ScId(self.prog.scs.len() as u32);
        self.prog.scs.push(Supercomb {
            name: name.to_string(),
            kind: ScKind::Fun,
            arity: 0,
            varity: 0,
            nregs: 0,
            nvregs: 0,
            returns: RetKind::Boxed,
            code: Vec::new(),
        });
        self.sc_ids.insert(name.to_string(), id);
        self.jobs.push((id, job()));
        id
    }

    fn lifted_id(&mut self, name: &str) -> Option<ScId> {
        let i = *self.lp.index.get(name)?;
        Some(self.sc_id(name, || Job::Sc(i)))
    }

    fn worker_id(&mut self, name: &str) -> Option<ScId> {
        if !self.env.info.workers.contains_key(name) {
            return None;
        }
        let i = *self.lp.index.get(name)?;
        Some(self.sc_id(&format!("{name}$w"), || Job::Worker(i)))
    }

    fn prim_wrapper(&mut self, orig: &Sym) -> ScId {
        let o = orig.clone();
        self.sc_id(orig, || Job::PrimWrapper(o))
    }

    fn con_wrapper(&mut self, c: &Sym) -> ScId {
        let o = c.clone();
        self.sc_id(&format!("{c}$con"), || Job::ConWrapper(o))
    }

    fn helper(&mut self, job: Job) -> ScId {
        let name = match job {
            Job::DeepString => "Gph.Prim.$deepString",
            _ => "Gph.Prim.$putStr",
        };
        self.sc_id(name, || job)
    }

    fn global_id(&mut self, sc: ScId, caf: bool) -> GlobalId {
        if let Some(g) = self.globals.get(&sc) {
            return *g;
        }
        let g = GlobalId(self.prog.globals.len() as u32);
        self.prog.globals.push(if caf {
            Global::Caf(sc)
        } else {
            Global::Fun(sc)
        });
        self.prog
            .global_names
            .push(self.prog.scs[sc.0 as usize].name.clone());
        self.globals.insert(sc, g);
        g
    }

    fn string(&mut self, s: &str) -> u32 {
        if let Some(i) = self.strings.get(s) {
            return *i;
        }
        let i = self.prog.strings.len() as u32;
        self.prog.strings.push(s.to_string());
        self.strings.insert(s.to_string(), i);
        i
    }

    /// Generates the whole program: every top-level supercombinator (and
    /// whatever they need), with `main_name` as the entry point.
    pub fn program(mut self, main_name: Option<&str>) -> (code::Program, Vec<String>) {
        for (i, sc) in self.lp.scs.iter().enumerate() {
            if sc.kind != ScKind::Thunk {
                self.sc_id(&sc.name, || Job::Sc(i));
            }
        }
        if let Some(m) = main_name {
            if let Some(id) = self.lifted_id(m) {
                let caf = self.lp.sc(m).is_some_and(|s| s.kind == ScKind::Caf);
                self.prog.main = Some(self.global_id(id, caf));
            } else {
                self.errors.push(format!("no `{m}` to run"));
            }
        }
        self.run_jobs();
        (self.prog, self.errors)
    }

    /// Generates only what one top-level definition needs.
    pub fn only(mut self, name: &str) -> (code::Program, Vec<String>) {
        self.lifted_id(name);
        for (i, sc) in self.lp.scs.iter().enumerate() {
            if &*sc.parent == name && sc.kind != ScKind::Thunk {
                self.sc_id(&sc.name, || Job::Sc(i));
            }
        }
        self.run_jobs();
        (self.prog, self.errors)
    }

    fn run_jobs(&mut self) {
        let mut done = 0;
        while done < self.jobs.len() {
            let (id, job) = self.jobs[done].clone();
            done += 1;
            let sc = self.compile_job(id, job);
            self.prog.scs[id.0 as usize] = sc;
        }
    }

    /// A supercombinator whose parameters are all boxed and unevaluated.
    fn boxed_sc(&mut self, name: String, kind: ScKind, params: &[Var], body: &Expr) -> Supercomb {
        let mut f = FnGen::new(self, name, kind, RetKind::Boxed);
        for p in params {
            f.param(p);
        }
        f.expr(body, Ctx::Tail);
        f.finish()
    }

    /// `\x1 .. xn -> head x1 .. xn`: a primitive or constructor as a value.
    fn saturating_wrapper(
        &mut self,
        name: String,
        kind: ScKind,
        head: Expr,
        arity: usize,
    ) -> Supercomb {
        let mut f = FnGen::new(self, name, kind, RetKind::Boxed);
        let mut args = Vec::new();
        for _ in 0..arity {
            let v = f.fresh_var("x");
            f.param(&v);
            args.push(Expr::Local(v));
        }
        f.expr(&Expr::app(head, args), Ctx::Tail);
        f.finish()
    }

    fn compile_job(&mut self, id: ScId, job: Job) -> Supercomb {
        let name = self.prog.scs[id.0 as usize].name.clone();
        match job {
            Job::Sc(i) => {
                let sc = &self.lp.scs[i];
                if let (ScKind::Fun, Some(w)) = (sc.kind, self.env.info.workers.get(&sc.name)) {
                    let w = w.clone();
                    self.wrapper(name, sc, &w)
                } else {
                    self.boxed_sc(name, sc.kind, &sc.params, &sc.body)
                }
            }
            Job::Extra(i) => {
                let sc = self.extra[i].clone();
                self.boxed_sc(name, ScKind::Thunk, &sc.params, &sc.body)
            }
            Job::Worker(i) => {
                let sc = &self.lp.scs[i];
                let w = self.env.info.workers[&sc.name].clone();
                let mut f = FnGen::new(self, name, ScKind::Fun, w.ret);
                for (p, k) in sc.params.iter().zip(&w.params) {
                    if k.is_none() {
                        f.param(p);
                    }
                }
                // Strict boxed parameters are evaluated by every caller.
                let strict =
                    f.g.env
                        .info
                        .strict
                        .get(&sc.name)
                        .cloned()
                        .unwrap_or_default();
                for (i, (p, k)) in sc.params.iter().zip(&w.params).enumerate() {
                    match k {
                        Some(kind) => {
                            let v = f.new_vreg();
                            f.varity += 1;
                            f.bind(p, Loc::Unboxed { v, kind: *kind });
                        }
                        None => {
                            if strict.get(i).copied().unwrap_or(false) {
                                if let Some(Loc::Boxed { reg, .. }) = f.env.get(&p.id).copied() {
                                    f.env.insert(p.id, Loc::Boxed { reg, evald: true });
                                }
                            }
                        }
                    }
                }
                f.expr(&sc.body, Ctx::Tail);
                f.finish()
            }
            Job::PrimWrapper(orig) => {
                let p = self.env.prims.get(&orig).cloned();
                let arity = p.as_ref().map(|p| p.arity()).unwrap_or(0);
                let kind = if arity == 0 { ScKind::Caf } else { ScKind::Fun };
                self.saturating_wrapper(name, kind, Expr::Global(orig), arity)
            }
            Job::ConWrapper(c) => {
                let arity = self.cons[&c].arity;
                self.saturating_wrapper(name, ScKind::Fun, Expr::Con(c), arity)
            }
            Job::DeepString => self.deep_string(name),
            Job::PutStr => self.put_str(name),
        }
    }

    /// `f`'s wrapper around its worker: evaluate and unbox, call, box.
    fn wrapper(&mut self, name: String, sc: &ScDef, w: &Worker) -> Supercomb {
        let wid = self.worker_id(&sc.name).unwrap();
        let strict = self
            .env
            .info
            .strict
            .get(&sc.name)
            .cloned()
            .unwrap_or_default();
        let mut code = Vec::new();
        let n = sc.params.len() as u16;
        let mut args = Vec::new();
        let mut vargs = Vec::new();
        for (i, k) in w.params.iter().enumerate() {
            let r = Reg(i as u16);
            match k {
                Some(_) => {
                    code.push(Instr::Eval { reg: r });
                    let v = VReg(vargs.len() as u16);
                    code.push(Instr::Unbox { dst: v, src: r });
                    vargs.push(v);
                }
                None => {
                    if strict.get(i).copied().unwrap_or(false) {
                        code.push(Instr::Eval { reg: r });
                    }
                    args.push(r);
                }
            }
        }
        let mut nregs = n;
        let mut nvregs = vargs.len() as u16;
        match w.ret {
            RetKind::Boxed => code.push(Instr::TailCall {
                sc: wid,
                args,
                vargs,
            }),
            k => {
                let v = VReg(nvregs);
                nvregs += 1;
                let r = Reg(nregs);
                nregs += 1;
                code.push(Instr::CallV {
                    sc: wid,
                    args,
                    vargs,
                    dst: v,
                });
                code.push(box_instr(strictness::ret_kind(k).unwrap(), r, v));
                code.push(Instr::Ret { reg: r });
            }
        }
        Supercomb {
            name,
            kind: ScKind::Fun,
            arity: n,
            varity: 0,
            nregs,
            nvregs,
            returns: RetKind::Boxed,
            code,
        }
    }

    /// `$deepString s`: evaluates every cell and character of `s`, returns
    /// the evaluated list.
    fn deep_string(&mut self, name: String) -> Supercomb {
        let (s, p, h) = (Reg(0), Reg(1), Reg(2));
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        enum L {
            Next,
            Cons,
            Done,
        }
        let mut a = Asm::new();
        a.push(Instr::Move { dst: p, src: s });
        a.label(L::Next);
        a.push(Instr::Eval { reg: p });
        let switch = Instr::Switch {
            reg: p,
            targets: vec![],
        };
        a.jump(switch, &[L::Done, L::Cons]);
        a.label(L::Cons);
        a.push(Instr::Field {
            dst: h,
            reg: p,
            field: 0,
        });
        a.push(Instr::Eval { reg: h });
        a.push(Instr::Field {
            dst: p,
            reg: p,
            field: 1,
        });
        a.jump(Instr::Jump { target: 0 }, &[L::Next]);
        a.label(L::Done);
        a.push(Instr::Eval { reg: s });
        a.push(Instr::Ret { reg: s });
        let code = a.finish();
        Supercomb {
            name,
            kind: ScKind::Fun,
            arity: 1,
            varity: 0,
            nregs: 3,
            nvregs: 0,
            returns: RetKind::Boxed,
            code,
        }
    }

    /// `$putStr s w handle`: writes `s` to the handle as GHC's hPutStr
    /// does with the handle's buffer mode (Gph.Prim's hPutStr):
    /// block-buffered, in blocks of 2047 characters, each committed once
    /// the character after it has been evaluated, so that a long string is
    /// never held whole; line-buffered, the same, and also each line as
    /// soon as its newline has been evaluated; unbuffered, each character
    /// as soon as it has been evaluated. A closed handle fails before the
    /// string is looked at.
    fn put_str(&mut self, name: String) -> Supercomb {
        // r0 s (the rest), r1 w, r2 handle, r3 p, r4 h, r5 acc, r6 out,
        // r7 tmp, r8 q; v0 n, v1 limit, v2 one, v3 mode, v4 line, v5 ch,
        // v6 cnt
        let (s, w, handle, p, h, acc, out, tmp, q) = (
            Reg(0),
            Reg(1),
            Reg(2),
            Reg(3),
            Reg(4),
            Reg(5),
            Reg(6),
            Reg(7),
            Reg(8),
        );
        let (n, limit, one, mode, line, ch, cnt) = (
            VReg(0),
            VReg(1),
            VReg(2),
            VReg(3),
            VReg(4),
            VReg(5),
            VReg(6),
        );
        const BLOCK: u64 = 2047;
        // Labels: `Asm` points the jumps at them when the code is finished.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        enum L {
            SetLine,
            Start,
            Loop,
            Scan,
            Cons,
            Next,
            Whole,
            BlockFull,
            LineEnd,
            Commit,
            Copy,
            Copied,
            Rev,
            RevCons,
            Done,
            NoBuf,
            NoBufCons,
            Single,
        }
        let mut c: Asm<L> = Asm::new();
        let nil = |dst| Instr::MkCon {
            dst,
            con: NIL,
            args: vec![],
        };
        let k = |x: i64| x as u64;
        macro_rules! label {
            ($l:expr) => {
                c.label($l);
            };
        }
        macro_rules! jump {
            ($i:expr, $($l:expr),+) => {{
                c.jump($i, &[$($l),+]);
            }};
        }
        // Evaluates the list in `$list`: to `$nil` if empty, else on at
        // `$cons` with its head evaluated in `h`.
        macro_rules! uncons {
            ($list:expr, $nil:expr, $cons:expr) => {{
                c.push(Instr::Eval { reg: $list });
                jump!(
                    Instr::Switch {
                        reg: $list,
                        targets: vec![]
                    },
                    $nil,
                    $cons
                );
                label!($cons);
                c.push(Instr::Field {
                    dst: h,
                    reg: $list,
                    field: 0,
                });
                c.push(Instr::Eval { reg: h });
            }};
        }
        // The buffer mode (Gph.Prim's hGetBuffering codes).
        c.push(Instr::Prim {
            prim: Prim::HGetBuffering,
            dst: tmp,
            args: vec![handle, w],
        });
        c.push(Instr::Field {
            dst: tmp,
            reg: tmp,
            field: 0,
        });
        c.push(Instr::Eval { reg: tmp });
        c.push(Instr::Unbox {
            dst: mode,
            src: tmp,
        });
        let br = |bits| Instr::BranchEqConst {
            a: mode,
            bits,
            target: 0,
        };
        jump!(br(k(-3)), L::Single); // closed: hPutStr fails at once
        jump!(br(k(-2)), L::NoBuf);
        c.push(Instr::ConstV { dst: line, bits: 0 });
        jump!(br(k(-1)), L::SetLine);
        jump!(Instr::Jump { target: 0 }, L::Start);
        label!(L::SetLine);
        c.push(Instr::ConstV { dst: line, bits: 1 });
        label!(L::Start);
        c.push(Instr::ConstV {
            dst: limit,
            bits: BLOCK + 1,
        });
        c.push(Instr::ConstV { dst: one, bits: 1 });
        label!(L::Loop);
        c.push(Instr::ConstV { dst: n, bits: 0 });
        c.push(Instr::Move { dst: p, src: s });
        label!(L::Scan);
        uncons!(p, L::Whole, L::Cons);
        c.push(Instr::OpV {
            op: code::VOp::IAdd,
            dst: n,
            a: n,
            b: one,
        });
        jump!(
            Instr::BranchCmp {
                cmp: Cmp::IEq,
                a: n,
                b: limit,
                target: 0,
            },
            L::BlockFull
        );
        jump!(
            Instr::BranchEqConst {
                a: line,
                bits: 0,
                target: 0,
            },
            L::Next
        );
        c.push(Instr::Unbox { dst: ch, src: h });
        jump!(
            Instr::BranchEqConst {
                a: ch,
                bits: '\n' as u64,
                target: 0,
            },
            L::LineEnd
        );
        label!(L::Next);
        c.push(Instr::Field {
            dst: p,
            reg: p,
            field: 1,
        });
        jump!(Instr::Jump { target: 0 }, L::Scan);
        // Everything from s on is evaluated.
        label!(L::Whole);
        c.push(Instr::Eval { reg: s });
        c.push(Instr::Prim {
            prim: Prim::PutStr,
            dst: tmp,
            args: vec![handle, s, w],
        });
        c.push(Instr::Ret { reg: tmp });
        // A block is full: its 2047 characters are written, and the next
        // round starts at the 2048th (p).
        label!(L::BlockFull);
        c.push(Instr::OpV {
            op: code::VOp::ISub,
            dst: cnt,
            a: limit,
            b: one,
        });
        jump!(Instr::Jump { target: 0 }, L::Commit);
        // A newline (line buffering): the n characters up to it are
        // written, and the next round starts after it (not evaluated yet).
        label!(L::LineEnd);
        c.push(Instr::MoveV { dst: cnt, src: n });
        c.push(Instr::Field {
            dst: p,
            reg: p,
            field: 1,
        });
        // The first cnt characters of s (evaluated): reversed into acc,
        // then again into out, written.
        label!(L::Commit);
        c.push(Instr::ConstV { dst: n, bits: 0 });
        c.push(nil(acc));
        c.push(Instr::Move { dst: q, src: s });
        label!(L::Copy);
        c.push(Instr::Eval { reg: q });
        c.push(Instr::Field {
            dst: h,
            reg: q,
            field: 0,
        });
        c.push(Instr::Eval { reg: h });
        c.push(Instr::MkCon {
            dst: acc,
            con: CONS,
            args: vec![h, acc],
        });
        c.push(Instr::OpV {
            op: code::VOp::IAdd,
            dst: n,
            a: n,
            b: one,
        });
        jump!(
            Instr::BranchCmp {
                cmp: Cmp::IEq,
                a: n,
                b: cnt,
                target: 0,
            },
            L::Copied
        );
        c.push(Instr::Field {
            dst: q,
            reg: q,
            field: 1,
        });
        jump!(Instr::Jump { target: 0 }, L::Copy);
        label!(L::Copied);
        c.push(nil(out));
        label!(L::Rev);
        jump!(
            Instr::Switch {
                reg: acc,
                targets: vec![]
            },
            L::Done,
            L::RevCons
        );
        label!(L::RevCons);
        c.push(Instr::Field {
            dst: h,
            reg: acc,
            field: 0,
        });
        c.push(Instr::MkCon {
            dst: out,
            con: CONS,
            args: vec![h, out],
        });
        c.push(Instr::Field {
            dst: acc,
            reg: acc,
            field: 1,
        });
        c.push(Instr::Eval { reg: acc });
        jump!(Instr::Jump { target: 0 }, L::Rev);
        label!(L::Done);
        c.push(Instr::Prim {
            prim: Prim::PutStr,
            dst: tmp,
            args: vec![handle, out, w],
        });
        c.push(Instr::Move { dst: s, src: p });
        jump!(Instr::Jump { target: 0 }, L::Loop);
        // Unbuffered: each character as soon as it is evaluated.
        label!(L::NoBuf);
        uncons!(s, L::Single, L::NoBufCons);
        c.push(nil(out));
        c.push(Instr::MkCon {
            dst: out,
            con: CONS,
            args: vec![h, out],
        });
        c.push(Instr::Prim {
            prim: Prim::PutStr,
            dst: tmp,
            args: vec![handle, out, w],
        });
        c.push(Instr::Field {
            dst: s,
            reg: s,
            field: 1,
        });
        jump!(Instr::Jump { target: 0 }, L::NoBuf);
        // An empty write: the end of an unbuffered string, or the failure
        // of a closed handle.
        label!(L::Single);
        c.push(nil(out));
        c.push(Instr::Prim {
            prim: Prim::PutStr,
            dst: tmp,
            args: vec![handle, out, w],
        });
        c.push(Instr::Ret { reg: tmp });
        let c = c.finish();
        Supercomb {
            name,
            kind: ScKind::Fun,
            arity: 3,
            varity: 0,
            nregs: 9,
            nvregs: 7,
            returns: RetKind::Boxed,
            code: c,
        }
    }
}

fn box_instr(k: ValueKind, dst: Reg, src: VReg) -> Instr {
    match k {
        ValueKind::Int => Instr::BoxInt { dst, src },
        ValueKind::Double => Instr::BoxDouble { dst, src },
        ValueKind::Char => Instr::BoxChar { dst, src },
    }
}

fn lit_bits(l: &Lit) -> Option<(ValueKind, u64)> {
    match l {
        Lit::Int(n) => Some((ValueKind::Int, *n as u64)),
        Lit::Double(d) => Some((ValueKind::Double, d.to_bits())),
        Lit::Char(c) => Some((ValueKind::Char, *c as u64)),
        _ => None,
    }
}

/// Flattens nested applications: the head and every argument.
fn spine(e: &Expr) -> (&Expr, Vec<&Expr>) {
    let mut args: Vec<&Expr> = Vec::new();
    let mut f = e;
    let mut chunks: Vec<&[Expr]> = Vec::new();
    while let Expr::App(g, a) = f {
        chunks.push(a);
        f = g;
    }
    for c in chunks.iter().rev() {
        args.extend(c.iter());
    }
    (f, args)
}

/// What an application's head is.
enum Head {
    Prim(PrimInfo),
    /// A lifted supercombinator of kind Fun with this arity.
    Known(usize),
    Thunk,
    Caf,
    Con,
    Unknown,
}

/// The variables of a `letrec` not yet built, the fields (node, field,
/// variable) to fill once they are, and the register holding what those
/// fields hold meanwhile: the unit node, a constructor without fields, so
/// that a collection between the allocation and the fill sees a real
/// pointer and no selector thunk over it can be short-circuited (any live
/// register there was once taken for a list's cons cell, and the collector
/// turned the thunk `fst d` into the list's head).
type Knot = (HashSet<u32>, Vec<(Reg, u16, u32)>, Reg);

struct FnGen<'g, 'a> {
    g: &'g mut Gen<'a>,
    name: String,
    kind: ScKind,
    ret: RetKind,
    arity: u16,
    varity: u16,
    code: Vec<Instr>,
    next_reg: u16,
    max_reg: u16,
    next_vreg: u16,
    max_vreg: u16,
    env: HashMap<u32, Loc>,
    /// Boxed copies of unboxed variables made on this path.
    boxed: HashMap<u32, Reg>,
    /// Unboxed copies of boxed variables made on this path (`compare` on
    /// characters unboxed each twice: for `<`, then for `==`).
    unboxed: HashMap<u32, VReg>,
    /// While building a `letrec`: the variables not yet built, and the
    /// fields to fill once they are.
    knot: Option<Knot>,
}

impl<'g, 'a> FnGen<'g, 'a> {
    fn new(g: &'g mut Gen<'a>, name: String, kind: ScKind, ret: RetKind) -> Self {
        FnGen {
            g,
            name,
            kind,
            ret,
            arity: 0,
            varity: 0,
            code: Vec::new(),
            next_reg: 0,
            max_reg: 0,
            next_vreg: 0,
            max_vreg: 0,
            env: HashMap::new(),
            boxed: HashMap::new(),
            unboxed: HashMap::new(),
            knot: None,
        }
    }

    fn finish(self) -> Supercomb {
        Supercomb {
            name: self.name,
            kind: self.kind,
            arity: self.arity,
            varity: self.varity,
            nregs: self.max_reg.max(self.arity),
            nvregs: self.max_vreg.max(self.varity),
            returns: self.ret,
            code: self.code,
        }
    }

    fn new_reg(&mut self) -> Reg {
        let r = Reg(self.next_reg);
        self.next_reg += 1;
        self.max_reg = self.max_reg.max(self.next_reg);
        r
    }

    fn new_vreg(&mut self) -> VReg {
        let r = VReg(self.next_vreg);
        self.next_vreg += 1;
        self.max_vreg = self.max_vreg.max(self.next_vreg);
        r
    }

    fn fresh_var(&mut self, name: &str) -> Var {
        self.g.tmp += 1;
        Var {
            name: Sym::from(name),
            id: self.g.tmp,
        }
    }

    /// The string in `r` evaluated completely (every cell and character),
    /// as primitives that read a message or a path need it.
    fn deep_string(&mut self, r: Reg) -> Reg {
        let id = self.g.helper(Job::DeepString);
        let s = self.new_reg();
        self.emit(Instr::Call {
            sc: id,
            args: vec![r],
            vargs: vec![],
            dst: s,
        });
        s
    }

    /// A variable bound to the value of the `IORes x` in `res` (an IO
    /// action's result), unevaluated.
    fn io_result(&mut self, res: Reg) -> Var {
        let x = self.fresh_var("x");
        let reg = self.new_reg();
        self.emit(Instr::Field {
            dst: reg,
            reg: res,
            field: 0,
        });
        self.bind(&x, Loc::Boxed { reg, evald: false });
        x
    }

    /// The next boxed parameter, unevaluated on entry.
    fn param(&mut self, v: &Var) -> Reg {
        let reg = self.new_reg();
        self.arity += 1;
        self.bind(v, Loc::Boxed { reg, evald: false });
        reg
    }

    fn bind(&mut self, v: &Var, loc: Loc) {
        self.env.insert(v.id, loc);
        self.boxed.remove(&v.id);
        self.unboxed.remove(&v.id);
    }

    fn emit(&mut self, i: Instr) -> usize {
        self.code.push(i);
        self.code.len() - 1
    }

    fn pc(&self) -> Pc {
        self.code.len() as Pc
    }

    fn patch(&mut self, at: usize, target: Pc) {
        set_targets(&mut self.code[at], &[target]);
    }

    /// Runs `f` on a copy of the environment and register state (for one
    /// branch); restores them afterwards.
    fn branch<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let env = self.env.clone();
        let boxed = self.boxed.clone();
        let unboxed = self.unboxed.clone();
        let (r, v) = (self.next_reg, self.next_vreg);
        let out = f(self);
        self.env = env;
        self.boxed = boxed;
        self.unboxed = unboxed;
        self.next_reg = r;
        self.next_vreg = v;
        out
    }

    fn error(&mut self, msg: String) {
        self.g.errors.push(format!("{}: {msg}", self.name));
    }

    // ------------------------------------------------------------ results

    fn finish_reg(&mut self, r: Reg, ctx: Ctx) -> Res {
        match ctx {
            Ctx::Strict => Res::R(r),
            Ctx::Value(_) => {
                let v = self.new_vreg();
                self.emit(Instr::Unbox { dst: v, src: r });
                Res::V(v)
            }
            Ctx::Tail => {
                match strictness::ret_kind(self.ret) {
                    None => {
                        self.emit(Instr::Ret { reg: r });
                    }
                    Some(_) => {
                        let v = self.new_vreg();
                        self.emit(Instr::Unbox { dst: v, src: r });
                        self.emit(Instr::RetV { reg: v });
                    }
                }
                Res::Done
            }
        }
    }

    fn finish_v(&mut self, v: VReg, k: ValueKind, ctx: Ctx) -> Res {
        match ctx {
            Ctx::Value(_) => Res::V(v),
            Ctx::Strict => {
                let r = self.new_reg();
                self.emit(box_instr(k, r, v));
                Res::R(r)
            }
            Ctx::Tail => {
                if strictness::ret_kind(self.ret).is_some() {
                    self.emit(Instr::RetV { reg: v });
                } else {
                    let r = self.new_reg();
                    self.emit(box_instr(k, r, v));
                    self.emit(Instr::Ret { reg: r });
                }
                Res::Done
            }
        }
    }

    fn strict(&mut self, e: &Expr) -> Reg {
        match self.expr(e, Ctx::Strict) {
            Res::R(r) => r,
            _ => unreachable!("strict context gives a register"),
        }
    }

    fn value(&mut self, e: &Expr, k: ValueKind) -> VReg {
        match self.expr(e, Ctx::Value(k)) {
            Res::V(v) => v,
            Res::R(r) => {
                let v = self.new_vreg();
                self.emit(Instr::Unbox { dst: v, src: r });
                v
            }
            Res::Done => unreachable!(),
        }
    }

    // ------------------------------------------------------------ heads

    fn head(&self, f: &Expr) -> Head {
        match f {
            Expr::Global(g) => {
                if let Some(p) = self.g.env.prims.get(g) {
                    return Head::Prim(p.clone());
                }
                match self.g.lp.sc(g) {
                    Some(sc) => match sc.kind {
                        ScKind::Fun => Head::Known(sc.params.len()),
                        ScKind::Thunk => Head::Thunk,
                        ScKind::Caf => Head::Caf,
                    },
                    None => Head::Unknown,
                }
            }
            Expr::Con(_) => Head::Con,
            _ => Head::Unknown,
        }
    }

    // ------------------------------------------------------------ expressions

    fn expr(&mut self, e: &Expr, ctx: Ctx) -> Res {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(v) => self.local(v, ctx),
            Expr::Lit(l) => self.lit(l, ctx),
            Expr::Lam(..) => {
                self.error("a lambda after lambda lifting".into());
                let r = self.new_reg();
                self.finish_reg(r, ctx)
            }
            Expr::Global(_) | Expr::Con(_) => {
                if let Expr::Global(g) = e {
                    if let Some(sc) = self.g.lp.sc(g) {
                        if sc.kind == ScKind::Thunk && sc.params.is_empty() {
                            let body = sc.body.clone();
                            return self.expr(&body, ctx);
                        }
                        if sc.kind == ScKind::Caf {
                            let r = self.lazy(e);
                            if ctx == Ctx::Tail {
                                self.emit(Instr::Enter { reg: r });
                                return Res::Done;
                            }
                            self.emit(Instr::Eval { reg: r });
                            return self.finish_reg(r, ctx);
                        }
                    }
                    if let Some(p) = self.g.env.prims.get(g) {
                        if p.arity() == 0 {
                            let p = p.clone();
                            return self.prim(&p, &[], ctx);
                        }
                    }
                }
                let r = self.lazy(e);
                self.finish_reg(r, ctx)
            }
            Expr::App(..) => self.app(e, ctx),
            Expr::Let(b, body) => {
                self.let_bind(b, body);
                self.expr(body, ctx)
            }
            Expr::Case(s, b, alts, def) => self.case(s, b, alts, def.as_deref(), ctx),
        }
    }

    fn local(&mut self, v: &Var, ctx: Ctx) -> Res {
        match self.env.get(&v.id).copied() {
            None => {
                self.error(format!("unbound variable {v}"));
                let r = self.new_reg();
                self.finish_reg(r, ctx)
            }
            Some(Loc::Unboxed { v: vr, kind }) => self.finish_v(vr, kind, ctx),
            Some(Loc::Boxed { reg, evald }) => {
                if ctx == Ctx::Tail && !evald && strictness::ret_kind(self.ret).is_none() {
                    self.emit(Instr::Enter { reg });
                    return Res::Done;
                }
                if let (Ctx::Value(_), Some(&vr)) = (ctx, self.unboxed.get(&v.id)) {
                    return Res::V(vr);
                }
                if !evald {
                    self.emit(Instr::Eval { reg });
                    self.env.insert(v.id, Loc::Boxed { reg, evald: true });
                }
                let res = self.finish_reg(reg, ctx);
                if let Res::V(vr) = res {
                    self.unboxed.insert(v.id, vr);
                }
                res
            }
        }
    }

    fn lit(&mut self, l: &Lit, ctx: Ctx) -> Res {
        if let Some((k, bits)) = lit_bits(l) {
            let v = self.new_vreg();
            self.emit(Instr::ConstV { dst: v, bits });
            return self.finish_v(v, k, ctx);
        }
        let r = self.lazy(&Expr::Lit(l.clone()));
        if let Lit::Str(_) = l {
            // A string literal is a lazily unpacked list: evaluate it.
            if ctx == Ctx::Tail {
                self.emit(Instr::Enter { reg: r });
                return Res::Done;
            }
            self.emit(Instr::Eval { reg: r });
        }
        self.finish_reg(r, ctx)
    }

    // ------------------------------------------------------------ lazy

    /// A closure for `e`, evaluating nothing.
    fn lazy(&mut self, e: &Expr) -> Reg {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(v) => match self.env.get(&v.id).copied() {
                Some(Loc::Boxed { reg, .. }) => reg,
                Some(Loc::Unboxed { v: vr, kind }) => {
                    if let Some(r) = self.boxed.get(&v.id) {
                        return *r;
                    }
                    let r = self.new_reg();
                    self.emit(box_instr(kind, r, vr));
                    self.boxed.insert(v.id, r);
                    r
                }
                None => {
                    if let Some((k, _, hole)) = &self.knot {
                        if k.contains(&v.id) {
                            // Filled in later.
                            return *hole;
                        }
                    }
                    self.error(format!("unbound variable {v}"));
                    self.new_reg()
                }
            },
            Expr::Lit(l) => {
                let r = self.new_reg();
                match l {
                    Lit::Str(s) => {
                        let idx = self.g.string(s);
                        self.emit(Instr::Str { dst: r, idx });
                    }
                    Lit::Integer(n) => {
                        let idx = self.g.prog.integers.len() as u32;
                        self.g.prog.integers.push(n.clone());
                        self.emit(Instr::Integer { dst: r, idx });
                    }
                    _ => {
                        let (k, bits) = lit_bits(l).unwrap();
                        let v = self.new_vreg();
                        self.emit(Instr::ConstV { dst: v, bits });
                        self.emit(box_instr(k, r, v));
                    }
                }
                r
            }
            Expr::Global(g) => {
                let r = self.new_reg();
                if let Some(sc) = self.g.lp.sc(g) {
                    let kind = sc.kind;
                    let id = self.g.lifted_id(g).unwrap();
                    match kind {
                        ScKind::Thunk => {
                            self.emit(Instr::MkThunk {
                                dst: r,
                                sc: id,
                                args: vec![],
                            });
                        }
                        ScKind::Fun | ScKind::Caf => {
                            let gid = self.g.global_id(id, kind == ScKind::Caf);
                            self.emit(Instr::Global { dst: r, g: gid });
                        }
                    }
                } else if let Some(p) = self.g.env.prims.get(g).cloned() {
                    let id = self.g.prim_wrapper(g);
                    let gid = self.g.global_id(id, p.arity() == 0);
                    self.emit(Instr::Global { dst: r, g: gid });
                } else {
                    self.error(format!("unknown global {g}"));
                }
                r
            }
            Expr::Con(c) => self.con_value(c),
            Expr::App(..) => {
                let (f, args) = spine(e);
                match (self.head(f), f) {
                    (Head::Thunk, Expr::Global(g)) => {
                        let id = self.g.lifted_id(g).unwrap();
                        self.alloc(args.as_slice(), None, |dst, args| Instr::MkThunk {
                            dst,
                            sc: id,
                            args,
                        })
                    }
                    (Head::Known(n), Expr::Global(g)) if args.len() < n => {
                        let id = self.g.lifted_id(g).unwrap();
                        self.alloc(args.as_slice(), None, |dst, args| Instr::MkPap {
                            dst,
                            sc: id,
                            args,
                        })
                    }
                    (Head::Prim(p), Expr::Global(g)) if args.len() < p.arity() => {
                        let id = self.g.prim_wrapper(g);
                        self.alloc(args.as_slice(), None, |dst, args| Instr::MkPap {
                            dst,
                            sc: id,
                            args,
                        })
                    }
                    (Head::Con, Expr::Con(c)) => {
                        let cd = &self.g.cons[c];
                        let (arity, strict, id) = (cd.arity, cd.strict.clone(), cd.id);
                        if args.len() < arity {
                            let id = self.g.con_wrapper(c);
                            self.alloc(args.as_slice(), None, |dst, args| Instr::MkPap {
                                dst,
                                sc: id,
                                args,
                            })
                        } else if args.len() == arity
                            && strict
                                .iter()
                                .zip(&args)
                                .all(|(s, a)| !*s || matches!(a, Expr::Lit(_)))
                        {
                            self.alloc(args.as_slice(), Some(&strict), |dst, args| Instr::MkCon {
                                dst,
                                con: id,
                                args,
                            })
                        } else {
                            self.thunk_of(e)
                        }
                    }
                    _ => self.thunk_of(e),
                }
            }
            _ => self.thunk_of(e),
        }
    }

    /// Allocates a node whose fields are the lazily built `args`
    /// (evaluated for the strict ones, which are literals).
    fn alloc(
        &mut self,
        args: &[&Expr],
        strict: Option<&Vec<bool>>,
        mk: impl FnOnce(Reg, Vec<Reg>) -> Instr,
    ) -> Reg {
        let mut regs = Vec::new();
        let mut pending = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if let Expr::Local(v) = a {
                if self
                    .knot
                    .as_ref()
                    .is_some_and(|(k, _, _)| k.contains(&v.id))
                {
                    pending.push((i as u16, v.id));
                }
            }
            let s = strict.is_some_and(|s| s[i]);
            regs.push(if s { self.strict(a) } else { self.lazy(a) });
        }
        let dst = self.new_reg();
        self.emit(mk(dst, regs));
        if let Some((_, fills, _)) = &mut self.knot {
            for (field, v) in pending {
                fills.push((dst, field, v));
            }
        }
        dst
    }

    /// A constructor as a value.
    fn con_value(&mut self, c: &Sym) -> Reg {
        let r = self.new_reg();
        let Some(cd) = self.g.cons.get(c) else {
            self.error(format!("unknown constructor {c}"));
            return r;
        };
        if cd.arity == 0 {
            let id = cd.id;
            self.emit(Instr::MkCon {
                dst: r,
                con: id,
                args: vec![],
            });
        } else {
            let id = self.g.con_wrapper(c);
            let gid = self.g.global_id(id, false);
            self.emit(Instr::Global { dst: r, g: gid });
        }
        r
    }

    /// A thunk for an expression the lifter did not lift (made here).
    fn thunk_of(&mut self, e: &Expr) -> Reg {
        let fvs = lift::free_vars(e);
        let i = self.g.extra.len();
        let name = format!("{}$g{}", self.name, i);
        self.g.extra.push(ScDef {
            name: Sym::from(name.as_str()),
            kind: ScKind::Thunk,
            params: fvs.clone(),
            body: e.clone(),
            parent: Sym::from(self.name.as_str()),
        });
        let id = self.g.sc_id(&name, || Job::Extra(i));
        let args: Vec<Expr> = fvs.into_iter().map(Expr::Local).collect();
        let refs: Vec<&Expr> = args.iter().collect();
        self.alloc(&refs, None, |dst, args| Instr::MkThunk {
            dst,
            sc: id,
            args,
        })
    }

    // ------------------------------------------------------------ let

    fn let_bind(&mut self, b: &Bind, body: &Expr) {
        match b {
            Bind::NonRec(v, rhs) => {
                if let Expr::Local(x) = rhs {
                    if let Some(loc) = self.env.get(&x.id).copied() {
                        self.bind(v, loc);
                        return;
                    }
                }
                let cheap = self.is_value_form(rhs);
                if !cheap && self.g.env.strict_vars(body).contains(&v.id) {
                    // let-to-case: evaluate now.
                    if let Some(k) = self.natural_kind(rhs) {
                        let vr = self.value(rhs, k);
                        self.bind(v, Loc::Unboxed { v: vr, kind: k });
                    } else {
                        let r = self.strict(rhs);
                        self.bind(
                            v,
                            Loc::Boxed {
                                reg: r,
                                evald: true,
                            },
                        );
                    }
                    return;
                }
                let r = self.lazy(rhs);
                let evald = self.is_value_form(rhs);
                self.bind(v, Loc::Boxed { reg: r, evald });
            }
            Bind::Rec(bs) => {
                let vars: HashSet<u32> = bs.iter().map(|(v, _)| v.id).collect();
                let saved = self.knot.take();
                let hole = self.new_reg();
                self.emit(Instr::MkCon {
                    dst: hole,
                    con: gph_code::UNIT,
                    args: Vec::new(),
                });
                self.knot = Some((vars, Vec::new(), hole));
                for (v, rhs) in bs {
                    let r = self.lazy(rhs);
                    let evald = self.is_value_form(rhs);
                    self.bind(v, Loc::Boxed { reg: r, evald });
                    if let Some((k, _, _)) = &mut self.knot {
                        k.remove(&v.id);
                    }
                }
                let (_, fills, _) = std::mem::replace(&mut self.knot, saved).unwrap();
                for (node, field, v) in fills {
                    let src = match self.env.get(&v) {
                        Some(Loc::Boxed { reg, .. }) => *reg,
                        _ => continue,
                    };
                    self.emit(Instr::Fill { node, field, src });
                }
            }
        }
    }

    /// Whether the expression, allocated, is already a value (WHNF).
    fn is_value_form(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(Lit::Int(_) | Lit::Double(_) | Lit::Char(_) | Lit::Integer(_)) => true,
            Expr::Con(_) => true,
            Expr::Global(g) => {
                matches!(self.head(&Expr::Global(g.clone())), Head::Known(_))
                    || self.g.env.prims.get(g).is_some_and(|p| p.arity() > 0)
            }
            Expr::App(f, args) => match self.head(f) {
                Head::Known(n) => args.len() < n,
                Head::Prim(p) => args.len() < p.arity(),
                Head::Con => true,
                _ => false,
            },
            _ => false,
        }
    }

    /// The unboxed kind an expression produces without boxing, if any.
    fn natural_kind(&self, e: &Expr) -> Option<ValueKind> {
        gph_syntax::stack::guard();
        match e {
            Expr::Lit(l) => lit_bits(l).map(|(k, _)| k),
            Expr::Local(v) => match self.env.get(&v.id) {
                Some(Loc::Unboxed { kind, .. }) => Some(*kind),
                _ => None,
            },
            Expr::App(..) => {
                let (f, args) = spine(e);
                match self.head(f) {
                    Head::Prim(p) if args.len() == p.arity() => match p.op {
                        Op::Bin(_) | Op::Un(_) => p.ret.unboxed(),
                        Op::Special(Special::Seq | Special::Pseq | Special::Par) => {
                            self.natural_kind(args[1])
                        }
                        _ => None,
                    },
                    Head::Known(n) if args.len() == n => match f {
                        Expr::Global(g) => self
                            .g
                            .env
                            .info
                            .workers
                            .get(g)
                            .and_then(|w| strictness::ret_kind(w.ret)),
                        _ => None,
                    },
                    Head::Thunk => match f {
                        Expr::Global(g) => {
                            let body = self.g.lp.sc(g).map(|s| s.body.clone());
                            body.and_then(|b| self.natural_kind(&b))
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
            Expr::Let(_, body) => {
                let _ = body;
                None
            }
            _ => None,
        }
    }

    // ------------------------------------------------------------ application

    fn app(&mut self, e: &Expr, ctx: Ctx) -> Res {
        gph_syntax::stack::guard();
        let (f, args) = spine(e);
        match self.head(f) {
            Head::Prim(p) => {
                if args.len() < p.arity() {
                    let r = self.lazy(e);
                    return self.finish_reg(r, ctx);
                }
                if args.len() == p.arity() {
                    return self.prim(&p, &args, ctx);
                }
                let n = p.arity();
                let r = match self.prim(&p, &args[..n], Ctx::Strict) {
                    Res::R(r) => r,
                    _ => unreachable!(),
                };
                self.apply(r, &args[n..], ctx)
            }
            Head::Thunk => {
                // Needed now: compile the thunk's body in place (its
                // parameters are our variables).
                let Expr::Global(g) = f else { unreachable!() };
                let sc = self.g.lp.sc(g).unwrap();
                let body = sc.body.clone();
                let params = sc.params.clone();
                self.branch_inline(&params, &args, &body, ctx)
            }
            Head::Known(n) => {
                let Expr::Global(g) = f else { unreachable!() };
                if args.len() < n {
                    let r = self.lazy(e);
                    return self.finish_reg(r, ctx);
                }
                let g = g.clone();
                if args.len() == n {
                    return self.known_call(&g, &args, ctx);
                }
                let r = match self.known_call(&g, &args[..n], Ctx::Strict) {
                    Res::R(r) => r,
                    _ => unreachable!(),
                };
                self.apply(r, &args[n..], ctx)
            }
            Head::Con => {
                let Expr::Con(c) = f else { unreachable!() };
                let Some(cd) = self.g.cons.get(c) else {
                    self.error(format!("unknown constructor {c}"));
                    let r = self.new_reg();
                    return self.finish_reg(r, ctx);
                };
                let (arity, strict, id) = (cd.arity, cd.strict.clone(), cd.id);
                if args.len() < arity {
                    let r = self.lazy(e);
                    return self.finish_reg(r, ctx);
                }
                if args.len() > arity {
                    self.error(format!("constructor {c} applied to too many arguments"));
                }
                let r = self.alloc(&args[..arity], Some(&strict), |dst, args| Instr::MkCon {
                    dst,
                    con: id,
                    args,
                });
                self.finish_reg(r, ctx)
            }
            Head::Caf | Head::Unknown => {
                let r = self.strict(f);
                self.apply(r, &args, ctx)
            }
        }
    }

    /// Compiles a thunk body in place; the parameters are bound to the
    /// arguments when they differ (they are normally the same variables).
    fn branch_inline(&mut self, params: &[Var], args: &[&Expr], body: &Expr, ctx: Ctx) -> Res {
        for (p, a) in params.iter().zip(args) {
            match a {
                Expr::Local(v) if v.id == p.id => {}
                _ => {
                    let r = self.lazy(a);
                    self.bind(
                        p,
                        Loc::Boxed {
                            reg: r,
                            evald: false,
                        },
                    );
                }
            }
        }
        self.expr(body, ctx)
    }

    /// Applies the evaluated function in `r` to arguments.
    fn apply(&mut self, r: Reg, args: &[&Expr], ctx: Ctx) -> Res {
        let regs: Vec<Reg> = args.iter().map(|a| self.lazy(a)).collect();
        if ctx == Ctx::Tail && self.ret == RetKind::Boxed {
            self.emit(Instr::TailApply { f: r, args: regs });
            return Res::Done;
        }
        let dst = self.new_reg();
        self.emit(Instr::Apply {
            f: r,
            args: regs,
            dst,
        });
        self.finish_reg(dst, ctx)
    }

    /// A saturated call of a known function.
    fn known_call(&mut self, g: &Sym, args: &[&Expr], ctx: Ctx) -> Res {
        let strict = self.g.env.info.strict.get(g).cloned().unwrap_or_default();
        if let Some(w) = self.g.env.info.workers.get(g).cloned() {
            let id = self.g.worker_id(g).unwrap();
            let mut regs = Vec::new();
            let mut vregs = Vec::new();
            for (i, (a, k)) in args.iter().zip(&w.params).enumerate() {
                match k {
                    Some(k) => vregs.push(self.value(a, *k)),
                    None => regs.push(if strict.get(i).copied().unwrap_or(false) {
                        self.strict(a)
                    } else {
                        self.lazy(a)
                    }),
                }
            }
            return self.call(id, regs, vregs, w.ret, ctx);
        }
        let id = self.g.lifted_id(g).unwrap();
        let regs: Vec<Reg> = args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                if strict.get(i).copied().unwrap_or(false) {
                    self.strict(a)
                } else {
                    self.lazy(a)
                }
            })
            .collect();
        self.call(id, regs, vec![], RetKind::Boxed, ctx)
    }

    /// A call of the supercombinator `sc`, which returns `ret`: a tail call
    /// when it is in tail position of a function that returns the same
    /// way, else a call whose result `ctx` takes.
    fn call(&mut self, sc: ScId, args: Vec<Reg>, vargs: Vec<VReg>, ret: RetKind, ctx: Ctx) -> Res {
        if ctx == Ctx::Tail && self.ret == ret {
            self.emit(Instr::TailCall { sc, args, vargs });
            return Res::Done;
        }
        match strictness::ret_kind(ret) {
            None => {
                let dst = self.new_reg();
                self.emit(Instr::Call {
                    sc,
                    args,
                    vargs,
                    dst,
                });
                self.finish_reg(dst, ctx)
            }
            Some(k) => {
                let dst = self.new_vreg();
                self.emit(Instr::CallV {
                    sc,
                    args,
                    vargs,
                    dst,
                });
                self.finish_v(dst, k, ctx)
            }
        }
    }

    // ------------------------------------------------------------ primitives

    fn prim(&mut self, p: &PrimInfo, args: &[&Expr], ctx: Ctx) -> Res {
        gph_syntax::stack::guard();
        match p.op {
            Op::Bin(op) => {
                let k = p.args[0].unboxed().unwrap();
                let a = self.value(args[0], k);
                let b = self.value(args[1], k);
                let dst = self.new_vreg();
                self.emit(Instr::OpV { op, dst, a, b });
                self.finish_v(dst, p.ret.unboxed().unwrap(), ctx)
            }
            Op::Un(op) => {
                let k = p.args[0].unboxed().unwrap();
                let a = self.value(args[0], k);
                let dst = self.new_vreg();
                self.emit(Instr::UnOpV { op, dst, a });
                self.finish_v(dst, p.ret.unboxed().unwrap(), ctx)
            }
            Op::Cmp(cmp) => {
                let k = p.args[0].unboxed().unwrap();
                let a = self.value(args[0], k);
                let b = self.value(args[1], k);
                let dst = self.new_reg();
                self.emit(Instr::CmpBool { cmp, dst, a, b });
                self.finish_reg(dst, ctx)
            }
            Op::Rt(prim) => {
                let regs: Vec<Reg> = args
                    .iter()
                    .zip(&p.args)
                    .map(|(a, t)| {
                        if *t == Ty::Str {
                            let r = self.lazy(a);
                            self.deep_string(r)
                        } else if t.strict() {
                            self.strict(a)
                        } else {
                            self.lazy(a)
                        }
                    })
                    .collect();
                let dst = self.new_reg();
                self.emit(Instr::Prim {
                    prim,
                    dst,
                    args: regs,
                });
                self.finish_reg(dst, ctx)
            }
            Op::Special(s) => self.special(s, args, ctx),
        }
    }

    fn special(&mut self, s: Special, args: &[&Expr], ctx: Ctx) -> Res {
        match s {
            Special::Seq | Special::Pseq => {
                let done = match args[0] {
                    Expr::Local(v) => matches!(
                        self.env.get(&v.id),
                        Some(Loc::Unboxed { .. } | Loc::Boxed { evald: true, .. })
                    ),
                    _ => false,
                };
                if !done {
                    self.strict(args[0]);
                }
                self.expr(args[1], ctx)
            }
            Special::Par => {
                let r = self.lazy(args[0]);
                self.emit(Instr::Par { reg: r });
                self.expr(args[1], ctx)
            }
            Special::Instantiate => {
                let e = Expr::app(args[0].clone(), vec![args[1].clone()]);
                self.expr(&e, ctx)
            }
            Special::PerformIO => {
                // case m () of IORes x -> x (m evaluated first: a lifted
                // thunk's arguments are its free variables, not the world)
                let m = self.strict(args[0]);
                let w = self.con_value(&Sym::from("()"));
                let res = self.new_reg();
                self.emit(Instr::Apply {
                    f: m,
                    args: vec![w],
                    dst: res,
                });
                let x = self.io_result(res);
                self.expr(&Expr::Local(x), ctx)
            }
            Special::Error => {
                let r = self.lazy(args[0]);
                let s = self.deep_string(r);
                let dst = self.new_reg();
                self.emit(Instr::Prim {
                    prim: Prim::Raise,
                    dst,
                    args: vec![s],
                });
                match ctx {
                    Ctx::Value(_) => {
                        let v = self.new_vreg();
                        self.emit(Instr::ConstV { dst: v, bits: 0 });
                        Res::V(v)
                    }
                    _ => {
                        if ctx == Ctx::Tail && self.ret != RetKind::Boxed {
                            let v = self.new_vreg();
                            self.emit(Instr::ConstV { dst: v, bits: 0 });
                            self.emit(Instr::RetV { reg: v });
                            return Res::Done;
                        }
                        self.finish_reg(dst, ctx)
                    }
                }
            }
            Special::ReturnIO => {
                let a = self.lazy(args[0]);
                let dst = self.new_reg();
                self.emit(Instr::MkCon {
                    dst,
                    con: IORES,
                    args: vec![a],
                });
                self.finish_reg(dst, ctx)
            }
            Special::BindIO => {
                // case m w of IORes x -> k x w
                let m_w = Expr::app(args[0].clone(), vec![args[2].clone()]);
                let res = self.strict(&m_w);
                let x = self.io_result(res);
                let k = Expr::app(args[1].clone(), vec![Expr::Local(x), args[2].clone()]);
                self.expr(&k, ctx)
            }
            Special::PutStr => {
                let h = self.strict(args[0]);
                let s = self.lazy(args[1]);
                let w = self.lazy(args[2]);
                let id = self.g.helper(Job::PutStr);
                self.call(id, vec![s, w, h], vec![], RetKind::Boxed, ctx)
            }
            Special::ArrIndex => {
                let arr = self.strict(args[0]);
                let i = self.strict(args[1]);
                let dst = self.new_reg();
                self.emit(Instr::Prim {
                    prim: Prim::ArrIndex,
                    dst,
                    args: vec![arr, i],
                });
                // The element may be unevaluated.
                if ctx == Ctx::Tail && strictness::ret_kind(self.ret).is_none() {
                    self.emit(Instr::Enter { reg: dst });
                    return Res::Done;
                }
                self.emit(Instr::Eval { reg: dst });
                self.finish_reg(dst, ctx)
            }
            Special::RaiseIO => {
                let e = self.lazy(args[0]);
                let m = self.lazy(args[1]);
                let w = self.lazy(args[2]);
                let s = self.deep_string(m);
                let dst = self.new_reg();
                self.emit(Instr::Prim {
                    prim: Prim::RaiseIO,
                    dst,
                    args: vec![e, s, w],
                });
                self.finish_reg(dst, ctx)
            }
            Special::CatchIO => {
                let m = self.strict(args[0]);
                let h = self.strict(args[1]);
                let w = self.lazy(args[2]);
                let dst = self.new_reg();
                self.emit(Instr::Prim {
                    prim: Prim::CatchIO,
                    dst,
                    args: vec![m, h, w],
                });
                self.finish_reg(dst, ctx)
            }
        }
    }

    // ------------------------------------------------------------ case

    fn case(
        &mut self,
        scrut: &Expr,
        b: &Var,
        alts: &[crate::core::Alt],
        def: Option<&Expr>,
        ctx: Ctx,
    ) -> Res {
        gph_syntax::stack::guard();
        // The join point for non-tail contexts.
        let slot = match ctx {
            Ctx::Tail => Res::Done,
            Ctx::Strict => Res::R(self.new_reg()),
            Ctx::Value(_) => Res::V(self.new_vreg()),
        };
        let mut joins: Vec<usize> = Vec::new();
        // Each branch: compile in ctx, move to the slot, jump to the join.
        let mut arm = |this: &mut Self, body: &Expr| {
            let r = this.expr(body, ctx);
            match (&slot, r) {
                (Res::R(d), Res::R(r)) if *d != r => {
                    this.emit(Instr::Move { dst: *d, src: r });
                }
                (Res::V(d), Res::V(v)) if *d != v => {
                    this.emit(Instr::MoveV { dst: *d, src: v });
                }
                _ => {}
            }
            if ctx != Ctx::Tail {
                joins.push(this.emit(Instr::Jump { target: 0 }));
            }
        };

        if alts.is_empty() {
            // Evaluation only: `case e of b { _ -> body }`.
            if let Some(k) = self.natural_kind(scrut) {
                let v = self.value(scrut, k);
                self.bind(b, Loc::Unboxed { v, kind: k });
            } else {
                let r = self.strict(scrut);
                self.bind(
                    b,
                    Loc::Boxed {
                        reg: r,
                        evald: true,
                    },
                );
            }
            let body = def.expect("a case has an alternative");
            let r = self.expr(body, ctx);
            return r;
        }

        match &alts[0].con {
            AltCon::Lit(l) if lit_bits(l).is_some() => {
                let (k, _) = lit_bits(l).unwrap();
                let v = self.value(scrut, k);
                self.bind(b, Loc::Unboxed { v, kind: k });
                let mut branches = Vec::new();
                for a in alts {
                    let AltCon::Lit(l) = &a.con else { continue };
                    let Some((_, bits)) = lit_bits(l) else {
                        continue;
                    };
                    let at = if k == ValueKind::Double {
                        let c = self.new_vreg();
                        self.emit(Instr::ConstV { dst: c, bits });
                        self.emit(Instr::BranchCmp {
                            cmp: Cmp::DEq,
                            a: v,
                            b: c,
                            target: 0,
                        })
                    } else {
                        self.emit(Instr::BranchEqConst {
                            a: v,
                            bits,
                            target: 0,
                        })
                    };
                    branches.push(at);
                }
                match def {
                    Some(d) => self.branch(|this| arm(this, d)),
                    None => self.branch(|this| {
                        let e = unreachable_expr(this);
                        arm(this, &e)
                    }),
                }
                for (a, at) in alts.iter().zip(branches) {
                    let pc = self.pc();
                    self.patch(at, pc);
                    self.branch(|this| arm(this, &a.body));
                }
            }
            AltCon::Lit(l) => {
                // Integer (or string) literals: compare with the primitive.
                let r = self.strict(scrut);
                self.bind(
                    b,
                    Loc::Boxed {
                        reg: r,
                        evald: true,
                    },
                );
                let mut branches = Vec::new();
                for a in alts {
                    let AltCon::Lit(l) = &a.con else { continue };
                    let c = self.lazy(&Expr::Lit(l.clone()));
                    if matches!(l, Lit::Str(_)) {
                        self.emit(Instr::Eval { reg: c });
                    }
                    let t = self.new_reg();
                    self.emit(Instr::Prim {
                        prim: Prim::IntegerEq,
                        dst: t,
                        args: vec![r, c],
                    });
                    let sw = self.emit(Instr::Switch {
                        reg: t,
                        targets: vec![0, 0],
                    });
                    let next = self.pc();
                    branches.push(sw);
                    if let Instr::Switch { targets, .. } = &mut self.code[sw] {
                        targets[0] = next;
                    }
                }
                let _ = l;
                match def {
                    Some(d) => self.branch(|this| arm(this, d)),
                    None => self.branch(|this| {
                        let e = unreachable_expr(this);
                        arm(this, &e)
                    }),
                }
                for (a, sw) in alts.iter().zip(branches) {
                    let pc = self.pc();
                    if let Instr::Switch { targets, .. } = &mut self.code[sw] {
                        targets[1] = pc;
                    }
                    self.branch(|this| arm(this, &a.body));
                }
            }
            AltCon::Con(c0) => {
                let siblings = self.g.cons.get(c0).map(|c| c.siblings).unwrap_or(1);
                // A Bool case on a comparison: branch on it directly.
                if let Some((cmp, x, y)) = self.comparison(scrut) {
                    if !self.used(b) {
                        let va = self.value(x.0, x.1);
                        let vb = self.value(y, x.1);
                        let at = self.emit(Instr::BranchCmp {
                            cmp,
                            a: va,
                            b: vb,
                            target: 0,
                        });
                        let find = |tag: usize| {
                            alts.iter()
                                .find(|a| {
                                    matches!(&a.con, AltCon::Con(c) if self.g.cons.get(c).is_some_and(|cd| cd.tag == tag))
                                })
                                .map(|a| &a.body)
                                .or(def)
                        };
                        let (fb, tb) = (find(0), find(1));
                        let ue = unreachable_expr(self);
                        self.branch(|this| arm(this, fb.unwrap_or(&ue)));
                        let pc = self.pc();
                        self.patch(at, pc);
                        self.branch(|this| arm(this, tb.unwrap_or(&ue)));
                        return self.join(slot, joins);
                    }
                }
                let r = self.strict(scrut);
                self.bind(
                    b,
                    Loc::Boxed {
                        reg: r,
                        evald: true,
                    },
                );
                let mut targets: Vec<Option<usize>> = vec![None; siblings];
                let sw = if siblings > 1 {
                    Some(self.emit(Instr::Switch {
                        reg: r,
                        targets: vec![0; siblings],
                    }))
                } else {
                    None
                };
                // Default first (its pc for the missing tags).
                let mut default_pc = None;
                if sw.is_some() && alts.len() < siblings {
                    default_pc = Some(self.pc());
                    match def {
                        Some(d) => self.branch(|this| arm(this, d)),
                        None => self.branch(|this| {
                            let e = unreachable_expr(this);
                            arm(this, &e)
                        }),
                    }
                }
                for a in alts {
                    let AltCon::Con(c) = &a.con else { continue };
                    let Some(cd) = self.g.cons.get(c) else {
                        self.error(format!("unknown constructor {c}"));
                        continue;
                    };
                    let tag = cd.tag;
                    if tag < targets.len() {
                        targets[tag] = Some(self.pc() as usize);
                    }
                    self.branch(|this| {
                        this.fields(r, &a.vars);
                        arm(this, &a.body)
                    });
                }
                if let Some(sw) = sw {
                    let dflt = default_pc.unwrap_or(0);
                    if let Instr::Switch { targets: t, .. } = &mut self.code[sw] {
                        for (i, x) in targets.iter().enumerate() {
                            t[i] = x.map(|p| p as Pc).unwrap_or(dflt);
                        }
                    }
                }
            }
        }
        self.join(slot, joins)
    }

    fn join(&mut self, slot: Res, joins: Vec<usize>) -> Res {
        let pc = self.pc();
        for j in joins {
            self.patch(j, pc);
        }
        match slot {
            Res::R(r) => {
                // Registers above the slot are free again.
                Res::R(r)
            }
            s => s,
        }
    }

    /// Binds the fields of the evaluated constructor in `r` that are used.
    fn fields(&mut self, r: Reg, vars: &[Var]) {
        if vars.is_empty() {
            return;
        }
        for (i, v) in vars.iter().enumerate() {
            if self.g.occurring.contains(&v.id) {
                let d = self.new_reg();
                self.emit(Instr::Field {
                    dst: d,
                    reg: r,
                    field: i as u16,
                });
                self.bind(
                    v,
                    Loc::Boxed {
                        reg: d,
                        evald: false,
                    },
                );
            }
        }
    }

    /// Whether a variable is used (see `Gen::occurring`).
    fn used(&self, b: &Var) -> bool {
        self.g.occurring.contains(&b.id)
    }

    /// A saturated comparison primitive: (cmp, (left, kind), right).
    fn comparison<'e>(&self, e: &'e Expr) -> Option<(Cmp, (&'e Expr, ValueKind), &'e Expr)> {
        let (f, args) = spine(e);
        if let Head::Prim(p) = self.head(f) {
            if let (Op::Cmp(c), 2) = (p.op, args.len()) {
                return Some((c, (args[0], p.args[0].unboxed()?), args[1]));
            }
        }
        None
    }
}

/// `error "..."` for alternatives that cannot happen.
fn unreachable_expr(f: &FnGen) -> Expr {
    let err =
        f.g.lp
            .prims
            .iter()
            .find(|(_, n, _)| &**n == "error")
            .map(|(o, _, _)| o.clone())
            .unwrap_or_else(|| Sym::from("Gph.Prim.primError"));
    Expr::app(
        Expr::Global(err),
        vec![Expr::Lit(Lit::Str(Sym::from(
            "internal error: no alternative",
        )))],
    )
}

/// Every variable occurring in an expression.
fn used_vars_in(e: &Expr, out: &mut HashSet<u32>) {
    gph_syntax::stack::guard();
    if let Expr::Local(v) = e {
        out.insert(v.id);
    }
    e.for_each_child(|c| used_vars_in(c, out));
}

/// Generates the code of a lifted program.
pub fn generate(
    lp: &lift::Program,
    info: Info,
    main: Option<&str>,
) -> (code::Program, Vec<String>) {
    Gen::new(lp, info).program(main)
}

/// Generates the code of one top-level definition (and what it needs).
pub fn generate_one(lp: &lift::Program, info: Info, name: &str) -> (code::Program, Vec<String>) {
    Gen::new(lp, info).only(name)
}
