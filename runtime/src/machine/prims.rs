//! The primitives (`code::Prim`) with exactly the semantics written in
//! prelude/Gph/Prim.gph: Integer with an i64 fast path, GHC's `show` for
//! Double, decodeFloat/encodeFloat, Unicode categories and case mappings,
//! and the IO primitives.
//!
//! A primitive reads its (evaluated) arguments into Rust values first and
//! only then allocates its result, so a collection during the allocation
//! never leaves a stale pointer in a Rust local.

use crate::code::{Prim, CONS, IORES, NIL};
use crate::machine::concurrency::{MVarOp, Suspend};
use crate::machine::heap::{h_info, h_kind, h_size, header, kind, Ptr, MAX_NODE_WORDS};
use crate::machine::io::IoErr;
use crate::machine::pe::{Pe, Thrown};
use crate::machine::thread::Thread;
// The pure primitives live in gph-code, which the stepper shares.
pub use gph_code::values::*;

/// The most nodes `primNormalForm` looks at: far more than a stream
/// element usually has, few enough that a walk that gives up (leaving the
/// library to walk the value with `rnf`) costs little beside that.
const NF_WALK: usize = 4096;
use num_bigint::{BigInt, BigUint, Sign};

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
    /// `IORes d`.
    IoDouble(f64),
    /// `IORes p`, `p` a node that exists.
    IoNode(Ptr),
    /// A list of nodes that exist.
    Nodes(Vec<Ptr>),
    /// `IORes [p]` or `IORes []`, `p` a node that exists.
    IoMaybe(Option<Ptr>),
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
            R::IoDouble(d) => {
                self.ensure(t, 4)?;
                let b = self.build_raw(kind::DOUBLE, d.to_bits());
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
            R::IoMaybe(x) => {
                self.tmp.extend(x);
                self.ensure(t, 5)?;
                let list = match x.map(|_| self.tmp.pop().expect("pushed")) {
                    Some(x) => self.build_con(CONS.0, &[x, l.nil_node]),
                    None => l.nil_node,
                };
                self.build_con(IORES.0, &[list])
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
        HSeek => {
            let (h, mode, n) = (intv(pe, t, 0)?, intv(pe, t, 1)?, intv(pe, t, 2)?);
            pe.io.seek(h, mode, n).map_err(|e| pe.io_error(e))?;
            R::IoUnit
        }
        HTell => {
            let h = intv(pe, t, 0)?;
            R::IoInt(pe.io.tell(h).map_err(|e| pe.io_error(e))?)
        }
        HFileSize => {
            let h = intv(pe, t, 0)?;
            R::IoInt(pe.io.file_size(h).map_err(|e| pe.io_error(e))?)
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
        HLookAhead => {
            let h = intv(pe, t, 0)?;
            R::IoChar(pe.io.look_ahead(h).map_err(|e| pe.io_error(e))? as u32)
        }
        HWaitForInput => {
            let h = intv(pe, t, 0)?;
            let ms = intv(pe, t, 1)?;
            R::IoBool(pe.io.wait_for_input(h, ms).map_err(|e| pe.io_error(e))?)
        }
        HIsTerminal => {
            let h = intv(pe, t, 0)?;
            R::IoBool(pe.io.is_terminal(h).map_err(|e| pe.io_error(e))?)
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
        CpuTime => R::IoInt(pe.io.started.elapsed().as_nanos() as i64),
        PosixTime => R::IoInt(crate::host::unix_time().as_nanos() as i64),
        Clock => R::IoDouble(pe.clock_now()),
        PeSpeed => R::IoDouble(pe.pe_speed(intv(pe, t, 0)?)?),
        PeLoad => R::IoDouble(pe.pe_load(intv(pe, t, 0)?)?),
        PeLatency => R::IoDouble(pe.pe_latency(intv(pe, t, 0)?)?),
        PeBandwidth => R::IoDouble(pe.pe_bandwidth(intv(pe, t, 0)?)?),
        GetEnvironment => R::IoStrs(
            std::env::vars_os()
                .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
                .collect(),
        ),
        GetProgName => R::IoStr(pe.io.prog_name.clone()),
        SetArgs => {
            let n = intv(pe, t, 0)?;
            let joined = pe.read_string(pe.arg(t, a(1)))?;
            pe.io.args = if n <= 0 {
                Vec::new()
            } else {
                joined.split('\0').map(String::from).collect()
            };
            R::IoUnit
        }
        SetProgName => {
            pe.io.prog_name = pe.read_string(pe.arg(t, a(0)))?;
            R::IoUnit
        }
        SystemInfo => R::Str(system_info(intv(pe, t, 0)?).into()),
        ExitWith => {
            let code = intv(pe, t, 0)?;
            // Under a handler, exitWith is GHC's ExitCode exception: the
            // handler may catch it (or `finally` run its clean-up first).
            if t.frames
                .iter()
                .any(|f| f.kind == crate::machine::thread::fk::CATCH)
            {
                pe.thrown = Some(Thrown::Exit(code as i32));
                let shown = match code {
                    0 => "ExitSuccess".to_string(),
                    n if n < 0 => format!("ExitFailure ({n})"),
                    n => format!("ExitFailure {n}"),
                };
                return Err(Stop::Error(shown));
            }
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
        Fork => R::IoInt(pe.fork(t, a(0)) as i64),
        EdenFork => {
            pe.fork(t, a(0));
            R::IoUnit
        }
        MyThreadId => R::IoInt(t.id as i64),
        Yield => {
            pe.suspend = Some(Suspend::Yield);
            R::IoUnit
        }
        Delay => {
            pe.delay(intv(pe, t, 0)?);
            R::IoUnit
        }
        KillThread => {
            pe.kill_thread(t, intv(pe, t, 0)?)?;
            R::IoUnit
        }
        NewMVar | NewEmptyMVar => {
            let x = (p == NewMVar).then(|| pe.arg(t, a(0)));
            pe.tmp.extend(x);
            pe.ensure(t, 2)?;
            let x = x.map(|_| pe.tmp.pop().expect("pushed"));
            R::IoNode(pe.new_mvar(x))
        }
        TakeMVar | ReadMVar | TryTakeMVar | TryReadMVar => {
            let take = matches!(p, TakeMVar | TryTakeMVar);
            let tries = matches!(p, TryTakeMVar | TryReadMVar);
            match pe.mvar_take(t, a(0), take)? {
                MVarOp::Done(v) if tries => R::IoMaybe(v),
                MVarOp::Done(v) => R::IoNode(v.expect("a taken value")),
                MVarOp::Refused if tries => R::IoMaybe(None),
                MVarOp::Refused => {
                    pe.block_on_mvar(t, a(0));
                    return Ok(());
                }
            }
        }
        PutMVar | TryPutMVar => match pe.mvar_put(t, a(0), a(1))? {
            MVarOp::Done(_) if p == TryPutMVar => R::IoBool(true),
            MVarOp::Done(_) => R::IoUnit,
            MVarOp::Refused if p == TryPutMVar => R::IoBool(false),
            MVarOp::Refused => {
                pe.block_on_mvar(t, a(0));
                return Ok(());
            }
        },
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

/// System.Info's `os` (k = 0) and `arch` (k = 1) by GHC's names for the
/// platforms gph builds on (Rust calls macOS "macos", GHC "darwin";
/// Windows "windows", GHC "mingw32").
fn system_info(k: i64) -> &'static str {
    if k == 0 {
        match std::env::consts::OS {
            "macos" => "darwin",
            "windows" => "mingw32",
            os => os,
        }
    } else {
        match std::env::consts::ARCH {
            "x86" => "i386",
            arch => arch,
        }
    }
}
