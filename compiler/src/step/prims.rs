//! The pure primitives, with the real machine's semantics: its own
//! functions where it exports them (Int and Double operations, Integer
//! arithmetic, GHC's `show` for Double, decodeFloat ...), so that `:step`
//! and `gph run` agree on every result and error message.

use super::machine::{Addr, Machine, Node};
use super::template::{PrimInfo, Program};
use crate::back::prims::{Op, Special, Ty};
use gph_code::values as rt;
use gph_code::values::Stop;
use gph_code::values::Z;
use gph_code::values::{unop, vop};
use gph_code::Prim;
use std::rc::Rc;

/// What a primitive gives.
pub enum PrimOut {
    Node(Node),
    Bool(bool),
    /// One of its arguments (`seq a b` is `b`).
    Ind(Addr),
    /// A run-time error (`divide by zero`, `error`'s message).
    Error(String),
}

fn stop(s: Stop) -> PrimOut {
    PrimOut::Error(match s {
        Stop::Error(m) => m,
        Stop::Exit(c) => format!("the program exited with status {c}"),
    })
}

/// An argument as the machine's 64-bit value register holds it.
fn bits(m: &Machine, a: Addr) -> Result<u64, String> {
    match m.node(a) {
        Node::Int(n) => Ok(*n as u64),
        Node::Double(d) => Ok(d.to_bits()),
        Node::Char(c) => Ok(*c as u64),
        _ => Err("internal error: a primitive's argument is not a number".into()),
    }
}

fn integer(m: &Machine, a: Addr) -> Result<Z, String> {
    match m.node(a) {
        Node::Integer(z) => Ok((**z).clone()),
        Node::Int(n) => Ok(Z::S(*n)),
        _ => Err("internal error: a primitive's argument is not an Integer".into()),
    }
}

fn int(m: &Machine, a: Addr) -> Result<i64, String> {
    match m.node(a) {
        Node::Int(n) => Ok(*n),
        _ => Err("internal error: a primitive's argument is not an Int".into()),
    }
}

fn dbl(m: &Machine, a: Addr) -> Result<f64, String> {
    match m.node(a) {
        Node::Double(d) => Ok(*d),
        _ => Err("internal error: a primitive's argument is not a Double".into()),
    }
}

fn chr(m: &Machine, a: Addr) -> Result<u32, String> {
    match m.node(a) {
        Node::Char(c) => Ok(*c),
        _ => Err("internal error: a primitive's argument is not a Char".into()),
    }
}

/// A value register as a node of type `t`.
fn value(t: Ty, v: u64) -> Node {
    match t {
        Ty::Double => Node::Double(f64::from_bits(v)),
        Ty::Char => Node::Char(v as u32),
        _ => Node::Int(v as i64),
    }
}

fn integer_node(z: Z) -> Node {
    Node::Integer(Box::new(z))
}

fn string(s: String) -> Node {
    Node::Str(Rc::from(s), 0)
}

/// Applies a primitive to its arguments (evaluated where it is strict,
/// indirections followed).
pub fn apply(
    p: &Program,
    m: &mut Machine,
    pi: &PrimInfo,
    args: &[Addr],
) -> Result<PrimOut, String> {
    let Some(info) = &pi.info else {
        // normalForm: "cannot tell cheaply" is always a correct answer.
        return Ok(PrimOut::Node(Node::Int(0)));
    };
    let ty = |i: usize| info.args.get(i).copied().unwrap_or(Ty::Any);
    Ok(match info.op {
        Op::Bin(op) => {
            let (a, b) = (bits(m, args[0])?, bits(m, args[1])?);
            match vop(op, a, b) {
                Ok(v) => PrimOut::Node(value(info.ret, v)),
                Err(e) => stop(e),
            }
        }
        Op::Un(op) => {
            let _ = ty;
            match unop(op, bits(m, args[0])?) {
                Ok(v) => PrimOut::Node(value(info.ret, v)),
                Err(e) => stop(e),
            }
        }
        Op::Cmp(c) => PrimOut::Bool(c.holds(bits(m, args[0])?, bits(m, args[1])?)),
        Op::Special(s) => match s {
            Special::Seq | Special::Pseq | Special::Par => PrimOut::Ind(args[1]),
            Special::Error => PrimOut::Error(m.string_of(args[0])),
            _ => return Err(format!("`{}` is not supported by :step", pi.name)),
        },
        Op::Rt(prim) => rt_prim(p, m, prim, args)?,
    })
}

fn rt_prim(p: &Program, m: &mut Machine, prim: Prim, args: &[Addr]) -> Result<PrimOut, String> {
    use Prim::*;
    Ok(match prim {
        IntegerAdd | IntegerSub | IntegerMul | IntegerQuot | IntegerRem | IntegerDiv
        | IntegerMod => {
            let (x, y) = (integer(m, args[0])?, integer(m, args[1])?);
            match rt::integer_op(prim, &x, &y) {
                Ok(z) => PrimOut::Node(integer_node(z)),
                Err(e) => stop(e),
            }
        }
        IntegerEq | IntegerNe | IntegerLt | IntegerLe | IntegerGt | IntegerGe => {
            let (x, y) = (integer(m, args[0])?, integer(m, args[1])?);
            PrimOut::Bool(gph_code::values::integer_compare(prim, &x, &y))
        }
        IntegerNegate => PrimOut::Node(integer_node(match integer(m, args[0])? {
            Z::S(i) if i != i64::MIN => Z::S(-i),
            z => Z::norm(-z.big()),
        })),
        IntegerToInt => PrimOut::Node(Node::Int(match integer(m, args[0])? {
            Z::S(i) => i,
            Z::B(b) => gph_code::values::low_i64(&b),
        })),
        IntegerToDouble => {
            PrimOut::Node(Node::Double(rt::integer_to_double(&integer(m, args[0])?)))
        }
        IntToInteger => PrimOut::Node(integer_node(Z::S(int(m, args[0])?))),
        DoubleTruncate => PrimOut::Node(integer_node(rt::double_truncate(dbl(m, args[0])?))),
        DoubleDecodeMantissa => {
            PrimOut::Node(integer_node(Z::S(rt::decode_double(dbl(m, args[0])?).0)))
        }
        DoubleDecodeExponent => PrimOut::Node(Node::Int(rt::decode_double(dbl(m, args[0])?).1)),
        DoubleEncode => {
            let mant = integer(m, args[0])?;
            let e = int(m, args[1])?;
            PrimOut::Node(Node::Double(rt::encode_double(&mant, e)))
        }
        DoubleIsNaN => PrimOut::Bool(dbl(m, args[0])?.is_nan()),
        DoubleIsInfinite => PrimOut::Bool(dbl(m, args[0])?.is_infinite()),
        DoubleIsNegativeZero => {
            let d = dbl(m, args[0])?;
            PrimOut::Bool(d == 0.0 && d.is_sign_negative())
        }
        CharGeneralCategory => PrimOut::Node(Node::Int(rt::general_category(chr(m, args[0])?))),
        CharToUpper => PrimOut::Node(value(Ty::Char, rt::to_upper(chr(m, args[0])?) as u64)),
        CharToLower => PrimOut::Node(value(Ty::Char, rt::to_lower(chr(m, args[0])?) as u64)),
        CharToTitle => PrimOut::Node(value(Ty::Char, rt::to_title(chr(m, args[0])?) as u64)),
        IntShow => PrimOut::Node(string(int(m, args[0])?.to_string())),
        IntegerShow => PrimOut::Node(string(match integer(m, args[0])? {
            Z::S(i) => i.to_string(),
            Z::B(b) => b.to_string(),
        })),
        DoubleShow => PrimOut::Node(string(rt::show_double(dbl(m, args[0])?))),
        FloatShow => PrimOut::Node(string(rt::show_float(dbl(m, args[0])?))),
        IntegerAnd | IntegerOr | IntegerXor => {
            let (x, y) = (integer(m, args[0])?.big(), integer(m, args[1])?.big());
            PrimOut::Node(integer_node(Z::norm(match prim {
                IntegerAnd => x & y,
                IntegerOr => x | y,
                _ => x ^ y,
            })))
        }
        IntegerShiftL | IntegerShiftR => {
            let x = integer(m, args[0])?;
            let n = int(m, args[1])?;
            if n < 0 || (prim == IntegerShiftL && n > 1 << 32) {
                return Ok(PrimOut::Error("arithmetic overflow".into()));
            }
            PrimOut::Node(integer_node(match (prim, &x) {
                (IntegerShiftR, Z::S(v)) => Z::S(v >> n.min(63)),
                (IntegerShiftR, _) => Z::norm(x.big() >> n as usize),
                _ => Z::norm(x.big() << n as usize),
            }))
        }
        ListCell => {
            let x = args[0];
            PrimOut::Node(Node::Int(match m.node(x) {
                Node::Data(c, _) if *c == p.nil => 0,
                Node::Data(c, _) if *c == p.cons_con => 1,
                Node::Str(s, off) => i64::from((*off as usize) < s.len()),
                _ => 2,
            }))
        }
        ConFields => {
            let fields: Vec<Addr> = match m.node(args[0]) {
                Node::Data(_, fs) => fs.to_vec(),
                _ => Vec::new(),
            };
            let mut list = m.con_node(p, p.nil);
            for f in fields.into_iter().rev() {
                list = m.alloc(Node::Data(p.cons_con, Box::new([f, list])));
            }
            PrimOut::Ind(list)
        }
        NormalForm => PrimOut::Node(Node::Int(0)),
        _ => return Err(":step works on pure expressions, not IO actions".into()),
    })
}
