//! gph-code: what the compiler and the machine share, and nothing else.
//! The instruction set (this module: what the code generator produces and
//! the reducer runs), its checker (`validate`, the contract the machine
//! relies on), names (`split_qual`) and the values both compute with
//! (`values`: Integers, the operations on value registers, the pure
//! primitives). Its own crate so that the compiler does not depend on the
//! machine: a change to the reducer rebuilds neither the compiler nor the
//! stepper (docs/design.md, "The pipeline").
//!
//! # The machine model
//!
//! A program is a table of *supercombinators* (closed functions, after lambda
//! lifting), a table of *constructors* and a table of *globals*. The code is
//! shared read-only by every PE; nothing in it points into a heap.
//!
//! Each running supercombinator has an *activation*: a window of pointer
//! registers `Reg(0..nregs)` on the thread's pointer stack, and a window of
//! unboxed registers `VReg(0..nvregs)` on its value stack. On entry the
//! supercombinator's boxed parameters are in `Reg(0..arity)` and its unboxed
//! parameters (workers only) in `VReg(0..varity)`; the other registers are
//! scratch, initially the dummy pointer (a static nullary node) or 0. The
//! garbage collector scans pointer registers, never value registers; that is
//! why the two are separate. A pointer register may hold an unevaluated
//! closure; `Eval` makes it hold a value in weak head normal form (WHNF).
//!
//! Return continuations are kept in a third stack of frames (pure data: code
//! position and register bases), so a call never recurses in Rust and a
//! thread can be suspended at any instruction boundary (time slices,
//! blocking on a black hole).
//!
//! # Closures and values
//!
//! * A *function value* is a supercombinator of kind [`ScKind::Fun`] with
//!   none, or fewer than `arity`, of its arguments (a partial application,
//!   PAP). `Global` of a function gives its static, argument-less node.
//! * A *thunk* is a supercombinator of kind [`ScKind::Thunk`] with all its
//!   `arity` arguments (its free variables); evaluating it runs the code with
//!   an update frame, so it is evaluated at most once and then overwritten by
//!   (an indirection to) its value. While under evaluation it is a black
//!   hole: another thread that evaluates it blocks until the update; the
//!   same thread evaluating it again is the `<<loop>>` error.
//! * A *CAF* is a global of kind [`ScKind::Caf`]: a thunk with no free
//!   variables, one per PE, a GC root.
//! * Data values are constructor nodes (`MkCon`; nullary constructors are
//!   static and never allocated) and the primitive values: `Int` (i64,
//!   wrapping), `Double` (f64), `Char` (a code point), `Integer` (arbitrary
//!   precision). In value registers an Int is its i64, a Double its bits
//!   (`f64::to_bits`), a Char its code point.
//! * `IO a` is a function of one argument, the *world token* (the unit
//!   constructor `()`), that does its effects and returns `IORes r` (the
//!   built-in constructor [`IORES`], one lazy field, the result). The
//!   program's `main` is run by applying it to the world token and
//!   evaluating the result.
//!
//! # Strict constructor fields
//!
//! `MkCon` never evaluates: the code generator evaluates the arguments of
//! strict fields (`!t`) before `MkCon` (constructor wrappers used as
//! functions do the same).
//!
//! # Calling conventions
//!
//! * `Call`/`TailCall` call a known supercombinator with exactly its arity
//!   (`args.len() == arity`, `vargs.len() == varity`).
//! * A supercombinator returns with `Ret` (a pointer to a WHNF value; its
//!   [`Supercomb::returns`] is [`RetKind::Boxed`]) or `RetV` (an unboxed
//!   value; `RetKind::Int`, `Double` or `Char`). `Call` is used for boxed
//!   returns, `CallV` for unboxed ones. Thunks, CAFs and any supercombinator
//!   that can be a function value (reachable through `Global`, `MkPap`)
//!   return boxed and have `varity == 0`.
//! * `Apply`/`TailApply` apply an evaluated function value (FUN or PAP) to
//!   any number of boxed arguments: exact, partial (builds a PAP) or over-
//!   saturated (calls with `arity` arguments, then applies the result to the
//!   rest).
//! * `Enter` is a tail evaluation: the activation ends and the thread
//!   continues by evaluating the closure; its value is returned to the
//!   caller as `Ret` would.
//! * A tail call (`TailCall`, `TailApply`, `Enter`) never grows the stacks.

pub mod asm;
pub mod validate;
pub mod values;

use num_bigint::BigInt;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A pointer register of the current activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Reg(pub u16);

/// An unboxed (value) register of the current activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct VReg(pub u16);

/// An index into [`Program::scs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScId(pub u32);

/// An index into [`Program::cons`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ConId(pub u32);

/// An index into [`Program::globals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GlobalId(pub u32);

/// An instruction address within one supercombinator's code.
pub type Pc = u32;

/// The built-in constructors, at fixed positions of [`Program::cons`] (the
/// code generator puts them there first, in this order).
pub const UNIT: ConId = ConId(0); // ()          tag 0, arity 0
pub const NIL: ConId = ConId(1); // []          tag 0, arity 0
pub const CONS: ConId = ConId(2); // (:)         tag 1, arity 2
pub const FALSE: ConId = ConId(3); // Gph.Prim.False tag 0, arity 0
pub const TRUE: ConId = ConId(4); // Gph.Prim.True  tag 1, arity 0
pub const IORES: ConId = ConId(5); // IORes r     tag 0, arity 1 (lazy)

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ConInfo {
    /// The original name (`Main.Circle`, `:`, `(,)`).
    pub name: String,
    /// Position among the constructors of its type.
    pub tag: u32,
    pub arity: u32,
    /// The number of constructors of its type (for printing and checks).
    pub siblings: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScKind {
    /// A function (or constructor wrapper, primitive wrapper, worker).
    Fun,
    /// The code of a thunk: parameters are the free variables it captured.
    Thunk,
    /// The code of a top-level constant (arity 0, one per PE, updatable).
    Caf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RetKind {
    Boxed,
    Int,
    Double,
    Char,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Supercomb {
    /// The source-level name (`Main.nfib`, `Main.nfib$w` for a worker,
    /// `Main.f$l3` for a lifted lambda, `Main.f$t4` for a thunk body).
    pub name: String,
    pub kind: ScKind,
    /// Boxed parameters, in `Reg(0..arity)`.
    pub arity: u16,
    /// Unboxed parameters, in `VReg(0..varity)` (workers only).
    pub varity: u16,
    pub nregs: u16,
    pub nvregs: u16,
    pub returns: RetKind,
    pub code: Vec<Instr>,
}

/// A top-level entity by its [`GlobalId`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Global {
    /// A function: `Global` gives its static FUN node.
    Fun(ScId),
    /// A constant applicative form: `Global` gives this PE's CAF node.
    Caf(ScId),
}

/// Binary operations on value registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VOp {
    // Int (wrapping). Division by zero and minBound `quot` (-1) are
    // run-time errors "divide by zero" / "arithmetic overflow" (see the
    // primitives' comments in prelude/Gph/Prim.gph).
    IAdd,
    ISub,
    IMul,
    IQuot,
    IRem,
    IDiv,
    IMod,
    // Int bits (Data.Bits): and, or, xor; shifts by the second operand
    // (a negative shift is the run-time error "arithmetic overflow", as
    // GHC's shiftL/shiftR; by 64 or more: 0, or the sign for IShr).
    IAnd,
    IOr,
    IXor,
    IShl,
    /// Arithmetic shift right.
    IShr,
    /// Logical shift right.
    IShrL,
    // Double
    DAdd,
    DSub,
    DMul,
    DDiv,
    DPow,
    /// powf on two Floats held in Doubles.
    FPow,
}

/// Unary operations on value registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VUnOp {
    INeg,
    /// Data.Bits on Int: complement, popCount, countLeadingZeros,
    /// countTrailingZeros.
    INot,
    IPopCount,
    IClz,
    ICtz,
    DNeg,
    /// Rounds a Double to the nearest single-precision value (`Float`).
    DToFloat,
    IntToDouble,
    /// Char code point to Int (`ord`) and back (`chr`, checked: run-time
    /// error "Prelude.chr: bad argument: N" outside 0..=0x10FFFF).
    Ord,
    Chr,
    DExp,
    DLog,
    DSqrt,
    DSin,
    DCos,
    DTan,
    DAsin,
    DAcos,
    DAtan,
    DSinh,
    DCosh,
    DTanh,
    DAsinh,
    DAcosh,
    DAtanh,
    /// GHC's libm functions: log1p and expm1 on a Double, and the
    /// single-precision ones (`sinf`, ...) a Float calls, on a Float held
    /// in a Double.
    DLog1p,
    DExpm1,
    FExp,
    FLog,
    FSin,
    FCos,
    FTan,
    FAsin,
    FAcos,
    FAtan,
    FSinh,
    FCosh,
    FTanh,
    FAsinh,
    FAcosh,
    FAtanh,
    FLog1p,
    FExpm1,
}

/// Comparisons of value registers (Int and Char compare as i64, Double as
/// f64 with IEEE semantics: every comparison with NaN is false but `Ne`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cmp {
    IEq,
    INe,
    ILt,
    ILe,
    IGt,
    IGe,
    DEq,
    DNe,
    DLt,
    DLe,
    DGt,
    DGe,
}

impl Cmp {
    /// Whether the comparison holds of two value registers' bits (Int
    /// comparisons read them as i64, Double ones as f64). The one
    /// definition both machines use (the reducer, and the stepper).
    #[inline(always)]
    pub fn holds(self, a: u64, b: u64) -> bool {
        let (ia, ib) = (a as i64, b as i64);
        let (fa, fb) = (f64::from_bits(a), f64::from_bits(b));
        match self {
            Cmp::IEq => ia == ib,
            Cmp::INe => ia != ib,
            Cmp::ILt => ia < ib,
            Cmp::ILe => ia <= ib,
            Cmp::IGt => ia > ib,
            Cmp::IGe => ia >= ib,
            Cmp::DEq => fa == fb,
            Cmp::DNe => fa != fb,
            Cmp::DLt => fa < fb,
            Cmp::DLe => fa <= fb,
            Cmp::DGt => fa > fb,
            Cmp::DGe => fa >= fb,
        }
    }
}

/// Primitives on boxed, already evaluated arguments (the code generator
/// emits `Eval` for each argument first, and evaluates lists fully where
/// the primitive needs it: see each variant). A primitive never evaluates a
/// closure itself. Those marked "IO" take the world token as an extra last
/// argument and return `IORes r`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Prim {
    // Integer: evaluated Integer arguments, Integer (or Bool) result.
    IntegerAdd,
    IntegerSub,
    IntegerMul,
    IntegerNegate,
    IntegerQuot,
    IntegerRem,
    IntegerDiv,
    IntegerMod,
    IntegerEq,
    IntegerNe,
    IntegerLt,
    IntegerLe,
    IntegerGt,
    IntegerGe,
    IntegerToInt,
    IntegerToDouble,
    IntToInteger,
    DoubleTruncate,
    DoubleDecodeMantissa,
    DoubleDecodeExponent,
    /// (Integer mantissa, Int exponent) -> Double
    DoubleEncode,
    DoubleIsNaN,
    DoubleIsInfinite,
    DoubleIsNegativeZero,
    CharGeneralCategory,
    CharToUpper,
    CharToLower,
    CharToTitle,
    // Showing: evaluated Int/Integer/Double, result a fully built [Char].
    IntShow,
    IntegerShow,
    DoubleShow,
    /// A Double holding a single-precision value, shown as GHC shows a Float.
    FloatShow,
    /// The argument is a fully evaluated [Char] (every cell and character
    /// evaluated): raises the run-time error with that message.
    Raise,
    /// IO. An evaluated Int (the handle) and a fully evaluated [Char]:
    /// writes it to the handle (buffered as the hPutStr comment of Gph.Prim
    /// says).
    PutStr,
    /// IO. An evaluated Int, the handle, for these and HClose .. HGetBuffering.
    GetChar,
    GetLine,
    /// The handle's contents as a lazy list (an unevaluated node).
    GetContents,
    HClose,
    HFlush,
    /// IO Bool.
    HIsEof,
    /// IO. The handle and an evaluated Int, the buffer mode's code.
    HSetBuffering,
    /// IO Int: the buffer mode's code.
    HGetBuffering,
    /// IO Char: the handle's next character, left in its input (hLookAhead).
    HLookAhead,
    /// IO Bool: the handle and an evaluated Int, milliseconds to wait (GHC's
    /// hWaitForInput; a negative wait is for ever).
    HWaitForInput,
    /// IO Bool: whether the handle is a terminal.
    HIsTerminal,
    /// IO. A fully evaluated path and an evaluated Int (the IOMode): the
    /// new handle.
    OpenFile,
    /// IO. Two fully evaluated strings (directory, template): the path of
    /// a new empty file.
    OpenTempFile,
    /// IO. A fully evaluated path.
    RemoveFile,
    /// IO Bool. A fully evaluated path.
    DoesFileExist,
    /// IO. A fully evaluated name: `[value]`, or `[]` when it is not set.
    LookupEnv,
    GetArgs,
    /// IO [[Char]]: the environment as `NAME=value` strings.
    GetEnvironment,
    /// IO Int: nanoseconds of run time so far (System.CPUTime).
    CpuTime,
    /// IO Int: nanoseconds since 1970-01-01 00:00 UTC, the host's wall
    /// clock (Data.Time.Clock).
    PosixTime,
    /// IO Double: the engine's clock, seconds (virtual on the sim engine;
    /// runtime machine::view).
    Clock,
    /// IO Double. Evaluated Int k (1 .. noPe): PE k's relative speed.
    PeSpeed,
    /// IO Double. Evaluated Int k: PE k's background load now.
    PeLoad,
    /// IO Double. Evaluated Int k: the latency from this PE to PE k, s.
    PeLatency,
    /// IO Double. Evaluated Int k: the bandwidth to PE k, bytes/s.
    PeBandwidth,
    GetProgName,
    /// IO. Evaluated Ints h, mode (0 absolute, 1 relative, 2 from the
    /// end) and offset: hSeek.
    HSeek,
    /// IO Int. Evaluated Int h: hTell, bytes.
    HTell,
    /// IO Int. Evaluated Int h: hFileSize, bytes.
    HFileSize,
    /// IO. An evaluated Int n and a fully evaluated string: the program's
    /// arguments become the string's n pieces between NULs (which no
    /// argument can hold), as System.Environment.withArgs needs.
    SetArgs,
    /// IO. A fully evaluated string: the program's name from now on.
    SetProgName,
    /// Evaluated Int k: the host's operating system (k = 0) or machine
    /// architecture (k = 1), named as GHC's System.Info names them.
    SystemInfo,
    /// IO. Evaluated Int: ends the program with that exit status.
    ExitWith,
    /// The number of PEs of the run.
    NoPe,
    /// The number of the PE that evaluates it, from 1 (the main PE) to
    /// `NoPe`, as in Eden.
    SelfPe,
    /// Eden's primitives (parallel::eden, docs/eden.md). IO: a new
    /// channel into this PE (its name, an Int).
    EdenNewChan,
    /// IO. Evaluated Int: the placeholder of a channel made here.
    EdenChanValue,
    /// IO. Evaluated Int (the PE from 1, or 0: round robin) and a function
    /// of the input (an IO action): a new process; the name of its input
    /// channel.
    EdenCreate,
    /// IO. An IO action: a new thread of this PE (and of this Eden
    /// process) running it: its id, an Int (forkIO).
    Fork,
    /// IO. The same, answering unit (Eden's threads: the library's
    /// reductions, and so the sim's virtual times, as they were).
    EdenFork,
    /// IO. Evaluated Int: this thread sends on that channel from now on.
    EdenConnect,
    /// IO. A channel and an evaluated value: a tuple splits the channel
    /// into one per component (their number), anything else gives 0.
    EdenSplit,
    /// IO. A channel and a value in normal form: sends it as a stream
    /// element: 1, 2 when the stream's window is full (`EdenGate` before
    /// the next), or 0 when the receiver dropped the channel.
    EdenSendHead,
    /// IO. The same, as the channel's last value.
    EdenSendValue,
    /// IO. Evaluated Int: a node to evaluate before the next element on
    /// that channel: it blocks until the receiver has made room.
    EdenGate,
    /// An evaluated value: the list of a constructor's fields ([] for
    /// anything else), for the library's generic normal-form walk.
    ConFields,
    /// An evaluated value: 0 for [], 1 for (:), 2 for anything else.
    ListCell,
    /// Any value: 1 if it is in normal form (no thunk in it, found within
    /// a walk of `NF_WALK` nodes), else 0. Evaluates nothing.
    NormalForm,
    /// IO. Any value: a new mutable cell (MUTVAR) holding it.
    NewIORef,
    /// IO. An evaluated cell: its value (unevaluated, as it was written).
    ReadIORef,
    /// IO. An evaluated cell and any value.
    WriteIORef,
    /// Two evaluated cells: Bool, whether they are the same cell.
    SameIORef,
    /// IO. Any value: a new MVar (a MUTVAR marked as one) holding it.
    NewMVar,
    /// IO. A new empty MVar.
    NewEmptyMVar,
    /// IO. An evaluated MVar: its value, leaving it empty; the thread
    /// blocks while it is empty.
    TakeMVar,
    /// IO. An evaluated MVar and any value: fills it; the thread blocks
    /// while it is full.
    PutMVar,
    /// IO. An evaluated MVar: its value, leaving it full (blocks while
    /// empty).
    ReadMVar,
    /// IO. An evaluated MVar: `[value]`, emptying it, or `[]` when empty.
    TryTakeMVar,
    /// IO Bool. An evaluated MVar and any value: whether it was empty (and
    /// is filled now).
    TryPutMVar,
    /// IO. An evaluated MVar: `[value]` or `[]`, leaving it as it is.
    TryReadMVar,
    /// IO Int: the running thread's id.
    MyThreadId,
    /// IO: ends the thread's time slice; it goes to the back of the run
    /// queue.
    Yield,
    /// IO. An evaluated Int: the thread sleeps that many microseconds
    /// (wall clock) while the PE runs others.
    Delay,
    /// IO. An evaluated Int, a thread id of this PE: that thread ends (its
    /// thunks under evaluation raise "thread killed" when demanded).
    KillThread,
    /// IO. An evaluated Int n >= 0 and any value: a new array of n
    /// elements, each that value.
    ArrNew,
    /// IO. An evaluated array and an evaluated Int in range: the element.
    ArrRead,
    /// IO. An evaluated array, an evaluated Int in range and any value.
    ArrWrite,
    /// An evaluated array and an evaluated Int in range: the element, which
    /// may be unevaluated (the only primitive whose result may not be in
    /// WHNF: the code generator evaluates it when needed).
    ArrIndex,
    /// An evaluated array: its number of elements (Int).
    ArrSize,
    /// Integer bits: evaluated Integers (the shifts: an Integer and an
    /// evaluated Int >= 0), two's complement semantics.
    IntegerAnd,
    IntegerOr,
    IntegerXor,
    IntegerShiftL,
    IntegerShiftR,
    /// IO. Any value (the exception), a fully evaluated [Char] (its
    /// message): raises the exception. The innermost CatchIO of the thread
    /// gets it; without one, it is the run-time error with the message.
    RaiseIO,
    /// IO. An evaluated IO action and an evaluated handler: runs the action
    /// (the reducer does: it is not a primitive of `machine::prims`); if it
    /// raises, the handler is applied to the exception's strings and value
    /// (see Gph.Prim's catchIO) and the world.
    CatchIO,
}

impl Prim {
    /// The number of (boxed) arguments, the world token of the IO ones
    /// included.
    pub fn arity(self) -> usize {
        use Prim::*;
        match self {
            NoPe | SelfPe => 0,
            ArrWrite | HSeek => 4,
            EdenCreate | EdenSplit | EdenSendHead | EdenSendValue | PutStr | HSetBuffering
            | OpenFile | OpenTempFile | WriteIORef | ArrNew | ArrRead | RaiseIO | CatchIO
            | HWaitForInput | SetArgs => 3,
            EdenChanValue | Fork | EdenFork | EdenConnect | EdenGate => 2,
            NewMVar | TakeMVar | ReadMVar | TryTakeMVar | TryReadMVar | Delay | KillThread => 2,
            PutMVar | TryPutMVar => 3,
            PeSpeed | PeLoad | PeLatency | PeBandwidth | SetProgName => 2,
            IntegerAdd | IntegerSub | IntegerMul | IntegerQuot | IntegerRem | IntegerDiv
            | IntegerMod | IntegerEq | IntegerNe | IntegerLt | IntegerLe | IntegerGt
            | IntegerGe | DoubleEncode | ExitWith => 2,
            GetChar | GetLine | GetContents | HClose | HFlush | HIsEof | HGetBuffering
            | HLookAhead | HIsTerminal | HTell | HFileSize | RemoveFile | DoesFileExist
            | LookupEnv | NewIORef | ReadIORef | SameIORef | ArrIndex | IntegerAnd | IntegerOr
            | IntegerXor | IntegerShiftL | IntegerShiftR => 2,
            _ => 1,
        }
    }
}

/// One instruction. Register operands are of the current activation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Instr {
    // ----- moves and constants
    Move {
        dst: Reg,
        src: Reg,
    },
    MoveV {
        dst: VReg,
        src: VReg,
    },
    /// A function's static node, or this PE's node of a CAF.
    Global {
        dst: Reg,
        g: GlobalId,
    },
    /// An unboxed constant: Int as i64, Double as its bits, Char as its
    /// code point.
    ConstV {
        dst: VReg,
        bits: u64,
    },
    /// An Integer constant from [`Program::integers`].
    Integer {
        dst: Reg,
        idx: u32,
    },
    /// A string literal from [`Program::strings`] as a lazily unpacked
    /// `[Char]` (a closure that builds the list as it is demanded).
    Str {
        dst: Reg,
        idx: u32,
    },
    BoxInt {
        dst: Reg,
        src: VReg,
    },
    BoxDouble {
        dst: Reg,
        src: VReg,
    },
    BoxChar {
        dst: Reg,
        src: VReg,
    },
    /// The contents of an evaluated Int, Double or Char node.
    Unbox {
        dst: VReg,
        src: Reg,
    },

    // ----- allocation (never evaluates)
    /// A constructor node with these fields (nullary: the static node).
    MkCon {
        dst: Reg,
        con: ConId,
        args: Vec<Reg>,
    },
    /// A thunk of `sc` (kind `Thunk`) with its free variables.
    MkThunk {
        dst: Reg,
        sc: ScId,
        args: Vec<Reg>,
    },
    /// A partial application of `sc` (kind `Fun`, `args.len() < arity`).
    MkPap {
        dst: Reg,
        sc: ScId,
        args: Vec<Reg>,
    },
    /// Overwrites field `field` of the node just built in `node` (by
    /// `MkCon`/`MkThunk`/`MkPap` in this activation): ties `letrec` knots.
    Fill {
        node: Reg,
        field: u16,
        src: Reg,
    },

    // ----- evaluation and control
    /// `reg` := its value in WHNF (following indirections; may run code,
    /// block the thread, or raise `<<loop>>`).
    Eval {
        reg: Reg,
    },
    /// `reg` holds an evaluated constructor: jump to `targets[tag]`.
    Switch {
        reg: Reg,
        targets: Vec<Pc>,
    },
    /// `reg` holds an evaluated constructor: copy its fields `0..n` into
    /// `dst, dst+1, ...`.
    Fields {
        reg: Reg,
        dst: Reg,
        n: u16,
    },
    /// One field of an evaluated constructor.
    Field {
        dst: Reg,
        reg: Reg,
        field: u16,
    },
    Jump {
        target: Pc,
    },
    /// Jump when the comparison holds.
    BranchCmp {
        cmp: Cmp,
        a: VReg,
        b: VReg,
        target: Pc,
    },
    /// Jump when `a` equals the constant.
    BranchEqConst {
        a: VReg,
        bits: u64,
        target: Pc,
    },
    OpV {
        op: VOp,
        dst: VReg,
        a: VReg,
        b: VReg,
    },
    UnOpV {
        op: VUnOp,
        dst: VReg,
        a: VReg,
    },
    /// A Bool constructor node (the static `False`/`True`) from a comparison.
    CmpBool {
        cmp: Cmp,
        dst: Reg,
        a: VReg,
        b: VReg,
    },
    /// A primitive on evaluated arguments; the result in `dst` is in WHNF.
    Prim {
        prim: Prim,
        dst: Reg,
        args: Vec<Reg>,
    },

    // ----- calls and returns
    /// Calls a known supercombinator (boxed return); the WHNF result is put
    /// in `dst`.
    Call {
        sc: ScId,
        args: Vec<Reg>,
        vargs: Vec<VReg>,
        dst: Reg,
    },
    /// Calls a known supercombinator with an unboxed return.
    CallV {
        sc: ScId,
        args: Vec<Reg>,
        vargs: Vec<VReg>,
        dst: VReg,
    },
    /// Replaces this activation by a call (same return kind).
    TailCall {
        sc: ScId,
        args: Vec<Reg>,
        vargs: Vec<VReg>,
    },
    /// Applies the evaluated function value in `f` to `args`; the WHNF
    /// result goes in `dst`.
    Apply {
        f: Reg,
        args: Vec<Reg>,
        dst: Reg,
    },
    /// Replaces this activation by an application (boxed return).
    TailApply {
        f: Reg,
        args: Vec<Reg>,
    },
    /// Returns the WHNF value in `reg`.
    Ret {
        reg: Reg,
    },
    /// Returns an unboxed value.
    RetV {
        reg: VReg,
    },
    /// Ends this activation and evaluates the closure in `reg`, returning
    /// its value (boxed return).
    Enter {
        reg: Reg,
    },

    // ----- parallelism
    /// Records a spark for the closure in `reg` (nothing if it is already
    /// a value).
    Par {
        reg: Reg,
    },
}

/// Splits an original name such as `Data.List.sortBy` into its module
/// qualifier `Data.List.` and the name `sortBy` (`Prelude..` is the
/// operator `.` of `Prelude`). The one definition the compiler and the
/// runtime's printers use.
pub fn split_qual(s: &str) -> (&str, &str) {
    let mut i = 0;
    loop {
        let rest = &s[i..];
        let id = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
            .unwrap_or(rest.len());
        if id > 0
            && rest.starts_with(|c: char| c.is_uppercase())
            && rest[id..].starts_with('.')
            && id + 1 < rest.len()
        {
            i += id + 1;
        } else {
            return s.split_at(i);
        }
    }
}

/// New numbers for the tables an instruction indexes (when programs are
/// linked together, `crate::session::link`): `sc[i]` is the new number of
/// supercombinator `i`, and so on.
pub struct Renumber<'a> {
    pub sc: &'a [ScId],
    pub con: &'a [ConId],
    pub global: &'a [GlobalId],
    pub string: &'a [u32],
    pub integer: &'a [u32],
}

impl Instr {
    /// The instruction with every table index renumbered.
    pub fn renumbered(&self, r: &Renumber) -> Instr {
        let mut i = self.clone();
        match &mut i {
            Instr::Global { g, .. } => *g = r.global[g.0 as usize],
            Instr::Integer { idx, .. } => *idx = r.integer[*idx as usize],
            Instr::Str { idx, .. } => *idx = r.string[*idx as usize],
            Instr::MkCon { con, .. } => *con = r.con[con.0 as usize],
            Instr::MkThunk { sc, .. }
            | Instr::MkPap { sc, .. }
            | Instr::Call { sc, .. }
            | Instr::CallV { sc, .. }
            | Instr::TailCall { sc, .. } => *sc = r.sc[sc.0 as usize],
            _ => {}
        }
        i
    }
}

/// A compiled program.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Program {
    pub cons: Vec<ConInfo>,
    pub scs: Vec<Supercomb>,
    pub globals: Vec<Global>,
    /// Names of the globals (`Main.main`), for `:sc`, errors and dumps.
    pub global_names: Vec<String>,
    pub strings: Vec<String>,
    pub integers: Vec<BigInt>,
    /// `Main.main`, an `IO ()` (or `IO t`) value.
    pub main: Option<GlobalId>,
}

impl Program {
    pub fn sc(&self, id: ScId) -> &Supercomb {
        &self.scs[id.0 as usize]
    }
    pub fn con(&self, id: ConId) -> &ConInfo {
        &self.cons[id.0 as usize]
    }
}

// ------------------------------------------------------------- printing

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

impl fmt::Display for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

fn regs<T: fmt::Display>(rs: &[T]) -> String {
    rs.iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Program {
    fn sc_name(&self, id: ScId) -> &str {
        self.scs
            .get(id.0 as usize)
            .map(|s| s.name.as_str())
            .unwrap_or("?")
    }

    /// One instruction in the `gph dump --stage code` format.
    pub fn show_instr(&self, i: &Instr) -> String {
        use Instr::*;
        let call = |sc: &ScId, a: &[Reg], v: &[VReg]| {
            let mut s = format!("{} [{}]", self.sc_name(*sc), regs(a));
            if !v.is_empty() {
                s.push_str(&format!(" [{}]", regs(v)));
            }
            s
        };
        match i {
            Move { dst, src } => format!("{dst} := {src}"),
            MoveV { dst, src } => format!("{dst} := {src}"),
            Global { dst, g } => format!(
                "{dst} := global {}",
                self.global_names
                    .get(g.0 as usize)
                    .map(String::as_str)
                    .unwrap_or("?")
            ),
            ConstV { dst, bits } => format!("{dst} := const {bits:#x} ({})", *bits as i64),
            Integer { dst, idx } => format!(
                "{dst} := integer {}",
                self.integers
                    .get(*idx as usize)
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ),
            Str { dst, idx } => format!(
                "{dst} := string {:?}",
                self.strings
                    .get(*idx as usize)
                    .map(String::as_str)
                    .unwrap_or("")
            ),
            BoxInt { dst, src } => format!("{dst} := box int {src}"),
            BoxDouble { dst, src } => format!("{dst} := box double {src}"),
            BoxChar { dst, src } => format!("{dst} := box char {src}"),
            Unbox { dst, src } => format!("{dst} := unbox {src}"),
            MkCon { dst, con, args } => {
                format!("{dst} := con {} [{}]", self.con(*con).name, regs(args))
            }
            MkThunk { dst, sc, args } => {
                format!("{dst} := thunk {}", call(sc, args, &[]))
            }
            MkPap { dst, sc, args } => format!("{dst} := pap {}", call(sc, args, &[])),
            Fill { node, field, src } => format!("{node}.{field} := {src}"),
            Eval { reg } => format!("eval {reg}"),
            Switch { reg, targets } => format!(
                "switch {reg} [{}]",
                targets
                    .iter()
                    .map(|t| format!("@{t}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            Fields { reg, dst, n } => format!("{dst}..+{n} := fields {reg}"),
            Field { dst, reg, field } => format!("{dst} := {reg}.{field}"),
            Jump { target } => format!("jump @{target}"),
            BranchCmp { cmp, a, b, target } => format!("if {a} {cmp:?} {b} jump @{target}"),
            BranchEqConst { a, bits, target } => {
                format!("if {a} == {:#x} jump @{target}", bits)
            }
            OpV { op, dst, a, b } => format!("{dst} := {op:?} {a} {b}"),
            UnOpV { op, dst, a } => format!("{dst} := {op:?} {a}"),
            CmpBool { cmp, dst, a, b } => format!("{dst} := bool {cmp:?} {a} {b}"),
            Prim { prim, dst, args } => format!("{dst} := prim {prim:?} [{}]", regs(args)),
            Call {
                sc,
                args,
                vargs,
                dst,
            } => format!("{dst} := call {}", call(sc, args, vargs)),
            CallV {
                sc,
                args,
                vargs,
                dst,
            } => format!("{dst} := callv {}", call(sc, args, vargs)),
            TailCall { sc, args, vargs } => format!("tailcall {}", call(sc, args, vargs)),
            Apply { f, args, dst } => format!("{dst} := apply {f} [{}]", regs(args)),
            TailApply { f, args } => format!("tailapply {f} [{}]", regs(args)),
            Ret { reg } => format!("ret {reg}"),
            RetV { reg } => format!("retv {reg}"),
            Enter { reg } => format!("enter {reg}"),
            Par { reg } => format!("par {reg}"),
        }
    }

    /// One supercombinator's code, as `gph dump --stage code` prints it.
    pub fn show_sc(&self, id: ScId) -> String {
        let sc = self.sc(id);
        let mut out = format!(
            "{} ({:?}, arity {}{}, {} regs{}, returns {:?})\n",
            sc.name,
            sc.kind,
            sc.arity,
            if sc.varity > 0 {
                format!(" + {} unboxed", sc.varity)
            } else {
                String::new()
            },
            sc.nregs,
            if sc.nvregs > 0 {
                format!(" + {} unboxed", sc.nvregs)
            } else {
                String::new()
            },
            sc.returns
        );
        for (pc, i) in sc.code.iter().enumerate() {
            out.push_str(&format!("  {pc:4}  {}\n", self.show_instr(i)));
        }
        out
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..self.scs.len() {
            writeln!(f, "{}", self.show_sc(ScId(i as u32)))?;
        }
        Ok(())
    }
}
