//! The checker of `code::Program`s: what the machine may assume about the
//! code it runs. `load` runs it before decoding (so the reducer can skip
//! checks in its loop), and the compiler's tests run it over every program
//! of the corpus, so code generator bugs show up as messages, not crashes.
//!
//! Checked: the built-in constructors at their positions; every register
//! below `nregs`/`nvregs`; every jump target inside the code; no path runs
//! off the end; `Call`/`CallV`/`TailCall` match the callee's arity, varity
//! and return kind; `Ret`/`Enter`/`TailApply` only in boxed-returning
//! code, `RetV` only in unboxed; thunks and CAFs boxed with no unboxed
//! parameters, CAFs of arity 0; `MkThunk` of a thunk with all its
//! arguments; `MkPap` of a boxed function with fewer arguments than its
//! arity; `MkCon` with the constructor's arity; `Global`s of the right
//! kind; literal indices in range; `main` present.

use crate::*;

pub fn validate(p: &Program) -> Result<(), Vec<String>> {
    let mut errs = Vec::new();
    // Positions, tags and arities are the contract; names are for display.
    let builtin = [
        (UNIT, 0, 0),
        (NIL, 0, 0),
        (CONS, 1, 2),
        (FALSE, 0, 0),
        (TRUE, 1, 0),
        (IORES, 0, 1),
    ];
    for (id, tag, arity) in builtin {
        match p.cons.get(id.0 as usize) {
            None => errs.push(format!("built-in constructor {} missing", id.0)),
            Some(c) if c.tag != tag || c.arity != arity => {
                errs.push(format!("built-in constructor {} is {:?}", id.0, c))
            }
            Some(_) => {}
        }
    }
    for (i, c) in p.cons.iter().enumerate() {
        if c.tag >= c.siblings {
            errs.push(format!(
                "constructor {i} {}: tag {} of {}",
                c.name, c.tag, c.siblings
            ));
        }
    }
    if p.globals.len() != p.global_names.len() {
        errs.push("globals and global_names differ in length".into());
    }
    for (i, g) in p.globals.iter().enumerate() {
        let (sc, caf) = match g {
            Global::Fun(s) => (*s, false),
            Global::Caf(s) => (*s, true),
        };
        let Some(s) = p.scs.get(sc.0 as usize) else {
            errs.push(format!("global {i} names no supercombinator"));
            continue;
        };
        if caf && (s.kind != ScKind::Caf || s.arity != 0) {
            errs.push(format!(
                "global {i} ({}) is a CAF of kind {:?}",
                s.name, s.kind
            ));
        }
        if !caf && (s.kind != ScKind::Fun || s.varity != 0 || s.returns != RetKind::Boxed) {
            errs.push(format!("global {i} ({}) is not a boxed function", s.name));
        }
    }
    match p.main {
        None => errs.push("no main".into()),
        Some(g) if g.0 as usize >= p.globals.len() => errs.push("main out of range".into()),
        _ => {}
    }
    for (i, sc) in p.scs.iter().enumerate() {
        check_sc(p, i, sc, &mut errs);
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

fn check_sc(p: &Program, _i: usize, sc: &Supercomb, errs: &mut Vec<String>) {
    let mut err = |m: String| errs.push(format!("{}: {m}", sc.name));
    if sc.kind != ScKind::Fun && (sc.varity != 0 || sc.returns != RetKind::Boxed) {
        err(format!("a {:?} with unboxed parameters or result", sc.kind));
    }
    if sc.kind == ScKind::Caf && sc.arity != 0 {
        err("a CAF with parameters".into());
    }
    if sc.arity > sc.nregs || sc.varity > sc.nvregs {
        err("fewer registers than parameters".into());
    }
    if sc.code.is_empty() {
        err("no code".into());
        return;
    }
    let n = sc.code.len() as Pc;
    let boxed = sc.returns == RetKind::Boxed;
    let callee = |id: ScId| p.scs.get(id.0 as usize);
    for (pc, ins) in sc.code.iter().enumerate() {
        let mut regs: Vec<Reg> = Vec::new();
        let mut vregs: Vec<VReg> = Vec::new();
        let mut targets: Vec<Pc> = Vec::new();
        let mut at = |m: String| err(format!("@{pc} {m}"));
        use Instr::*;
        let terminal = matches!(
            ins,
            Jump { .. }
                | Switch { .. }
                | TailCall { .. }
                | TailApply { .. }
                | Ret { .. }
                | RetV { .. }
                | Enter { .. }
        );
        match ins {
            Move { dst, src } => regs.extend([*dst, *src]),
            MoveV { dst, src } => vregs.extend([*dst, *src]),
            Global { dst, g } => {
                regs.push(*dst);
                if g.0 as usize >= p.globals.len() {
                    at("global out of range".into());
                }
            }
            ConstV { dst, .. } => vregs.push(*dst),
            Integer { dst, idx } => {
                regs.push(*dst);
                if *idx as usize >= p.integers.len() {
                    at("integer out of range".into());
                }
            }
            Str { dst, idx } => {
                regs.push(*dst);
                if *idx as usize >= p.strings.len() {
                    at("string out of range".into());
                }
            }
            BoxInt { dst, src } | BoxDouble { dst, src } | BoxChar { dst, src } => {
                regs.push(*dst);
                vregs.push(*src);
            }
            Unbox { dst, src } => {
                vregs.push(*dst);
                regs.push(*src);
            }
            MkCon { dst, con, args } => {
                regs.push(*dst);
                regs.extend(args);
                match p.cons.get(con.0 as usize) {
                    None => at("constructor out of range".into()),
                    Some(c) if c.arity as usize != args.len() => at(format!(
                        "constructor {} of arity {} with {} fields",
                        c.name,
                        c.arity,
                        args.len()
                    )),
                    _ => {}
                }
            }
            MkThunk { dst, sc: s, args } | MkPap { dst, sc: s, args } => {
                regs.push(*dst);
                regs.extend(args);
                let thunk = matches!(ins, MkThunk { .. });
                let what = if thunk { "thunk" } else { "pap" };
                match callee(*s) {
                    None => at(format!("{what} out of range")),
                    Some(c) => {
                        // A thunk takes all its free variables; a partial
                        // application fewer arguments than a boxed
                        // function's arity.
                        let fits = if thunk {
                            c.kind == ScKind::Thunk && c.arity as usize == args.len()
                        } else {
                            c.kind == ScKind::Fun
                                && c.arity as usize > args.len()
                                && c.varity == 0
                                && c.returns == RetKind::Boxed
                        };
                        if !fits {
                            at(format!(
                                "{what} of {} ({:?}, arity {}) with {} arguments",
                                c.name,
                                c.kind,
                                c.arity,
                                args.len()
                            ));
                        }
                    }
                }
            }
            Fill { node, src, .. } => regs.extend([*node, *src]),
            Eval { reg } => regs.push(*reg),
            Switch { reg, targets: t } => {
                regs.push(*reg);
                targets.extend(t);
                if t.is_empty() {
                    at("switch without targets".into());
                }
            }
            Fields { reg, dst, n } => {
                regs.push(*reg);
                if *n > 0 {
                    regs.push(Reg(dst.0 + n - 1));
                }
            }
            Field { dst, reg, .. } => regs.extend([*dst, *reg]),
            Jump { target } => targets.push(*target),
            BranchCmp { a, b, target, .. } => {
                vregs.extend([*a, *b]);
                targets.push(*target);
            }
            BranchEqConst { a, target, .. } => {
                vregs.push(*a);
                targets.push(*target);
            }
            OpV { dst, a, b, .. } => vregs.extend([*dst, *a, *b]),
            UnOpV { dst, a, .. } => vregs.extend([*dst, *a]),
            CmpBool { dst, a, b, .. } => {
                regs.push(*dst);
                vregs.extend([*a, *b]);
            }
            Prim { dst, args, prim } => {
                regs.push(*dst);
                regs.extend(args);
                let want = prim.arity();
                if want != args.len() {
                    at(format!("{prim:?} with {} arguments", args.len()));
                }
            }
            Call {
                sc: s,
                args,
                vargs,
                dst,
            } => {
                regs.extend(args);
                regs.push(*dst);
                vregs.extend(vargs);
                check_call(p, *s, args.len(), vargs.len(), false, &mut at);
            }
            CallV {
                sc: s,
                args,
                vargs,
                dst,
            } => {
                regs.extend(args);
                vregs.extend(vargs);
                vregs.push(*dst);
                check_call(p, *s, args.len(), vargs.len(), true, &mut at);
            }
            TailCall { sc: s, args, vargs } => {
                regs.extend(args);
                vregs.extend(vargs);
                match callee(*s) {
                    None => at("tail call out of range".into()),
                    Some(c) => {
                        if c.arity as usize != args.len() || c.varity as usize != vargs.len() {
                            at(format!(
                                "tail call of {} (arity {} + {}) with {} + {} arguments",
                                c.name,
                                c.arity,
                                c.varity,
                                args.len(),
                                vargs.len()
                            ));
                        }
                        if c.kind != ScKind::Fun {
                            at(format!("tail call of {} of kind {:?}", c.name, c.kind));
                        }
                        if c.returns != sc.returns {
                            at(format!(
                                "tail call of {} returning {:?} from {:?}",
                                c.name, c.returns, sc.returns
                            ));
                        }
                    }
                }
            }
            Apply { f, args, dst } => {
                regs.push(*f);
                regs.extend(args);
                regs.push(*dst);
                if args.is_empty() {
                    at("apply to no arguments".into());
                }
            }
            TailApply { f, args } => {
                regs.push(*f);
                regs.extend(args);
                if !boxed {
                    at("tailapply in unboxed code".into());
                }
                if args.is_empty() {
                    at("apply to no arguments".into());
                }
            }
            Ret { reg } => {
                regs.push(*reg);
                if !boxed {
                    at("ret in unboxed code".into());
                }
            }
            RetV { reg } => {
                vregs.push(*reg);
                if boxed {
                    at("retv in boxed code".into());
                }
            }
            Enter { reg } => {
                regs.push(*reg);
                if !boxed {
                    at("enter in unboxed code".into());
                }
            }
            Par { reg } => regs.push(*reg),
        }
        for r in regs {
            if r.0 >= sc.nregs {
                at(format!("{r} out of {} registers", sc.nregs));
            }
        }
        for v in vregs {
            if v.0 >= sc.nvregs {
                at(format!("{v} out of {} value registers", sc.nvregs));
            }
        }
        for t in targets {
            if t >= n {
                at(format!("jump to @{t} out of {n}"));
            }
        }
        if !terminal && pc as Pc + 1 >= n {
            at("falls off the end".into());
        }
    }
}

fn check_call(p: &Program, s: ScId, n: usize, nv: usize, is_v: bool, at: &mut impl FnMut(String)) {
    match p.scs.get(s.0 as usize) {
        None => at("call out of range".into()),
        Some(c) => {
            if c.arity as usize != n || c.varity as usize != nv {
                at(format!(
                    "call of {} (arity {} + {}) with {} + {} arguments",
                    c.name, c.arity, c.varity, n, nv
                ));
            }
            if c.kind != ScKind::Fun {
                at(format!("call of {} of kind {:?}", c.name, c.kind));
            }
            if is_v == (c.returns == RetKind::Boxed) {
                at(format!(
                    "{} of {} returning {:?}",
                    if is_v { "callv" } else { "call" },
                    c.name,
                    c.returns
                ));
            }
        }
    }
}
