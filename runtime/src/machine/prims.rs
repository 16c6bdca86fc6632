//! The primitives (`code::Prim`) with exactly the semantics written in
//! prelude/Gph/Prim.gph: Integer with an i64 fast path, GHC's `show` for
//! Double, decodeFloat/encodeFloat, Unicode categories and case mappings,
//! and the IO primitives.
//!
//! A primitive reads its (evaluated) arguments into Rust values first and
//! only then allocates its result, so a collection during the allocation
//! never leaves a stale pointer in a Rust local.

use crate::code::{Prim, CONS, IORES, NIL};
use crate::machine::heap::{h_info, h_kind, h_size, header, kind, Ptr, MAX_NODE_WORDS};
use crate::machine::io::IoErr;
use crate::machine::pe::{err, Pe, Stop, Thrown};
use crate::machine::thread::Thread;

/// The most nodes `primNormalForm` looks at: far more than a stream
/// element usually has, few enough that a walk that gives up (leaving the
/// library to walk the value with `rnf`) costs little beside that.
const NF_WALK: usize = 4096;
use num_bigint::{BigInt, BigUint, Sign};
use num_integer_like::*;
use num_traits::{Signed, ToPrimitive, Zero};

/// An Integer read from the heap.
#[derive(Clone, Debug, PartialEq)]
pub enum Z {
    S(i64),
    B(BigInt),
}

impl Z {
    pub fn big(&self) -> BigInt {
        match self {
            Z::S(i) => BigInt::from(*i),
            Z::B(b) => b.clone(),
        }
    }
    /// Its 64-bit limbs (a small one counts as one).
    pub fn limbs(&self) -> usize {
        match self {
            Z::S(_) => 1,
            Z::B(b) => b.magnitude().iter_u64_digits().len(),
        }
    }
    pub fn norm(b: BigInt) -> Z {
        match b.to_i64() {
            Some(i) => Z::S(i),
            None => Z::B(b),
        }
    }
}

/// A primitive's result, before it is allocated.
enum R {
    Int(i64),
    Double(f64),
    Char(u32),
    Bool(bool),
    Integer(Z),
    Str(String),
    /// `IORes r` of these.
    IoUnit,
    IoChar(u32),
    IoStr(String),
    IoStrs(Vec<String>),
    /// `IORes b`.
    IoBool(bool),
    /// `IORes c`, c the lazy contents of handle h (a STDIN node).
    IoContents(i64),
    /// A node that exists (ArrIndex: possibly unevaluated).
    Node(Ptr),
    /// `IORes i`.
    IoInt(i64),
    /// `IORes p`, `p` a node that exists.
    IoNode(Ptr),
    /// A list of nodes that exist.
    Nodes(Vec<Ptr>),
}

impl<'p, 'io> Pe<'p, 'io> {
    fn arg(&self, t: &Thread, slot: usize) -> Ptr {
        self.heap.deref(t.ptrs[slot])
    }

    fn raw(&self, p: Ptr, want: u8) -> Result<u64, Stop> {
        if self.heap.kind(p) != want {
            return err(format!(
                "internal error: a primitive expected a node of kind {want}, got {}",
                self.heap.kind(p)
            ));
        }
        Ok(self.heap.word(p, 0))
    }

    pub fn read_integer(&self, p: Ptr) -> Result<Z, Stop> {
        let h = self.heap.hdr(p);
        match h_kind(h) {
            kind::SMALLINT => Ok(Z::S(self.heap.word(p, 0) as i64)),
            kind::BIGINT => {
                let n = h_size(h);
                let neg = self.heap.word(p, 0) != 0;
                let mut digits = Vec::with_capacity(2 * (n - 1));
                for i in 1..n {
                    let w = self.heap.word(p, i);
                    digits.push(w as u32);
                    digits.push((w >> 32) as u32);
                }
                let mag = BigUint::new(digits);
                Ok(Z::B(BigInt::from_biguint(
                    if neg { Sign::Minus } else { Sign::Plus },
                    mag,
                )))
            }
            k => err(format!(
                "internal error: a primitive expected an Integer, got kind {k}"
            )),
        }
    }

    fn integer_words(z: &Z) -> usize {
        match z {
            Z::S(_) => 2,
            Z::B(_) => 2 + z.limbs(),
        }
    }

    fn build_integer(&mut self, z: &Z) -> Ptr {
        match z {
            Z::S(i) => self.build_raw(kind::SMALLINT, *i as u64),
            Z::B(b) => {
                let limbs = b.magnitude().to_u64_digits();
                let p = self.bump(2 + limbs.len());
                let i = p.0 as usize;
                self.heap.mem[i] = header(kind::BIGINT, 1 + limbs.len() as u32, 0);
                self.heap.mem[i + 1] = (b.sign() == Sign::Minus) as u64;
                for (k, w) in limbs.iter().enumerate() {
                    self.heap.mem[i + 2 + k] = *w;
                }
                p
            }
        }
    }

    /// An Integer constant (the `Integer` instruction).
    pub fn alloc_integer(&mut self, t: &mut Thread, n: &BigInt) -> Result<Ptr, Stop> {
        let z = Z::norm(n.clone());
        self.ensure(t, Self::integer_words(&z))?;
        Ok(self.build_integer(&z))
    }

    fn store(&mut self, t: &mut Thread, slot: usize, r: R) -> Result<(), Stop> {
        let l = self.l;
        let p = match r {
            R::Bool(b) => {
                if b {
                    l.true_node
                } else {
                    l.false_node
                }
            }
            R::Int(i) => {
                self.ensure(t, 2)?;
                self.build_int(i)
            }
            R::Double(d) => {
                self.ensure(t, 2)?;
                self.build_raw(kind::DOUBLE, d.to_bits())
            }
            R::Char(c) => {
                self.ensure(t, 2)?;
                self.build_char(c)
            }
            R::Integer(z) => {
                self.ensure(t, Self::integer_words(&z))?;
                self.build_integer(&z)
            }
            R::Str(s) => {
                self.ensure(t, self.string_words(&s))?;
                self.build_string(&s, l.nil_node)
            }
            R::IoUnit => {
                self.ensure(t, 2)?;
                self.build_con(IORES.0, &[l.unit_node])
            }
            R::IoChar(c) => {
                self.ensure(t, 4)?;
                let c = self.build_char(c);
                self.build_con(IORES.0, &[c])
            }
            R::IoStr(s) => {
                self.ensure(t, self.string_words(&s) + 2)?;
                let s = self.build_string(&s, l.nil_node);
                self.build_con(IORES.0, &[s])
            }
            R::IoStrs(v) => {
                let w: usize = v.iter().map(|s| self.string_words(s) + 3).sum();
                self.ensure(t, w + 2)?;
                let mut list = l.nil_node;
                for s in v.iter().rev() {
                    let s = self.build_string(s, l.nil_node);
                    list = self.build_con(CONS.0, &[s, list]);
                }
                self.build_con(IORES.0, &[list])
            }
            R::IoInt(i) => {
                self.ensure(t, 4)?;
                let b = self.build_int(i);
                self.build_con(IORES.0, &[b])
            }
            R::IoNode(p) => {
                self.tmp.push(p);
                self.ensure(t, 2)?;
                let p = self.tmp.pop().expect("pushed");
                self.build_con(IORES.0, &[p])
            }
            R::Nodes(v) => {
                let base = self.tmp.len();
                self.tmp.extend_from_slice(&v);
                self.ensure(t, 3 * v.len())?;
                let mut list = l.nil_node;
                for k in (base..self.tmp.len()).rev() {
                    let x = self.tmp[k];
                    list = self.build_con(CONS.0, &[x, list]);
                }
                self.tmp.truncate(base);
                list
            }
            R::IoContents(h) => {
                self.ensure(t, 4)?;
                let q = self.bump(2);
                self.heap.mem[q.0 as usize] = header(kind::STDIN, 1, 0);
                self.heap.mem[q.0 as usize + 1] = h as u64;
                self.build_con(IORES.0, &[q])
            }
            R::IoBool(b) => {
                self.ensure(t, 2)?;
                let b = if b { l.true_node } else { l.false_node };
                self.build_con(IORES.0, &[b])
            }
            R::Node(p) => p,
        };
        t.ptrs[slot] = p;
        Ok(())
    }
}

/// Runs a primitive: arguments in the registers `args` of the activation
/// at `pbase`, result into register `dst`.
pub fn prim(
    pe: &mut Pe,
    t: &mut Thread,
    pbase: usize,
    p: Prim,
    dst: u16,
    args: &[u16],
) -> Result<(), Stop> {
    use Prim::*;
    let a = |i: usize| pbase + args[i] as usize;
    let int =
        |pe: &Pe, t: &Thread, i: usize| -> Result<Z, Stop> { pe.read_integer(pe.arg(t, a(i))) };
    let dbl = |pe: &Pe, t: &Thread, i: usize| -> Result<f64, Stop> {
        Ok(f64::from_bits(pe.raw(pe.arg(t, a(i)), kind::DOUBLE)?))
    };
    let chr = |pe: &Pe, t: &Thread, i: usize| -> Result<u32, Stop> {
        Ok(pe.raw(pe.arg(t, a(i)), kind::CHAR)? as u32)
    };
    let intv = |pe: &Pe, t: &Thread, i: usize| -> Result<i64, Stop> {
        Ok(pe.raw(pe.arg(t, a(i)), kind::INT)? as i64)
    };
    let r = match p {
        IntegerAdd | IntegerSub | IntegerMul | IntegerQuot | IntegerRem | IntegerDiv
        | IntegerMod => {
            let x = int(pe, t, 0)?;
            let y = int(pe, t, 1)?;
            pe.charge(big_cost(p, &x, &y));
            R::Integer(integer_op(p, &x, &y)?)
        }
        IntegerEq | IntegerNe | IntegerLt | IntegerLe | IntegerGt | IntegerGe => {
            let x = int(pe, t, 0)?;
            let y = int(pe, t, 1)?;
            pe.charge(big_cost(p, &x, &y));
            R::Bool(integer_compare(p, &x, &y))
        }
        IntegerNegate => R::Integer(match int(pe, t, 0)? {
            Z::S(i) if i != i64::MIN => Z::S(-i),
            z => Z::norm(-z.big()),
        }),
        IntegerToInt => R::Int(match int(pe, t, 0)? {
            Z::S(i) => i,
            Z::B(b) => low_i64(&b),
        }),
        IntegerToDouble => R::Double(integer_to_double(&int(pe, t, 0)?)),
        IntToInteger => R::Integer(Z::S(intv(pe, t, 0)?)),
        DoubleTruncate => R::Integer(double_truncate(dbl(pe, t, 0)?)),
        DoubleDecodeMantissa => R::Integer(Z::S(decode_double(dbl(pe, t, 0)?).0)),
        DoubleDecodeExponent => R::Int(decode_double(dbl(pe, t, 0)?).1),
        DoubleEncode => {
            let m = int(pe, t, 0)?;
            let e = intv(pe, t, 1)?;
            R::Double(encode_double(&m, e))
        }
        DoubleIsNaN => R::Bool(dbl(pe, t, 0)?.is_nan()),
        DoubleIsInfinite => R::Bool(dbl(pe, t, 0)?.is_infinite()),
        DoubleIsNegativeZero => {
            let d = dbl(pe, t, 0)?;
            R::Bool(d == 0.0 && d.is_sign_negative())
        }
        CharGeneralCategory => R::Int(general_category(chr(pe, t, 0)?)),
        CharToUpper => R::Char(to_upper(chr(pe, t, 0)?)),
        CharToLower => R::Char(to_lower(chr(pe, t, 0)?)),
        CharToTitle => R::Char(to_title(chr(pe, t, 0)?)),
        IntShow => R::Str(intv(pe, t, 0)?.to_string()),
        IntegerShow => R::Str(match int(pe, t, 0)? {
            Z::S(i) => i.to_string(),
            Z::B(b) => b.to_string(),
        }),
        DoubleShow => R::Str(show_double(dbl(pe, t, 0)?)),
        FloatShow => R::Str(show_float(dbl(pe, t, 0)?)),
        Raise => {
            let s = pe.read_string(pe.arg(t, a(0)))?;
            return Err(Stop::Error(s));
        }
        PutStr => {
            let h = intv(pe, t, 0)?;
            let s = pe.read_string(pe.arg(t, a(1)))?;
            pe.io.put_str(h, &s).map_err(|e| pe.io_error(e))?;
            R::IoUnit
        }
        GetChar => {
            let h = intv(pe, t, 0)?;
            R::IoChar(pe.io.get_char(h).map_err(|e| pe.io_error(e))? as u32)
        }
        GetLine => {
            let h = intv(pe, t, 0)?;
            R::IoStr(pe.io.get_line(h).map_err(|e| pe.io_error(e))?)
        }
        GetContents => {
            let h = intv(pe, t, 0)?;
            pe.io.semi_close(h).map_err(|e| pe.io_error(e))?;
            R::IoContents(h)
        }
        HClose => {
            let h = intv(pe, t, 0)?;
            pe.io.h_close(h).map_err(|e| pe.io_error(e))?;
            R::IoUnit
        }
        HFlush => {
            let h = intv(pe, t, 0)?;
            pe.io.h_flush(h).map_err(|e| pe.io_error(e))?;
            R::IoUnit
        }
        HIsEof => {
            let h = intv(pe, t, 0)?;
            R::IoBool(pe.io.is_eof(h).map_err(|e| pe.io_error(e))?)
        }
        HSetBuffering => {
            let h = intv(pe, t, 0)?;
            let m = intv(pe, t, 1)?;
            pe.io.set_buffering(h, m).map_err(|e| pe.io_error(e))?;
            R::IoUnit
        }
        HGetBuffering => {
            let h = intv(pe, t, 0)?;
            R::IoInt(pe.io.get_buffering(h).map_err(|e| pe.io_error(e))?)
        }
        OpenFile => {
            let path = pe.read_string(pe.arg(t, a(0)))?;
            let m = intv(pe, t, 1)?;
            R::IoInt(pe.io.open_file(&path, m).map_err(|e| pe.io_error(e))?)
        }
        OpenTempFile => {
            let dir = pe.read_string(pe.arg(t, a(0)))?;
            let template = pe.read_string(pe.arg(t, a(1)))?;
            R::IoStr(
                pe.io
                    .temp_file(&dir, &template)
                    .map_err(|e| pe.io_error(e))?,
            )
        }
        RemoveFile => {
            let path = pe.read_string(pe.arg(t, a(0)))?;
            pe.io.remove_file(&path).map_err(|e| pe.io_error(e))?;
            R::IoUnit
        }
        DoesFileExist => {
            let path = pe.read_string(pe.arg(t, a(0)))?;
            R::IoBool(pe.io.file_exists(&path))
        }
        LookupEnv => {
            let name = pe.read_string(pe.arg(t, a(0)))?;
            R::IoStrs(std::env::var(&name).ok().into_iter().collect())
        }
        NewIORef => {
            let x = pe.arg(t, a(0));
            pe.tmp.push(x);
            pe.ensure(t, 2)?;
            let x = pe.tmp.pop().expect("pushed");
            R::IoNode(pe.node(header(kind::MUTVAR, 1, 0), &[x.0 as u64]))
        }
        ReadIORef => {
            let r = pe.cell(t, a(0))?;
            R::IoNode(pe.heap.field(r, 0))
        }
        WriteIORef => {
            let r = pe.cell(t, a(0))?;
            let x = pe.arg(t, a(1));
            pe.heap.set_word(r, 0, x.0 as u64);
            R::IoUnit
        }
        SameIORef => R::Bool(pe.arg(t, a(0)) == pe.arg(t, a(1))),
        ArrNew => {
            let n = intv(pe, t, 0)?;
            if n < 0 || n as usize > MAX_NODE_WORDS {
                return err(format!(
                    "an array of {n} elements (the most is {MAX_NODE_WORDS})"
                ));
            }
            let n = n as usize;
            let x = pe.arg(t, a(1));
            pe.tmp.push(x);
            pe.ensure(t, 1 + n.max(1))?;
            let x = pe.tmp.pop().expect("pushed");
            let p = pe.bump(1 + n.max(1));
            let i = p.0 as usize;
            pe.heap.mem[i] = header(kind::ARRAY, n as u32, 0);
            pe.heap.mem[i + 1] = x.0 as u64;
            pe.heap.mem[i + 1..i + 1 + n].fill(x.0 as u64);
            R::IoNode(p)
        }
        ArrRead | ArrIndex => {
            let (arr, k) = pe.element(t, a(0), intv(pe, t, 1)?)?;
            let x = pe.heap.field(arr, k);
            if p == ArrRead {
                R::IoNode(x)
            } else {
                R::Node(x)
            }
        }
        ArrWrite => {
            let (arr, k) = pe.element(t, a(0), intv(pe, t, 1)?)?;
            let x = pe.arg(t, a(2));
            pe.heap.set_word(arr, k, x.0 as u64);
            R::IoUnit
        }
        ArrSize => {
            let arr = pe.arg(t, a(0));
            if pe.heap.kind(arr) != kind::ARRAY {
                return err("internal error: arrSize of something else than an array");
            }
            R::Int(h_size(pe.heap.hdr(arr)) as i64)
        }
        IntegerAnd | IntegerOr | IntegerXor => {
            let (x, y) = (int(pe, t, 0)?, int(pe, t, 1)?);
            pe.charge(big_cost(p, &x, &y));
            R::Integer(match (&x, &y) {
                (Z::S(x), Z::S(y)) => Z::S(match p {
                    IntegerAnd => x & y,
                    IntegerOr => x | y,
                    _ => x ^ y,
                }),
                _ => {
                    let (x, y) = (x.big(), y.big());
                    Z::norm(match p {
                        IntegerAnd => x & y,
                        IntegerOr => x | y,
                        _ => x ^ y,
                    })
                }
            })
        }
        IntegerShiftL | IntegerShiftR => {
            let x = int(pe, t, 0)?;
            let n = intv(pe, t, 1)?;
            if n < 0 {
                return err("arithmetic overflow");
            }
            R::Integer(match (p, &x) {
                (IntegerShiftR, Z::S(v)) => Z::S(v >> n.min(63)),
                (IntegerShiftR, _) => Z::norm(x.big() >> n as usize),
                _ => {
                    if n > 1 << 32 {
                        return err("arithmetic overflow");
                    }
                    Z::norm(x.big() << n as usize)
                }
            })
        }
        RaiseIO => {
            let e = pe.arg(t, a(0));
            let msg = pe.read_string(pe.arg(t, a(1)))?;
            pe.thrown = Some(Thrown::Value(e));
            return err(msg);
        }
        CatchIO => return err("internal error: catchIO outside the reducer"),
        GetArgs => R::IoStrs(pe.io.args.clone()),
        GetProgName => R::IoStr(pe.io.prog_name.clone()),
        ExitWith => {
            let code = intv(pe, t, 0)?;
            return Err(Stop::Exit(code as i32));
        }
        // Eden numbers PEs from 1 (the main PE); ours count from 0.
        NoPe => R::Int(pe.npes as i64),
        SelfPe => R::Int(pe.id().0 as i64 + 1),
        EdenNewChan => R::IoInt(pe.eden_new_chan(t)?),
        EdenChanValue => R::IoNode(pe.eden_chan_value(intv(pe, t, 0)?)?),
        EdenGate => R::IoNode(pe.eden_gate(t, intv(pe, t, 0)?)?),
        EdenCreate => {
            let at = intv(pe, t, 0)?;
            R::IoInt(pe.eden_create(t, at, a(1))?)
        }
        EdenFork => {
            pe.eden_fork(t, a(0));
            R::IoUnit
        }
        EdenConnect => {
            pe.eden_connect(t, intv(pe, t, 0)?);
            R::IoUnit
        }
        EdenSplit => {
            let c = intv(pe, t, 0)?;
            R::IoInt(pe.eden_split(t, c, a(1))?)
        }
        EdenSendHead | EdenSendValue => {
            let c = intv(pe, t, 0)?;
            R::IoInt(pe.eden_send(t, c, a(1), p == EdenSendValue)?)
        }
        ConFields => {
            let x = pe.arg(t, a(0));
            let h = pe.heap.hdr(x);
            R::Nodes(if matches!(h_kind(h), kind::CON | kind::ARRAY) {
                (0..h_size(h)).map(|i| pe.heap.field(x, i)).collect()
            } else {
                Vec::new()
            })
        }
        NormalForm => R::Int(pe.heap.normal_form(pe.arg(t, a(0)), NF_WALK) as i64),
        ListCell => {
            let x = pe.arg(t, a(0));
            let h = pe.heap.hdr(x);
            R::Int(match (h_kind(h), h_info(h)) {
                (kind::CON, c) if c == NIL.0 => 0,
                (kind::CON, c) if c == CONS.0 => 1,
                _ => 2,
            })
        }
    };
    pe.store(t, pbase + dst as usize, r)
}

impl<'p, 'io> Pe<'p, 'io> {
    /// A failed IO operation: the run-time error with GHC's message, and
    /// the IOError for a handler (`Pe::thrown`).
    fn io_error(&mut self, e: IoErr) -> Stop {
        let msg = e.message();
        self.thrown = Some(Thrown::Io(e));
        Stop::Error(msg)
    }

    /// The mutable cell in `ptrs[slot]` (evaluated).
    fn cell(&self, t: &Thread, slot: usize) -> Result<Ptr, Stop> {
        let r = self.arg(t, slot);
        match self.heap.kind(r) {
            kind::MUTVAR => Ok(r),
            kind::MUTREF => err("internal error: an IORef used on a PE other than its own"),
            k => err(format!(
                "internal error: an IORef operation on a node of kind {k}"
            )),
        }
    }

    /// The array in `ptrs[slot]` (evaluated) and the checked position `i`.
    fn element(&self, t: &Thread, slot: usize, i: i64) -> Result<(Ptr, usize), Stop> {
        let arr = self.arg(t, slot);
        if self.heap.kind(arr) != kind::ARRAY {
            return err("internal error: an array operation on something else");
        }
        let n = h_size(self.heap.hdr(arr));
        if i < 0 || i as usize >= n {
            return err(format!(
                "internal error: array position {i} out of range (0..{n})"
            ));
        }
        Ok((arr, i as usize))
    }
}

/// The low 64 bits of an Integer, as two's complement.
pub fn low_i64(b: &BigInt) -> i64 {
    let digits = b.magnitude().to_u64_digits();
    let low = digits.first().copied().unwrap_or(0);
    if b.sign() == Sign::Minus {
        low.wrapping_neg() as i64
    } else {
        low as i64
    }
}

/// What an Integer operation on big numbers costs on top of its
/// reduction, in reductions (of 50 ns of virtual time): a few for making
/// and normalising the result, plus its limb operations, products of the
/// operands' 64-bit limbs for multiplying and dividing, their sum else (8
/// of them to a reduction). Without it a product of two 300-digit numbers
/// cost the sim what `1 + 2` does: linsolv 100 took 5.1 s of virtual time
/// on one PE and 42 s of wall time. With it one PE's wall time over its
/// virtual time is 1.16 for linsolv 50 and 1.08 for linsolv 70, as for
/// programs without big numbers (queens 11 1.25, matmult 300 1.03,
/// raytracer 320x240 1.33; sumEuler 0.6).
fn big_cost(p: Prim, x: &Z, y: &Z) -> u64 {
    use Prim::*;
    if matches!((x, y), (Z::S(_), Z::S(_))) {
        return 0;
    }
    let (a, b) = (x.limbs() as u64, y.limbs() as u64);
    let ops = match p {
        IntegerMul | IntegerQuot | IntegerRem | IntegerDiv | IntegerMod => a * b,
        _ => a + b,
    };
    BIG_OP_REDUCTIONS + ops / LIMB_OPS_PER_REDUCTION
}

const BIG_OP_REDUCTIONS: u64 = 5;
const LIMB_OPS_PER_REDUCTION: u64 = 8;

pub fn integer_op(p: Prim, x: &Z, y: &Z) -> Result<Z, Stop> {
    use Prim::*;
    if let (Z::S(a), Z::S(b)) = (x, y) {
        let (a, b) = (*a, *b);
        let fast = match p {
            IntegerAdd => a.checked_add(b),
            IntegerSub => a.checked_sub(b),
            IntegerMul => a.checked_mul(b),
            _ => {
                if b == 0 {
                    return err("divide by zero");
                }
                if a == i64::MIN && b == -1 {
                    None
                } else {
                    Some(match p {
                        IntegerQuot => a / b,
                        IntegerRem => a % b,
                        IntegerDiv => a.div_floor_(b),
                        _ => a.mod_floor_(b),
                    })
                }
            }
        };
        if let Some(r) = fast {
            return Ok(Z::S(r));
        }
    }
    let (a, b) = (x.big(), y.big());
    if matches!(p, IntegerQuot | IntegerRem | IntegerDiv | IntegerMod) && b.is_zero() {
        return err("divide by zero");
    }
    Ok(Z::norm(match p {
        IntegerAdd => a + b,
        IntegerSub => a - b,
        IntegerMul => a * b,
        IntegerQuot => &a / &b,
        IntegerRem => &a % &b,
        IntegerDiv => {
            let (q, r) = (&a / &b, &a % &b);
            if !r.is_zero() && (r.is_negative() != b.is_negative()) {
                q - 1
            } else {
                q
            }
        }
        _ => {
            let r = &a % &b;
            if !r.is_zero() && (r.is_negative() != b.is_negative()) {
                r + b
            } else {
                r
            }
        }
    }))
}

/// Floor division and modulus on i64 (no overflow cases reach here).
mod num_integer_like {
    pub trait FloorDiv {
        fn div_floor_(self, b: Self) -> Self;
        fn mod_floor_(self, b: Self) -> Self;
    }
    impl FloorDiv for i64 {
        fn div_floor_(self, b: i64) -> i64 {
            let q = self / b;
            if (self % b != 0) && ((self < 0) != (b < 0)) {
                q - 1
            } else {
                q
            }
        }
        fn mod_floor_(self, b: i64) -> i64 {
            let r = self % b;
            if r != 0 && ((r < 0) != (b < 0)) {
                r + b
            } else {
                r
            }
        }
    }
}

/// GHC's fromInteger at Double (see Prim.gph): nearest in Int's range,
/// else truncated to 53 significant bits.
pub fn integer_to_double(z: &Z) -> f64 {
    match z {
        Z::S(i) => *i as f64,
        Z::B(b) => {
            let mag = b.magnitude();
            let bits = mag.bits();
            let d = if bits > 1024 {
                f64::INFINITY
            } else if bits <= 53 {
                mag.to_u64().unwrap() as f64
            } else {
                let shift = bits - 53;
                let m = (mag >> shift).to_u64().unwrap();
                if shift as i64 + 52 > 1023 {
                    f64::INFINITY
                } else {
                    m as f64 * 2f64.powi(shift as i32)
                }
            };
            if b.is_negative() {
                -d
            } else {
                d
            }
        }
    }
}

/// GHC's decodeFloat (see Prim.gph for the special values).
pub fn decode_double(x: f64) -> (i64, i64) {
    if x == 0.0 {
        return (0, 0);
    }
    if x.is_nan() {
        return (-6755399441055744, 972);
    }
    if x.is_infinite() {
        return (if x > 0.0 { 1 << 52 } else { -(1 << 52) }, 972);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = (bits & ((1 << 52) - 1)) as i64;
    let (mut m, mut e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, exp - 1075)
    };
    while m < 1 << 52 {
        m <<= 1;
        e -= 1;
    }
    (if x < 0.0 { -m } else { m }, e)
}

/// m * 2^e with one IEEE rounding (to nearest, ties to even).
fn make_double(neg: bool, mut mant: u64, mut exp: i64) -> f64 {
    let sign = if neg { -1.0 } else { 1.0 };
    if mant == 0 {
        return sign * 0.0;
    }
    while mant < 1 << 52 {
        mant <<= 1;
        exp -= 1;
    }
    let e = exp.saturating_add(52);
    if e > 1023 {
        return sign * f64::INFINITY;
    }
    if e >= -1022 {
        let bits = (((e + 1023) as u64) << 52) | (mant & ((1 << 52) - 1));
        return sign * f64::from_bits(bits);
    }
    let shift = -1074 - exp; // > 0
    if shift > 54 {
        return sign * 0.0;
    }
    let q = mant >> shift;
    let r = mant & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    let q = if r > half || (r == half && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    sign * f64::from_bits(q)
}

/// GHC's encodeFloat (see Prim.gph).
pub fn encode_double(m: &Z, e: i64) -> f64 {
    let d = integer_to_double(m);
    if d == 0.0 || !d.is_finite() {
        return d;
    }
    let (dm, de) = decode_double(d);
    make_double(dm < 0, dm.unsigned_abs(), de.saturating_add(e))
}

/// truncate :: Double -> Integer, exactly.
pub fn double_truncate(x: f64) -> Z {
    let (m, e) = decode_double(x);
    let b = BigInt::from(m);
    Z::norm(if e >= 0 {
        b << e as usize
    } else if e > -64 {
        let mag = m.unsigned_abs() >> (-e) as u32;
        let v = BigInt::from(mag);
        if m < 0 {
            -v
        } else {
            v
        }
    } else {
        BigInt::zero()
    })
}

/// The decimal digits of a positive finite `x` and its exponent `k`
/// (`x = 0.d1 d2 .. * 10^k`), as GHC's `floatToDigits 10` computes them
/// (Burger and Dybvig's free-format algorithm with exact integers). Its
/// stopping tests exclude the interval's ends, so it differs from the
/// shortest round-trip digits (Rust's `{:e}`) at some doubles: GHC shows
/// `10.0 * 1.0e22` as `9.999999999999999e22`, not `1.0e23` (found by
/// gph-gen, seed 1000609).
/// GHC's `floatToDigits 10` for a Double (`precision` 53) or for a Float
/// held in a Double (`precision` 24, whose low 29 mantissa bits are 0).
fn float_to_digits(x: f64, precision: i64) -> (Vec<u8>, i64) {
    let p: i64 = precision; // floatDigits
                            // fst floatRange - floatDigits
    let min_exp: i64 = if precision == 24 { -125 - p } else { -1021 - p };
    let (f0, e0) = decode_double(x);
    let shift = 53 - p;
    let (f0, e0) = if f0 == 0 {
        (f0, e0)
    } else {
        (f0 >> shift, e0 + shift)
    };
    // A denormalised number gets the lowest exponent back.
    let n = (min_exp - e0).max(0);
    let (f, e) = (BigInt::from(f0 >> n), e0 + n);
    let pow2 = |n: i64| BigInt::from(1) << n as usize;
    let pow10 = |n: i64| num_traits::pow(BigInt::from(10), n as usize);
    let one = BigInt::from(1);
    // x = r / s; the rounding interval reaches m_dn / s below, m_up / s above
    // (wider above at a power of two, where the next double down is closer).
    let at_power = f == pow2(p - 1);
    let (r, s, m_up, m_dn) = if e >= 0 {
        let be = pow2(e);
        if at_power {
            (&f * &be * 4, BigInt::from(4), &be * 2, be)
        } else {
            (&f * &be * 2, BigInt::from(2), be.clone(), be)
        }
    } else if e > min_exp && at_power {
        (&f * 4, pow2(-e + 1) * 2, BigInt::from(2), one)
    } else {
        (&f * 2, pow2(-e) * 2, one.clone(), one)
    };
    // k: the least n with r + m_up <= 10^n * s, searched from an estimate.
    let high_enough = |n: i64| {
        if n >= 0 {
            &r + &m_up <= pow10(n) * &s
        } else {
            pow10(-n) * (&r + &m_up) <= s
        }
    };
    let mut k = x.log10().ceil() as i64;
    while !high_enough(k) {
        k += 1;
    }
    while high_enough(k - 1) {
        k -= 1;
    }
    let (mut rn, s, mut m_up, mut m_dn) = if k >= 0 {
        (r, s * pow10(k), m_up, m_dn)
    } else {
        let bk = pow10(-k);
        (r * &bk, s, m_up * &bk, m_dn * &bk)
    };
    let ten = BigInt::from(10);
    let mut ds = Vec::new();
    loop {
        let t = &rn * &ten;
        let d: BigInt = &t / &s;
        rn = t - &d * &s;
        m_up *= &ten;
        m_dn *= &ten;
        let d = d.to_u8().expect("a decimal digit");
        // GHC's tests exclude the interval's ends (`<`, `>`).
        let (low, high) = (rn < m_dn, &rn + &m_up > s);
        if !low && !high {
            ds.push(d);
            continue;
        }
        let up = match (low, high) {
            (true, true) => &rn * 2 >= s,
            (_, high) => high,
        };
        ds.push(d + u8::from(up));
        return (ds, k);
    }
}

/// Exactly GHC's `show` for Double.
pub fn show_double(x: f64) -> String {
    show_floating(x, 53)
}

/// `show` of a Float (held in a Double, already rounded to single precision).
pub fn show_float(x: f64) -> String {
    show_floating(x, 24)
}

fn show_floating(x: f64, precision: i64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x.is_sign_negative() {
        return format!("-{}", show_floating(-x, precision));
    }
    if x == 0.0 {
        return "0.0".into();
    }
    let (ds, k) = float_to_digits(x, precision);
    let digits: String = ds.iter().map(|d| char::from(b'0' + d)).collect();
    if (0..=7).contains(&k) {
        let k = k as usize;
        if k == 0 {
            format!("0.{digits}")
        } else if digits.len() <= k {
            format!("{digits}{}.0", "0".repeat(k - digits.len()))
        } else {
            format!("{}.{}", &digits[..k], &digits[k..])
        }
    } else {
        let rest = if digits.len() > 1 { &digits[1..] } else { "0" };
        format!("{}.{}e{}", &digits[..1], rest, k - 1)
    }
}

/// The index of GHC's GeneralCategory constructor.
pub fn general_category(c: u32) -> i64 {
    use unicode_general_category::GeneralCategory as G;
    let Some(ch) = char::from_u32(c) else {
        return if (0xD800..=0xDFFF).contains(&c) {
            27
        } else {
            29
        };
    };
    match unicode_general_category::get_general_category(ch) {
        G::UppercaseLetter => 0,
        G::LowercaseLetter => 1,
        G::TitlecaseLetter => 2,
        G::ModifierLetter => 3,
        G::OtherLetter => 4,
        G::NonspacingMark => 5,
        G::SpacingMark => 6,
        G::EnclosingMark => 7,
        G::DecimalNumber => 8,
        G::LetterNumber => 9,
        G::OtherNumber => 10,
        G::ConnectorPunctuation => 11,
        G::DashPunctuation => 12,
        G::OpenPunctuation => 13,
        G::ClosePunctuation => 14,
        G::InitialPunctuation => 15,
        G::FinalPunctuation => 16,
        G::OtherPunctuation => 17,
        G::MathSymbol => 18,
        G::CurrencySymbol => 19,
        G::ModifierSymbol => 20,
        G::OtherSymbol => 21,
        G::SpaceSeparator => 22,
        G::LineSeparator => 23,
        G::ParagraphSeparator => 24,
        G::Control => 25,
        G::Format => 26,
        G::Surrogate => 27,
        G::PrivateUse => 28,
        G::Unassigned => 29,
        _ => 29,
    }
}

/// Greek letters with ypogegrammeni: their full upper/title mappings are
/// two characters, their simple ones (UnicodeData) one.
fn iota_subscript_upper(c: u32) -> Option<u32> {
    match c {
        0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => Some(c + 8),
        0x1FB3 => Some(0x1FBC),
        0x1FC3 => Some(0x1FCC),
        0x1FF3 => Some(0x1FFC),
        _ => None,
    }
}

/// The simple mapping: the full one when it is one character; the known
/// exceptions; else the character itself.
fn simple(c: u32, full: &[u32]) -> u32 {
    match full {
        [0, ..] => c,
        [x] => *x,
        [x, 0, ..] => *x,
        _ => c,
    }
}

pub fn to_upper(c: u32) -> u32 {
    let Some(ch) = char::from_u32(c) else {
        return c;
    };
    if let Some(u) = iota_subscript_upper(c) {
        return u;
    }
    simple(c, &unicode_case_mapping::to_uppercase(ch))
}

pub fn to_lower(c: u32) -> u32 {
    let Some(ch) = char::from_u32(c) else {
        return c;
    };
    if c == 0x130 {
        return 'i' as u32;
    }
    simple(c, &unicode_case_mapping::to_lowercase(ch))
}

pub fn to_title(c: u32) -> u32 {
    let Some(ch) = char::from_u32(c) else {
        return c;
    };
    if let Some(u) = iota_subscript_upper(c) {
        return u;
    }
    simple(c, &unicode_case_mapping::to_titlecase(ch))
}

/// An Integer comparison primitive (`IntegerEq` .. `IntegerGe`) on two
/// Integers: the one definition both machines use.
pub fn integer_compare(p: Prim, x: &Z, y: &Z) -> bool {
    use std::cmp::Ordering::*;
    let o = match (x, y) {
        (Z::S(a), Z::S(b)) => a.cmp(b),
        _ => x.big().cmp(&y.big()),
    };
    match p {
        Prim::IntegerEq => o == Equal,
        Prim::IntegerNe => o != Equal,
        Prim::IntegerLt => o == Less,
        Prim::IntegerLe => o != Greater,
        Prim::IntegerGt => o == Greater,
        _ => o != Less,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_double_like_ghc() {
        let cases = [
            (0.1, "0.1"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (1234567.0, "1234567.0"),
            (12345678.0, "1.2345678e7"),
            (0.01, "1.0e-2"),
            (2.5, "2.5"),
            (123.456, "123.456"),
            (5.0e-324, "5.0e-324"),
            (1.0e22, "1.0e22"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::NAN, "NaN"),
            (1.0e7, "1.0e7"),
            (9999999.0, "9999999.0"),
            (0.30000000000000004, "0.30000000000000004"),
            (10.0 * 1.0e22, "9.999999999999999e22"),
            (f64::MAX, "1.7976931348623157e308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
        ];
        for (x, s) in cases {
            assert_eq!(show_double(x), s, "{x}");
        }
    }

    /// GHC 9.0's show at Float (checked with the oracle).
    #[test]
    fn show_float_like_ghc() {
        let cases = [
            (0.1f32, "0.1"),
            (0.1 + 0.2, "0.3"),
            (1.0 / 3.0, "0.33333334"),
            (std::f32::consts::PI, "3.1415927"),
            (123456789.0, "1.2345679e8"),
            (1.0e-45, "1.0e-45"),
            (f32::MIN_POSITIVE, "1.1754944e-38"),
            (f32::MAX, "3.4028235e38"),
            (-2.5, "-2.5"),
        ];
        for (x, s) in cases {
            assert_eq!(show_float(x as f64), s, "{x}");
        }
    }

    #[test]
    fn decode_encode() {
        assert_eq!(decode_double(5.0e-324), (4503599627370496, -1126));
        assert_eq!(decode_double(f64::INFINITY), (4503599627370496, 972));
        assert_eq!(decode_double(f64::NAN), (-6755399441055744, 972));
        assert_eq!(decode_double(1.0), (4503599627370496, -52));
        assert_eq!(encode_double(&Z::S(3), -1075), 1.0e-323);
        assert_eq!(encode_double(&Z::S(1), -1075), 0.0);
        assert_eq!(encode_double(&Z::S(1), 1024), f64::INFINITY);
        assert_eq!(encode_double(&Z::S(3), 2), 12.0);
        for x in [1.5, -3.25e100, 5.0e-324, 2.2250738585072014e-308, 1.7e308] {
            let (m, e) = decode_double(x);
            assert_eq!(encode_double(&Z::S(m), e), x);
        }
    }

    #[test]
    fn integer_to_double_ghc() {
        let two = BigInt::from(2);
        let z = |b: BigInt| Z::norm(b);
        assert_eq!(
            integer_to_double(&z(two.pow(54) + 3)),
            1.8014398509481988e16
        );
        assert_eq!(
            integer_to_double(&z(two.pow(63) + 1025)),
            9.223372036854776e18
        );
        assert_eq!(
            integer_to_double(&z(two.pow(1024) - 1)),
            1.7976931348623157e308
        );
        assert_eq!(integer_to_double(&z(two.pow(1024))), f64::INFINITY);
        assert_eq!(integer_to_double(&z(-two.pow(1024))), f64::NEG_INFINITY);
    }

    #[test]
    fn truncate_exact() {
        assert_eq!(
            double_truncate(1.0e20).big().to_string(),
            "100000000000000000000"
        );
        assert_eq!(double_truncate(-2.7), Z::S(-2));
        assert_eq!(double_truncate(0.5), Z::S(0));
        assert_eq!(
            double_truncate(f64::INFINITY).big(),
            BigInt::from(2).pow(1024)
        );
    }

    #[test]
    fn integer_ops() {
        use Prim::*;
        assert_eq!(integer_op(IntegerDiv, &Z::S(-7), &Z::S(2)), Ok(Z::S(-4)));
        assert_eq!(integer_op(IntegerMod, &Z::S(-7), &Z::S(2)), Ok(Z::S(1)));
        assert_eq!(integer_op(IntegerQuot, &Z::S(-7), &Z::S(2)), Ok(Z::S(-3)));
        assert_eq!(integer_op(IntegerRem, &Z::S(-7), &Z::S(2)), Ok(Z::S(-1)));
        assert!(integer_op(IntegerDiv, &Z::S(1), &Z::S(0)).is_err());
        let r = integer_op(IntegerMul, &Z::S(i64::MAX), &Z::S(4)).unwrap();
        assert_eq!(r.big(), BigInt::from(i64::MAX) * 4);
        let r = integer_op(IntegerQuot, &Z::S(i64::MIN), &Z::S(-1)).unwrap();
        assert_eq!(r.big(), -BigInt::from(i64::MIN));
        assert_eq!(low_i64(&(BigInt::from(2).pow(63))), i64::MIN);
        assert_eq!(low_i64(&(-BigInt::from(2).pow(64) - 1)), -1);
    }

    #[test]
    fn unicode() {
        assert_eq!(general_category('A' as u32), 0);
        assert_eq!(general_category('é' as u32), 1);
        assert_eq!(general_category(0xD800), 27);
        assert_eq!(general_category(' ' as u32), 22);
        assert_eq!(to_upper('ß' as u32), 'ß' as u32);
        assert_eq!(to_upper('é' as u32), 'É' as u32);
        assert_eq!(to_lower(0x130), 'i' as u32);
        assert_eq!(to_title(0x1C6), 0x1C5);
        assert_eq!(to_upper(0x1F80), 0x1F88);
        assert_eq!(to_lower('Σ' as u32), 'σ' as u32);
    }
}
