//! A small assembler: code whose jumps name labels, resolved when the code
//! is finished, so that hand-written code (the code generator's helpers,
//! tests) never counts instructions to place a jump. The code generator's
//! own jumps, emitted forward and patched once their target is known, go
//! through `set_targets` too.

use crate::{Instr, Pc};
use std::collections::HashMap;
use std::hash::Hash;

/// Code being written, with jumps to labels of type `L`.
pub struct Asm<L> {
    code: Vec<Instr>,
    at: HashMap<L, Pc>,
    fix: Vec<(usize, Vec<L>)>,
}

impl<L: Copy + Eq + Hash + std::fmt::Debug> Default for Asm<L> {
    fn default() -> Self {
        Asm {
            code: Vec::new(),
            at: HashMap::new(),
            fix: Vec::new(),
        }
    }
}

impl<L: Copy + Eq + Hash + std::fmt::Debug> Asm<L> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an instruction that does not jump.
    pub fn push(&mut self, i: Instr) {
        self.code.push(i);
    }

    /// Places the label `l` at the next instruction.
    pub fn label(&mut self, l: L) {
        let old = self.at.insert(l, self.code.len() as Pc);
        assert!(old.is_none(), "label {l:?} placed twice");
    }

    /// Appends the jump `i`, whose targets become the labels `to` (a
    /// Switch's, in order; a Jump's or a branch's, the one).
    pub fn jump(&mut self, i: Instr, to: &[L]) {
        self.fix.push((self.code.len(), to.to_vec()));
        self.code.push(i);
    }

    /// The code, every jump pointing at its labels.
    pub fn finish(mut self) -> Vec<Instr> {
        for (i, ls) in std::mem::take(&mut self.fix) {
            let ts: Vec<Pc> = ls
                .iter()
                .map(|l| {
                    *self
                        .at
                        .get(l)
                        .unwrap_or_else(|| panic!("label {l:?} not placed"))
                })
                .collect();
            set_targets(&mut self.code[i], &ts);
        }
        self.code
    }
}

/// Hand-written code as a list (the runtime's tests write machine code
/// so): an instruction, a label (placed at the next instruction), or a
/// jump to labels.
pub enum Item<L> {
    I(Instr),
    At(L),
    To(Instr, Vec<L>),
}

/// The code of `items`, every jump pointing at its labels.
pub fn assemble<L: Copy + Eq + Hash + std::fmt::Debug>(
    items: impl IntoIterator<Item = Item<L>>,
) -> Vec<Instr> {
    let mut a = Asm::new();
    for item in items {
        match item {
            Item::I(i) => a.push(i),
            Item::At(l) => a.label(l),
            Item::To(i, ls) => a.jump(i, &ls),
        }
    }
    a.finish()
}

/// Points the jump `i` at `ts`: all of them for a Switch, the first for a
/// Jump or a branch.
pub fn set_targets(i: &mut Instr, ts: &[Pc]) {
    match i {
        Instr::Switch { targets, .. } => *targets = ts.to_vec(),
        Instr::Jump { target }
        | Instr::BranchCmp { target, .. }
        | Instr::BranchEqConst { target, .. } => *target = ts[0],
        other => panic!("{other:?} does not jump"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reg;

    #[test]
    fn jumps_point_at_their_labels_backwards_and_forwards() {
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        enum L {
            Top,
            End,
        }
        let mut a = Asm::new();
        a.label(L::Top);
        a.push(Instr::Eval { reg: Reg(0) });
        a.jump(
            Instr::Switch {
                reg: Reg(0),
                targets: vec![],
            },
            &[L::End, L::Top],
        );
        a.jump(Instr::Jump { target: 99 }, &[L::Top]);
        a.label(L::End);
        a.push(Instr::Ret { reg: Reg(0) });
        let code = a.finish();
        assert!(matches!(&code[1], Instr::Switch { targets, .. } if targets == &vec![3, 0]));
        assert!(matches!(code[2], Instr::Jump { target: 0 }));
    }
}
