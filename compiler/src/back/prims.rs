//! The primitives of `Gph.Prim`, as the back end sees them.
//!
//! Every `foreign import prim "NAME"` is found here by its runtime name.
//! The table says the primitive's arity (IO primitives count the world
//! token as an extra last argument), the types of its arguments and result
//! as far as the code generator cares (which arguments are evaluated and
//! unboxed, what kind of value comes back), and how it is compiled:
//!
//! * `Bin`/`Un`: an `OpV`/`UnOpV` on value registers (inline when
//!   saturated);
//! * `Cmp`: a comparison (`BranchCmp` under a `case`, `CmpBool` otherwise);
//! * `Rt`: a `code::Prim` on evaluated boxed arguments;
//! * `Special`: code the generator writes (`seq`, `par`, `error`, IO ...).
//!
//! Used as a value, every primitive is a wrapper supercombinator of kind
//! `Fun` named after the primitive's original name (`Gph.Prim.primIntAdd`)
//! whose body is the saturated application.

use gph_code::{Cmp, Prim, VOp, VUnOp};

/// What the code generator needs to know about a value's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Int,
    Double,
    Char,
    Integer,
    Bool,
    /// Evaluated to weak head normal form and passed boxed (an IORef, an
    /// array).
    Whnf,
    /// A `[Char]` evaluated completely (every cell and character), as the
    /// runtime reads it (a path, a name).
    Str,
    /// Anything else: passed as it is (not evaluated), e.g. `a`, lists.
    Any,
    /// The world token of IO primitives.
    World,
}

impl Ty {
    /// Whether a primitive evaluates an argument of this type.
    pub fn strict(self) -> bool {
        matches!(
            self,
            Ty::Int | Ty::Double | Ty::Char | Ty::Integer | Ty::Bool | Ty::Whnf | Ty::Str
        )
    }
    /// The unboxed kind of the type, if it has one.
    pub fn unboxed(self) -> Option<ValueKind> {
        match self {
            Ty::Int => Some(ValueKind::Int),
            Ty::Double => Some(ValueKind::Double),
            Ty::Char => Some(ValueKind::Char),
            _ => None,
        }
    }
}

/// The kinds of unboxed values (in value registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    Int,
    Double,
    Char,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    Seq,
    Pseq,
    Par,
    Error,
    ReturnIO,
    BindIO,
    PutStr,
    Instantiate,
    /// `performIO m`: runs the IO action `m` where the value is demanded
    /// (Eden's instantiation is an IO action inside a pure `#`).
    PerformIO,
    /// `arrIndex a i`: the element, which may be unevaluated (`Prim::ArrIndex`
    /// then an evaluation where the context needs one).
    ArrIndex,
    /// `raiseIO e msg w`: the message evaluated completely first (as for
    /// `error`), then `Prim::RaiseIO`.
    RaiseIO,
    /// `catchIO m h w`: `m` and `h` evaluated, then `Prim::CatchIO`.
    CatchIO,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Bin(VOp),
    Un(VUnOp),
    Cmp(Cmp),
    Rt(Prim),
    Special(Special),
}

#[derive(Clone, Debug)]
pub struct PrimInfo {
    /// The runtime name (`intAdd`).
    pub name: &'static str,
    /// The argument types (world token included for IO primitives).
    pub args: Vec<Ty>,
    pub ret: Ty,
    pub op: Op,
}

impl PrimInfo {
    pub fn arity(&self) -> usize {
        self.args.len()
    }
}

/// The primitive of this runtime name.
pub fn lookup(name: &str) -> Option<PrimInfo> {
    use Ty::*;
    let bin = |t: Ty, op: VOp| (vec![t, t], t, Op::Bin(op));
    let un = |a: Ty, r: Ty, op: VUnOp| (vec![a], r, Op::Un(op));
    let cmp = |t: Ty, c: Cmp| (vec![t, t], Bool, Op::Cmp(c));
    let rt = |args: &[Ty], r: Ty, p: Prim| (args.to_vec(), r, Op::Rt(p));
    let sp = |args: &[Ty], r: Ty, s: Special| (args.to_vec(), r, Op::Special(s));
    let (args, ret, op) = match name {
        "intAdd" => bin(Int, VOp::IAdd),
        "intSub" => bin(Int, VOp::ISub),
        "intMul" => bin(Int, VOp::IMul),
        "intQuot" => bin(Int, VOp::IQuot),
        "intRem" => bin(Int, VOp::IRem),
        "intDiv" => bin(Int, VOp::IDiv),
        "intMod" => bin(Int, VOp::IMod),
        "intNegate" => un(Int, Int, VUnOp::INeg),
        "intEq" => cmp(Int, Cmp::IEq),
        "intNe" => cmp(Int, Cmp::INe),
        "intLt" => cmp(Int, Cmp::ILt),
        "intLe" => cmp(Int, Cmp::ILe),
        "intGt" => cmp(Int, Cmp::IGt),
        "intGe" => cmp(Int, Cmp::IGe),
        "intAnd" => bin(Int, VOp::IAnd),
        "intOr" => bin(Int, VOp::IOr),
        "intXor" => bin(Int, VOp::IXor),
        "intShiftL" => bin(Int, VOp::IShl),
        "intShiftR" => bin(Int, VOp::IShr),
        "intShiftRL" => bin(Int, VOp::IShrL),
        "intComplement" => un(Int, Int, VUnOp::INot),
        "intPopCount" => un(Int, Int, VUnOp::IPopCount),
        "intClz" => un(Int, Int, VUnOp::IClz),
        "intCtz" => un(Int, Int, VUnOp::ICtz),
        "intToInteger" => rt(&[Int], Integer, Prim::IntToInteger),
        "intToDouble" => un(Int, Double, VUnOp::IntToDouble),
        "intShow" => rt(&[Int], Any, Prim::IntShow),
        "integerAdd" => rt(&[Integer, Integer], Integer, Prim::IntegerAdd),
        "integerSub" => rt(&[Integer, Integer], Integer, Prim::IntegerSub),
        "integerMul" => rt(&[Integer, Integer], Integer, Prim::IntegerMul),
        "integerNegate" => rt(&[Integer], Integer, Prim::IntegerNegate),
        "integerQuot" => rt(&[Integer, Integer], Integer, Prim::IntegerQuot),
        "integerRem" => rt(&[Integer, Integer], Integer, Prim::IntegerRem),
        "integerDiv" => rt(&[Integer, Integer], Integer, Prim::IntegerDiv),
        "integerMod" => rt(&[Integer, Integer], Integer, Prim::IntegerMod),
        "integerEq" => rt(&[Integer, Integer], Bool, Prim::IntegerEq),
        "integerNe" => rt(&[Integer, Integer], Bool, Prim::IntegerNe),
        "integerLt" => rt(&[Integer, Integer], Bool, Prim::IntegerLt),
        "integerLe" => rt(&[Integer, Integer], Bool, Prim::IntegerLe),
        "integerGt" => rt(&[Integer, Integer], Bool, Prim::IntegerGt),
        "integerGe" => rt(&[Integer, Integer], Bool, Prim::IntegerGe),
        "integerToInt" => rt(&[Integer], Int, Prim::IntegerToInt),
        "integerAnd" => rt(&[Integer, Integer], Integer, Prim::IntegerAnd),
        "integerOr" => rt(&[Integer, Integer], Integer, Prim::IntegerOr),
        "integerXor" => rt(&[Integer, Integer], Integer, Prim::IntegerXor),
        "integerShiftL" => rt(&[Integer, Int], Integer, Prim::IntegerShiftL),
        "integerShiftR" => rt(&[Integer, Int], Integer, Prim::IntegerShiftR),
        "integerToDouble" => rt(&[Integer], Double, Prim::IntegerToDouble),
        "integerShow" => rt(&[Integer], Any, Prim::IntegerShow),
        "doubleAdd" => bin(Double, VOp::DAdd),
        "doubleSub" => bin(Double, VOp::DSub),
        "doubleMul" => bin(Double, VOp::DMul),
        "doubleDiv" => bin(Double, VOp::DDiv),
        "doublePow" => bin(Double, VOp::DPow),
        "doubleNegate" => un(Double, Double, VUnOp::DNeg),
        "doubleEq" => cmp(Double, Cmp::DEq),
        "doubleNe" => cmp(Double, Cmp::DNe),
        "doubleLt" => cmp(Double, Cmp::DLt),
        "doubleLe" => cmp(Double, Cmp::DLe),
        "doubleGt" => cmp(Double, Cmp::DGt),
        "doubleGe" => cmp(Double, Cmp::DGe),
        "doubleExp" => un(Double, Double, VUnOp::DExp),
        "doubleLog" => un(Double, Double, VUnOp::DLog),
        "doubleSqrt" => un(Double, Double, VUnOp::DSqrt),
        "doubleSin" => un(Double, Double, VUnOp::DSin),
        "doubleCos" => un(Double, Double, VUnOp::DCos),
        "doubleTan" => un(Double, Double, VUnOp::DTan),
        "doubleAsin" => un(Double, Double, VUnOp::DAsin),
        "doubleAcos" => un(Double, Double, VUnOp::DAcos),
        "doubleAtan" => un(Double, Double, VUnOp::DAtan),
        "doubleSinh" => un(Double, Double, VUnOp::DSinh),
        "doubleCosh" => un(Double, Double, VUnOp::DCosh),
        "doubleTanh" => un(Double, Double, VUnOp::DTanh),
        "doubleAsinh" => un(Double, Double, VUnOp::DAsinh),
        "doubleAcosh" => un(Double, Double, VUnOp::DAcosh),
        "doubleAtanh" => un(Double, Double, VUnOp::DAtanh),
        "doubleLog1p" => un(Double, Double, VUnOp::DLog1p),
        "doubleExpm1" => un(Double, Double, VUnOp::DExpm1),
        "floatExp" => un(Double, Double, VUnOp::FExp),
        "floatLog" => un(Double, Double, VUnOp::FLog),
        "floatSin" => un(Double, Double, VUnOp::FSin),
        "floatCos" => un(Double, Double, VUnOp::FCos),
        "floatTan" => un(Double, Double, VUnOp::FTan),
        "floatAsin" => un(Double, Double, VUnOp::FAsin),
        "floatAcos" => un(Double, Double, VUnOp::FAcos),
        "floatAtan" => un(Double, Double, VUnOp::FAtan),
        "floatSinh" => un(Double, Double, VUnOp::FSinh),
        "floatCosh" => un(Double, Double, VUnOp::FCosh),
        "floatTanh" => un(Double, Double, VUnOp::FTanh),
        "floatAsinh" => un(Double, Double, VUnOp::FAsinh),
        "floatAcosh" => un(Double, Double, VUnOp::FAcosh),
        "floatAtanh" => un(Double, Double, VUnOp::FAtanh),
        "floatLog1p" => un(Double, Double, VUnOp::FLog1p),
        "floatExpm1" => un(Double, Double, VUnOp::FExpm1),
        "floatPow" => bin(Double, VOp::FPow),
        "doubleIsNaN" => rt(&[Double], Bool, Prim::DoubleIsNaN),
        "doubleIsInfinite" => rt(&[Double], Bool, Prim::DoubleIsInfinite),
        "doubleIsNegativeZero" => rt(&[Double], Bool, Prim::DoubleIsNegativeZero),
        "doubleTruncate" => rt(&[Double], Integer, Prim::DoubleTruncate),
        "doubleDecodeMantissa" => rt(&[Double], Integer, Prim::DoubleDecodeMantissa),
        "doubleDecodeExponent" => rt(&[Double], Int, Prim::DoubleDecodeExponent),
        "doubleEncode" => rt(&[Integer, Int], Double, Prim::DoubleEncode),
        "doubleShow" => rt(&[Double], Any, Prim::DoubleShow),
        "doubleToFloat" => un(Double, Double, VUnOp::DToFloat),
        "floatShow" => rt(&[Double], Any, Prim::FloatShow),
        "charOrd" => un(Char, Int, VUnOp::Ord),
        "charChr" => un(Int, Char, VUnOp::Chr),
        "charEq" => cmp(Char, Cmp::IEq),
        "charNe" => cmp(Char, Cmp::INe),
        "charLt" => cmp(Char, Cmp::ILt),
        "charLe" => cmp(Char, Cmp::ILe),
        "charGt" => cmp(Char, Cmp::IGt),
        "charGe" => cmp(Char, Cmp::IGe),
        "charGeneralCategory" => rt(&[Char], Int, Prim::CharGeneralCategory),
        "charToUpper" => rt(&[Char], Char, Prim::CharToUpper),
        "charToLower" => rt(&[Char], Char, Prim::CharToLower),
        "charToTitle" => rt(&[Char], Char, Prim::CharToTitle),
        "seq" => sp(&[Any, Any], Any, Special::Seq),
        "pseq" => sp(&[Any, Any], Any, Special::Pseq),
        "par" => sp(&[Any, Any], Any, Special::Par),
        "error" => sp(&[Any], Any, Special::Error),
        "returnIO" => sp(&[Any, World], Any, Special::ReturnIO),
        "bindIO" => sp(&[Any, Any, World], Any, Special::BindIO),
        "hPutStr" => sp(&[Int, Any, World], Any, Special::PutStr),
        "instantiate" => sp(&[Any, Any], Any, Special::Instantiate),
        "hGetChar" => rt(&[Int, World], Any, Prim::GetChar),
        "hGetLine" => rt(&[Int, World], Any, Prim::GetLine),
        "hGetContents" => rt(&[Int, World], Any, Prim::GetContents),
        "hClose" => rt(&[Int, World], Any, Prim::HClose),
        "hFlush" => rt(&[Int, World], Any, Prim::HFlush),
        "hIsEOF" => rt(&[Int, World], Any, Prim::HIsEof),
        "hSetBuffering" => rt(&[Int, Int, World], Any, Prim::HSetBuffering),
        "hGetBuffering" => rt(&[Int, World], Any, Prim::HGetBuffering),
        "hLookAhead" => rt(&[Int, World], Any, Prim::HLookAhead),
        "hWaitForInput" => rt(&[Int, Int, World], Any, Prim::HWaitForInput),
        "hIsTerminalDevice" => rt(&[Int, World], Any, Prim::HIsTerminal),
        "hSeek" => rt(&[Int, Int, Int, World], Any, Prim::HSeek),
        "hTell" => rt(&[Int, World], Any, Prim::HTell),
        "hFileSize" => rt(&[Int, World], Any, Prim::HFileSize),
        "getEnvironment" => rt(&[World], Any, Prim::GetEnvironment),
        "cpuTime" => rt(&[World], Any, Prim::CpuTime),
        "posixTime" => rt(&[World], Any, Prim::PosixTime),
        "clock" => rt(&[World], Any, Prim::Clock),
        "peSpeed" => rt(&[Int, World], Any, Prim::PeSpeed),
        "peLoad" => rt(&[Int, World], Any, Prim::PeLoad),
        "peLatency" => rt(&[Int, World], Any, Prim::PeLatency),
        "peBandwidth" => rt(&[Int, World], Any, Prim::PeBandwidth),
        "openFile" => rt(&[Str, Int, World], Any, Prim::OpenFile),
        "openTempFile" => rt(&[Str, Str, World], Any, Prim::OpenTempFile),
        "removeFile" => rt(&[Str, World], Any, Prim::RemoveFile),
        "doesFileExist" => rt(&[Str, World], Any, Prim::DoesFileExist),
        "lookupEnv" => rt(&[Str, World], Any, Prim::LookupEnv),
        "raiseIO" => sp(&[Any, Any, World], Any, Special::RaiseIO),
        "catchIO" => sp(&[Any, Any, World], Any, Special::CatchIO),
        "newIORef" => rt(&[Any, World], Any, Prim::NewIORef),
        "readIORef" => rt(&[Whnf, World], Any, Prim::ReadIORef),
        "writeIORef" => rt(&[Whnf, Any, World], Any, Prim::WriteIORef),
        "sameIORef" => rt(&[Whnf, Whnf], Bool, Prim::SameIORef),
        "newMVar" => rt(&[Any, World], Any, Prim::NewMVar),
        "newEmptyMVar" => rt(&[World], Any, Prim::NewEmptyMVar),
        "takeMVar" => rt(&[Whnf, World], Any, Prim::TakeMVar),
        "putMVar" => rt(&[Whnf, Any, World], Any, Prim::PutMVar),
        "readMVar" => rt(&[Whnf, World], Any, Prim::ReadMVar),
        "tryTakeMVar" => rt(&[Whnf, World], Any, Prim::TryTakeMVar),
        "tryPutMVar" => rt(&[Whnf, Any, World], Any, Prim::TryPutMVar),
        "tryReadMVar" => rt(&[Whnf, World], Any, Prim::TryReadMVar),
        "myThreadId" => rt(&[World], Any, Prim::MyThreadId),
        "yield" => rt(&[World], Any, Prim::Yield),
        "delay" => rt(&[Int, World], Any, Prim::Delay),
        "killThread" => rt(&[Int, World], Any, Prim::KillThread),
        "arrNew" => rt(&[Int, Any, World], Any, Prim::ArrNew),
        "arrRead" => rt(&[Whnf, Int, World], Any, Prim::ArrRead),
        "arrWrite" => rt(&[Whnf, Int, Any, World], Any, Prim::ArrWrite),
        "arrIndex" => sp(&[Whnf, Int], Any, Special::ArrIndex),
        "arrSize" => rt(&[Whnf], Int, Prim::ArrSize),
        "getArgs" => rt(&[World], Any, Prim::GetArgs),
        "getProgName" => rt(&[World], Any, Prim::GetProgName),
        "setArgs" => rt(&[Int, Str, World], Any, Prim::SetArgs),
        "setProgName" => rt(&[Str, World], Any, Prim::SetProgName),
        "systemInfo" => rt(&[Int], Any, Prim::SystemInfo),
        "exitWith" => rt(&[Int, World], Any, Prim::ExitWith),
        "noPe" => rt(&[], Int, Prim::NoPe),
        "selfPe" => rt(&[], Int, Prim::SelfPe),
        "performIO" => sp(&[Any], Any, Special::PerformIO),
        "edenNewChan" => rt(&[World], Any, Prim::EdenNewChan),
        "edenChanValue" => rt(&[Int, World], Any, Prim::EdenChanValue),
        "edenCreate" => rt(&[Int, Any, World], Any, Prim::EdenCreate),
        "fork" => rt(&[Any, World], Any, Prim::Fork),
        "edenFork" => rt(&[Any, World], Any, Prim::EdenFork),
        "edenConnect" => rt(&[Int, World], Any, Prim::EdenConnect),
        "edenSplit" => rt(&[Int, Any, World], Any, Prim::EdenSplit),
        "edenSendHead" => rt(&[Int, Any, World], Any, Prim::EdenSendHead),
        "edenSendValue" => rt(&[Int, Any, World], Any, Prim::EdenSendValue),
        "edenGate" => rt(&[Int, World], Any, Prim::EdenGate),
        "conFields" => rt(&[Any], Any, Prim::ConFields),
        "listCell" => rt(&[Any], Int, Prim::ListCell),
        "normalForm" => rt(&[Any], Int, Prim::NormalForm),
        _ => return None,
    };
    Some(PrimInfo {
        name: static_name(name),
        args,
        ret,
        op,
    })
}

/// Every runtime name this table knows.
pub const NAMES: &[&str] = &[
    "intAdd",
    "intSub",
    "intMul",
    "intQuot",
    "intRem",
    "intDiv",
    "intMod",
    "intNegate",
    "intEq",
    "intNe",
    "intLt",
    "intLe",
    "intGt",
    "intGe",
    "intAnd",
    "intOr",
    "intXor",
    "intShiftL",
    "intShiftR",
    "intShiftRL",
    "intComplement",
    "intPopCount",
    "intClz",
    "intCtz",
    "intToInteger",
    "intToDouble",
    "intShow",
    "integerAdd",
    "integerSub",
    "integerMul",
    "integerNegate",
    "integerQuot",
    "integerRem",
    "integerDiv",
    "integerMod",
    "integerEq",
    "integerNe",
    "integerLt",
    "integerLe",
    "integerGt",
    "integerGe",
    "integerToInt",
    "integerAnd",
    "integerOr",
    "integerXor",
    "integerShiftL",
    "integerShiftR",
    "integerToDouble",
    "integerShow",
    "doubleAdd",
    "doubleSub",
    "doubleMul",
    "doubleDiv",
    "doublePow",
    "doubleNegate",
    "doubleEq",
    "doubleNe",
    "doubleLt",
    "doubleLe",
    "doubleGt",
    "doubleGe",
    "doubleExp",
    "doubleLog",
    "doubleSqrt",
    "doubleSin",
    "doubleCos",
    "doubleTan",
    "doubleAsin",
    "doubleAcos",
    "doubleAtan",
    "doubleSinh",
    "doubleCosh",
    "doubleTanh",
    "doubleAsinh",
    "doubleAcosh",
    "doubleAtanh",
    "doubleLog1p",
    "doubleExpm1",
    "floatExp",
    "floatLog",
    "floatSin",
    "floatCos",
    "floatTan",
    "floatAsin",
    "floatAcos",
    "floatAtan",
    "floatSinh",
    "floatCosh",
    "floatTanh",
    "floatAsinh",
    "floatAcosh",
    "floatAtanh",
    "floatLog1p",
    "floatExpm1",
    "floatPow",
    "doubleIsNaN",
    "doubleIsInfinite",
    "doubleIsNegativeZero",
    "doubleTruncate",
    "doubleDecodeMantissa",
    "doubleDecodeExponent",
    "doubleEncode",
    "doubleShow",
    "doubleToFloat",
    "floatShow",
    "charOrd",
    "charChr",
    "charEq",
    "charNe",
    "charLt",
    "charLe",
    "charGt",
    "charGe",
    "charGeneralCategory",
    "charToUpper",
    "charToLower",
    "charToTitle",
    "seq",
    "pseq",
    "par",
    "error",
    "returnIO",
    "bindIO",
    "hPutStr",
    "instantiate",
    "hGetChar",
    "hGetLine",
    "hGetContents",
    "hClose",
    "hFlush",
    "hIsEOF",
    "hSetBuffering",
    "hGetBuffering",
    "hLookAhead",
    "hWaitForInput",
    "hIsTerminalDevice",
    "hSeek",
    "hTell",
    "hFileSize",
    "getEnvironment",
    "cpuTime",
    "posixTime",
    "clock",
    "peSpeed",
    "peLoad",
    "peLatency",
    "peBandwidth",
    "openFile",
    "openTempFile",
    "removeFile",
    "doesFileExist",
    "lookupEnv",
    "raiseIO",
    "catchIO",
    "newIORef",
    "readIORef",
    "writeIORef",
    "sameIORef",
    "newMVar",
    "newEmptyMVar",
    "takeMVar",
    "putMVar",
    "readMVar",
    "tryTakeMVar",
    "tryPutMVar",
    "tryReadMVar",
    "myThreadId",
    "yield",
    "delay",
    "killThread",
    "arrNew",
    "arrRead",
    "arrWrite",
    "arrIndex",
    "arrSize",
    "getArgs",
    "getProgName",
    "setArgs",
    "setProgName",
    "systemInfo",
    "exitWith",
    "noPe",
    "selfPe",
    "performIO",
    "edenNewChan",
    "edenChanValue",
    "edenCreate",
    "fork",
    "edenFork",
    "edenConnect",
    "edenSplit",
    "edenSendHead",
    "edenSendValue",
    "edenGate",
    "conFields",
    "listCell",
];

fn static_name(name: &str) -> &'static str {
    NAMES.iter().find(|n| **n == name).copied().unwrap_or("?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_in_the_table() {
        assert_eq!(NAMES.len(), 196);
        for n in NAMES {
            let p = lookup(n).unwrap();
            assert_eq!(p.name, *n);
        }
    }

    #[test]
    fn every_primitive_of_gph_prim_is_known() {
        let src = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../prelude/Gph/Prim.gph"
        ));
        let mut count = 0;
        for line in src.lines() {
            if let Some(rest) = line.strip_prefix("foreign import prim \"") {
                let name = rest.split('"').next().unwrap();
                assert!(lookup(name).is_some(), "{name}");
                count += 1;
            }
        }
        assert_eq!(count, 198);
    }
}
