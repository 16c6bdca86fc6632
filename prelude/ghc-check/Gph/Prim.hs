{-# LANGUAGE PackageImports, NoImplicitPrelude, ExistentialQuantification #-}
-- | GHC stand-in for gph's Gph.Prim, used only by check-with-ghc.sh to
-- type-check and test the gph library modules under GHC. Same exports and
-- the same types as Gph/Prim.gph (the script checks that the signatures are
-- identical); each primitive is implemented with GHC's own functions.
module Gph.Prim
  ( Int, Integer, Double, Char, IO, Bool(False, True), IORef, MVar, Arr
  , PrimRatio(primRatio, primNumerator, primDenominator)
  , NFData(rnf)
  , primIntAdd
  , primIntSub
  , primIntMul
  , primIntNegate
  , primIntQuot
  , primIntRem
  , primIntDiv
  , primIntMod
  , primIntEq
  , primIntNe
  , primIntLt
  , primIntLe
  , primIntGt
  , primIntGe
  , primIntAnd
  , primIntOr
  , primIntXor
  , primIntShiftL
  , primIntShiftR
  , primIntShiftRL
  , primIntComplement
  , primIntPopCount
  , primIntClz
  , primIntCtz
  , primIntToInteger
  , primIntToDouble
  , primIntShow
  , primIntegerAdd
  , primIntegerSub
  , primIntegerMul
  , primIntegerNegate
  , primIntegerQuot
  , primIntegerRem
  , primIntegerDiv
  , primIntegerMod
  , primIntegerEq
  , primIntegerNe
  , primIntegerLt
  , primIntegerLe
  , primIntegerGt
  , primIntegerGe
  , primIntegerToInt
  , primIntegerToDouble
  , primIntegerShow
  , primIntegerAnd
  , primIntegerOr
  , primIntegerXor
  , primIntegerShiftL
  , primIntegerShiftR
  , primDoubleAdd
  , primDoubleSub
  , primDoubleMul
  , primDoubleDiv
  , primDoubleNegate
  , primDoubleEq
  , primDoubleNe
  , primDoubleLt
  , primDoubleLe
  , primDoubleGt
  , primDoubleGe
  , primDoubleExp
  , primDoubleLog
  , primDoubleSqrt
  , primDoublePow
  , primDoubleSin
  , primDoubleCos
  , primDoubleTan
  , primDoubleAsin
  , primDoubleAcos
  , primDoubleAtan
  , primDoubleSinh
  , primDoubleCosh
  , primDoubleTanh
  , primDoubleAsinh
  , primDoubleAcosh
  , primDoubleAtanh
  , primDoubleIsNaN
  , primDoubleIsInfinite
  , primDoubleIsNegativeZero
  , primDoubleTruncate
  , primDoubleDecodeMantissa
  , primDoubleDecodeExponent
  , primDoubleEncode
  , primDoubleShow
  , primDoubleToFloat
  , primFloatShow
  , primCharOrd
  , primCharChr
  , primCharEq
  , primCharNe
  , primCharLt
  , primCharLe
  , primCharGt
  , primCharGe
  , primCharGeneralCategory
  , primCharToUpper
  , primCharToLower
  , primCharToTitle
  , primSeq
  , primPar
  , primPseq
  , primError
  , primReturnIO
  , primBindIO
  , primHPutStr
  , primHGetChar
  , primHGetLine
  , primHGetContents
  , primHClose
  , primHFlush
  , primHIsEOF
  , primHSetBuffering
  , primHGetBuffering
  , primOpenFile
  , primOpenTempFile
  , primRemoveFile
  , primDoesFileExist
  , primGetArgs
  , primGetProgName
  , primLookupEnv
  , primExitWith
  , primRaiseIO
  , primCatchIO
  , primNewIORef
  , primReadIORef
  , primWriteIORef
  , primSameIORef
  , primFork
  , primMyThreadId
  , primYield
  , primDelay
  , primKillThread
  , primNewMVar
  , primNewEmptyMVar
  , primTakeMVar
  , primPutMVar
  , primReadMVar
  , primTryTakeMVar
  , primTryPutMVar
  , primTryReadMVar
  , primSameMVar
  , primArrNew
  , primArrRead
  , primArrWrite
  , primArrIndex
  , primArrSize
  , primNoPe
  , primSelfPe
  , primInstantiate
  , primPerformIO
  , primEdenNewChan
  , primEdenChanValue
  , primEdenCreate
  , primEdenFork
  , primEdenConnect
  , primEdenSplit
  , primEdenSendHead
  , primEdenGate
  , primEdenSendValue
  , primConFields
  , primListCell
  , primNormalForm
  ) where

import "base" Prelude (Int, Integer, Double, Char, IO, Bool(False, True))
import qualified "base" Prelude as P
import qualified "base" Data.Char as C
import qualified "base" GHC.Conc as Conc
import qualified "base" System.Environment as Env
import qualified "base" System.Exit as Exit
import qualified "base" System.IO.Unsafe as U
import qualified "base" System.IO as IO
import qualified "base" System.IO.Error as E
import qualified "base" GHC.IO.Exception as GE
import qualified "base" Control.Exception as X
import qualified "base" Data.Bits as B
import qualified "base" Data.IORef as R
import qualified "base" GHC.IOArray as A
import qualified "base" Unsafe.Coerce as UC
import qualified "directory" System.Directory as D
import "base" Data.IORef (IORef)
import qualified "base" Control.Concurrent as C
import "base" Control.Concurrent (MVar)

primIntAdd :: Int -> Int -> Int
primIntAdd = (P.+)

primIntSub :: Int -> Int -> Int
primIntSub = (P.-)

primIntMul :: Int -> Int -> Int
primIntMul = (P.*)

primIntNegate :: Int -> Int
primIntNegate = P.negate

primIntQuot :: Int -> Int -> Int
primIntQuot = P.quot

primIntRem :: Int -> Int -> Int
primIntRem = P.rem

primIntDiv :: Int -> Int -> Int
primIntDiv = P.div

primIntMod :: Int -> Int -> Int
primIntMod = P.mod

primIntEq :: Int -> Int -> Bool
primIntEq = (P.==)

primIntNe :: Int -> Int -> Bool
primIntNe = (P./=)

primIntLt :: Int -> Int -> Bool
primIntLt = (P.<)

primIntLe :: Int -> Int -> Bool
primIntLe = (P.<=)

primIntGt :: Int -> Int -> Bool
primIntGt = (P.>)

primIntGe :: Int -> Int -> Bool
primIntGe = (P.>=)

overflow :: a
overflow = X.throw X.Overflow

primIntAnd :: Int -> Int -> Int
primIntAnd = (B..&.)

primIntOr :: Int -> Int -> Int
primIntOr = (B..|.)

primIntXor :: Int -> Int -> Int
primIntXor = B.xor

primIntShiftL :: Int -> Int -> Int
primIntShiftL x n = if n P.< 0 then overflow else B.shiftL x n

primIntShiftR :: Int -> Int -> Int
primIntShiftR x n = if n P.< 0 then overflow else B.shiftR x n

primIntShiftRL :: Int -> Int -> Int
primIntShiftRL x n = if n P.< 0 then overflow else P.fromIntegral (B.shiftR (P.fromIntegral x :: P.Word) n)

primIntComplement :: Int -> Int
primIntComplement = B.complement

primIntPopCount :: Int -> Int
primIntPopCount = B.popCount

primIntClz :: Int -> Int
primIntClz = B.countLeadingZeros

primIntCtz :: Int -> Int
primIntCtz = B.countTrailingZeros

primIntegerAnd :: Integer -> Integer -> Integer
primIntegerAnd = (B..&.)

primIntegerOr :: Integer -> Integer -> Integer
primIntegerOr = (B..|.)

primIntegerXor :: Integer -> Integer -> Integer
primIntegerXor = B.xor

primIntegerShiftL :: Integer -> Int -> Integer
primIntegerShiftL x n = if n P.< 0 then overflow else B.shiftL x n

primIntegerShiftR :: Integer -> Int -> Integer
primIntegerShiftR x n = if n P.< 0 then overflow else B.shiftR x n

primIntToInteger :: Int -> Integer
primIntToInteger = P.toInteger

primIntToDouble :: Int -> Double
primIntToDouble = P.fromIntegral

primIntShow :: Int -> [Char]
primIntShow = P.show

primIntegerAdd :: Integer -> Integer -> Integer
primIntegerAdd = (P.+)

primIntegerSub :: Integer -> Integer -> Integer
primIntegerSub = (P.-)

primIntegerMul :: Integer -> Integer -> Integer
primIntegerMul = (P.*)

primIntegerNegate :: Integer -> Integer
primIntegerNegate = P.negate

primIntegerQuot :: Integer -> Integer -> Integer
primIntegerQuot = P.quot

primIntegerRem :: Integer -> Integer -> Integer
primIntegerRem = P.rem

primIntegerDiv :: Integer -> Integer -> Integer
primIntegerDiv = P.div

primIntegerMod :: Integer -> Integer -> Integer
primIntegerMod = P.mod

primIntegerEq :: Integer -> Integer -> Bool
primIntegerEq = (P.==)

primIntegerNe :: Integer -> Integer -> Bool
primIntegerNe = (P./=)

primIntegerLt :: Integer -> Integer -> Bool
primIntegerLt = (P.<)

primIntegerLe :: Integer -> Integer -> Bool
primIntegerLe = (P.<=)

primIntegerGt :: Integer -> Integer -> Bool
primIntegerGt = (P.>)

primIntegerGe :: Integer -> Integer -> Bool
primIntegerGe = (P.>=)

primIntegerToInt :: Integer -> Int
primIntegerToInt = P.fromInteger

primIntegerToDouble :: Integer -> Double
primIntegerToDouble = P.fromInteger

primIntegerShow :: Integer -> [Char]
primIntegerShow = P.show

primDoubleAdd :: Double -> Double -> Double
primDoubleAdd = (P.+)

primDoubleSub :: Double -> Double -> Double
primDoubleSub = (P.-)

primDoubleMul :: Double -> Double -> Double
primDoubleMul = (P.*)

primDoubleDiv :: Double -> Double -> Double
primDoubleDiv = (P./)

primDoubleNegate :: Double -> Double
primDoubleNegate = P.negate

primDoubleEq :: Double -> Double -> Bool
primDoubleEq = (P.==)

primDoubleNe :: Double -> Double -> Bool
primDoubleNe = (P./=)

primDoubleLt :: Double -> Double -> Bool
primDoubleLt = (P.<)

primDoubleLe :: Double -> Double -> Bool
primDoubleLe = (P.<=)

primDoubleGt :: Double -> Double -> Bool
primDoubleGt = (P.>)

primDoubleGe :: Double -> Double -> Bool
primDoubleGe = (P.>=)

primDoubleExp :: Double -> Double
primDoubleExp = P.exp

primDoubleLog :: Double -> Double
primDoubleLog = P.log

primDoubleSqrt :: Double -> Double
primDoubleSqrt = P.sqrt

primDoublePow :: Double -> Double -> Double
primDoublePow = (P.**)

primDoubleSin :: Double -> Double
primDoubleSin = P.sin

primDoubleCos :: Double -> Double
primDoubleCos = P.cos

primDoubleTan :: Double -> Double
primDoubleTan = P.tan

primDoubleAsin :: Double -> Double
primDoubleAsin = P.asin

primDoubleAcos :: Double -> Double
primDoubleAcos = P.acos

primDoubleAtan :: Double -> Double
primDoubleAtan = P.atan

primDoubleSinh :: Double -> Double
primDoubleSinh = P.sinh

primDoubleCosh :: Double -> Double
primDoubleCosh = P.cosh

primDoubleTanh :: Double -> Double
primDoubleTanh = P.tanh

primDoubleAsinh :: Double -> Double
primDoubleAsinh = P.asinh

primDoubleAcosh :: Double -> Double
primDoubleAcosh = P.acosh

primDoubleAtanh :: Double -> Double
primDoubleAtanh = P.atanh

primDoubleIsNaN :: Double -> Bool
primDoubleIsNaN = P.isNaN

primDoubleIsInfinite :: Double -> Bool
primDoubleIsInfinite = P.isInfinite

primDoubleIsNegativeZero :: Double -> Bool
primDoubleIsNegativeZero = P.isNegativeZero

primDoubleTruncate :: Double -> Integer
primDoubleTruncate = P.truncate

primDoubleDecodeMantissa :: Double -> Integer
primDoubleDecodeMantissa = \x -> P.fst (P.decodeFloat x)

primDoubleDecodeExponent :: Double -> Int
primDoubleDecodeExponent = \x -> P.snd (P.decodeFloat x)

primDoubleEncode :: Integer -> Int -> Double
primDoubleEncode = P.encodeFloat

primDoubleShow :: Double -> [Char]
primDoubleShow = P.show

primDoubleToFloat :: Double -> Double
primDoubleToFloat = \x -> P.realToFrac (P.realToFrac x :: P.Float)

primFloatShow :: Double -> [Char]
primFloatShow = \x -> P.show (P.realToFrac x :: P.Float)

primCharOrd :: Char -> Int
primCharOrd = C.ord

primCharChr :: Int -> Char
primCharChr = C.chr

primCharEq :: Char -> Char -> Bool
primCharEq = (P.==)

primCharNe :: Char -> Char -> Bool
primCharNe = (P./=)

primCharLt :: Char -> Char -> Bool
primCharLt = (P.<)

primCharLe :: Char -> Char -> Bool
primCharLe = (P.<=)

primCharGt :: Char -> Char -> Bool
primCharGt = (P.>)

primCharGe :: Char -> Char -> Bool
primCharGe = (P.>=)

primCharGeneralCategory :: Char -> Int
primCharGeneralCategory = \c -> P.fromEnum (C.generalCategory c)

primCharToUpper :: Char -> Char
primCharToUpper = C.toUpper

primCharToLower :: Char -> Char
primCharToLower = C.toLower

primCharToTitle :: Char -> Char
primCharToTitle = C.toTitle

primSeq :: a -> b -> b
primSeq = P.seq

primPar :: a -> b -> b
primPar = Conc.par

primPseq :: a -> b -> b
primPseq = Conc.pseq

primError :: [Char] -> a
primError = P.errorWithoutStackTrace

primReturnIO :: a -> IO a
primReturnIO = P.return

primBindIO :: IO a -> (a -> IO b) -> IO b
primBindIO = (P.>>=)

-- Handles are numbers, as in gph's runtime: a table maps them to GHC's.
{-# NOINLINE handles #-}
handles :: IORef [(Int, IO.Handle)]
handles = U.unsafePerformIO (R.newIORef [(0, IO.stdin), (1, IO.stdout), (2, IO.stderr), (-1, IO.stderr)])

handle :: Int -> IO IO.Handle
handle n = R.readIORef handles P.>>= \hs -> case P.lookup n hs of
  P.Just h -> P.return h
  P.Nothing -> P.ioError (P.userError "no such handle")

primHPutStr :: Int -> [Char] -> IO ()
primHPutStr n s = handle n P.>>= \h -> IO.hPutStr h s

primHGetChar :: Int -> IO Char
primHGetChar n = handle n P.>>= IO.hGetChar

primHGetLine :: Int -> IO [Char]
primHGetLine n = handle n P.>>= IO.hGetLine

primHGetContents :: Int -> IO [Char]
primHGetContents n = handle n P.>>= IO.hGetContents

primHClose :: Int -> IO ()
primHClose n = handle n P.>>= IO.hClose

primHFlush :: Int -> IO ()
primHFlush n = handle n P.>>= IO.hFlush

primHIsEOF :: Int -> IO Bool
primHIsEOF n = handle n P.>>= IO.hIsEOF

primHSetBuffering :: Int -> Int -> IO ()
primHSetBuffering n c = handle n P.>>= \h -> IO.hSetBuffering h (case c of
  -2 -> IO.NoBuffering
  -1 -> IO.LineBuffering
  0 -> IO.BlockBuffering P.Nothing
  k -> IO.BlockBuffering (P.Just k))

primHGetBuffering :: Int -> IO Int
primHGetBuffering n = handle n P.>>= \h -> X.catch (IO.hGetBuffering h P.>>= \m -> P.return (case m of
    IO.NoBuffering -> -2
    IO.LineBuffering -> -1
    IO.BlockBuffering P.Nothing -> 0
    IO.BlockBuffering (P.Just k) -> k))
  (\e -> let _ = (e :: X.IOException) in P.return (-3))

primOpenFile :: [Char] -> Int -> IO Int
primOpenFile path m = IO.openFile path (P.toEnum m) P.>>= \h ->
  R.atomicModifyIORef handles (\hs -> let k = P.maximum (P.map P.fst hs) P.+ 1 in ((k, h) : hs, k))

primOpenTempFile :: [Char] -> [Char] -> IO [Char]
primOpenTempFile dir template = IO.openTempFile dir template P.>>= \(p, h) -> IO.hClose h P.>> P.return p

primRemoveFile :: [Char] -> IO ()
primRemoveFile = D.removeFile

primDoesFileExist :: [Char] -> IO Bool
primDoesFileExist = D.doesFileExist

primGetArgs :: IO [[Char]]
primGetArgs = Env.getArgs

primGetProgName :: IO [Char]
primGetProgName = Env.getProgName

primLookupEnv :: [Char] -> IO [[Char]]
primLookupEnv name = Env.lookupEnv name P.>>= \v -> P.return (P.maybe [] (\x -> [x]) v)

-- An exception raised by raiseIO: the value, and the message it shows.
data Raised = forall e. Raised e [Char]

instance P.Show Raised where
  show (Raised _ msg) = msg

instance X.Exception Raised

primRaiseIO :: e -> [Char] -> IO a
primRaiseIO e msg = X.throwIO (Raised e msg)

primCatchIO :: IO a -> ([[Char]] -> e -> IO a) -> IO a
primCatchIO m h = X.catches m
  [ X.Handler (\(Raised e _) -> h [] (UC.unsafeCoerce e))
  , X.Handler (\e -> h (ioStrings e) (P.error "no value")) ]

-- GHC's IOError as gph's runtime gives it to a handler.
ioStrings :: X.IOException -> [[Char]]
ioStrings e = [kind] : E.ioeGetLocation e : description : P.maybe [] (\f -> [f]) (E.ioeGetFileName e)
  where
    kind = P.maybe 'l' P.id (P.lookup (P.show (E.ioeGetErrorType e)) (P.zip kinds ['a' ..]))
    description = GE.ioe_description e
    kinds = ["already exists", "does not exist", "resource busy", "resource exhausted", "end of file",
             "illegal operation", "permission denied", "user error", "unsatisfied constraints",
             "system error", "protocol error", "failed", "invalid argument", "inappropriate type",
             "hardware fault", "unsupported operation", "timeout", "resource vanished", "interrupted"]

primExitWith :: Int -> IO a
primExitWith = \n -> if n P.== 0 then Exit.exitWith Exit.ExitSuccess else Exit.exitWith (Exit.ExitFailure n)

primNewIORef :: a -> IO (IORef a)
primNewIORef = R.newIORef

primReadIORef :: IORef a -> IO a
primReadIORef = R.readIORef

primWriteIORef :: IORef a -> a -> IO ()
primWriteIORef = R.writeIORef

primSameIORef :: IORef a -> IORef a -> Bool
primSameIORef = (P.==)

-- Concurrency: GHC's own threads and MVars. A ThreadId is shown as
-- "ThreadId N": its number is read back from that.
threadNumber :: C.ThreadId -> Int
threadNumber t = P.read (P.drop 9 (P.show t))

threads :: IORef [(Int, C.ThreadId)]
threads = U.unsafePerformIO (R.newIORef [])
{-# NOINLINE threads #-}

primFork :: IO () -> IO Int
primFork act = C.forkIO act P.>>= \t -> R.modifyIORef threads ((threadNumber t, t) :)
  P.>> P.return (threadNumber t)

primMyThreadId :: IO Int
primMyThreadId = P.fmap threadNumber C.myThreadId

primYield :: IO ()
primYield = C.yield

primDelay :: Int -> IO ()
primDelay = C.threadDelay

primKillThread :: Int -> IO ()
primKillThread n = R.readIORef threads P.>>= \ts -> P.maybe (P.return ()) C.killThread (P.lookup n ts)

primNewMVar :: a -> IO (MVar a)
primNewMVar = C.newMVar

primNewEmptyMVar :: IO (MVar a)
primNewEmptyMVar = C.newEmptyMVar

primTakeMVar :: MVar a -> IO a
primTakeMVar = C.takeMVar

primPutMVar :: MVar a -> a -> IO ()
primPutMVar = C.putMVar

primReadMVar :: MVar a -> IO a
primReadMVar = C.readMVar

primTryTakeMVar :: MVar a -> IO [a]
primTryTakeMVar m = P.fmap (P.maybe [] (: [])) (C.tryTakeMVar m)

primTryPutMVar :: MVar a -> a -> IO Bool
primTryPutMVar = C.tryPutMVar

primTryReadMVar :: MVar a -> IO [a]
primTryReadMVar m = P.fmap (P.maybe [] (: [])) (C.tryReadMVar m)

primSameMVar :: MVar a -> MVar a -> Bool
primSameMVar = (P.==)

-- Arrays: GHC's IOArray, indexed from 0.
newtype Arr a = Arr (A.IOArray Int a)

primArrNew :: Int -> a -> IO (Arr a)
primArrNew n x = A.newIOArray (0, n P.- 1) x P.>>= \a -> P.return (Arr a)

primArrRead :: Arr a -> Int -> IO a
primArrRead (Arr a) = A.readIOArray a

primArrWrite :: Arr a -> Int -> a -> IO ()
primArrWrite (Arr a) = A.writeIOArray a

primArrIndex :: Arr a -> Int -> a
primArrIndex (Arr a) i = U.unsafePerformIO (A.readIOArray a i)

primArrSize :: Arr a -> Int
primArrSize (Arr a) = case A.boundsIOArray a of (l, u) -> u P.- l P.+ 1

primNoPe :: Int
primNoPe = 1

primSelfPe :: Int
primSelfPe = 1

primInstantiate :: (a -> b) -> a -> b
primInstantiate = \f x -> f x

-- Eden's machine (docs/eden.md): channels, processes and a generic walk
-- over constructor fields need gph's runtime; under GHC they only type
-- check (programs that import Control.Parallel.Eden are not run here).
edenOnly :: [Char] -> a
edenOnly p = P.error (p P.++ ": an Eden primitive, only in gph's runtime")

primPerformIO :: IO a -> a
primPerformIO = U.unsafePerformIO

primEdenNewChan :: IO Int
primEdenNewChan = edenOnly "edenNewChan"

primEdenChanValue :: Int -> IO a
primEdenChanValue = edenOnly "edenChanValue"

primEdenCreate :: Int -> (a -> IO ()) -> IO Int
primEdenCreate = edenOnly "edenCreate"

primEdenFork :: IO () -> IO ()
primEdenFork = edenOnly "edenFork"

primEdenConnect :: Int -> IO ()
primEdenConnect = edenOnly "edenConnect"

primEdenSplit :: Int -> a -> IO Int
primEdenSplit = edenOnly "edenSplit"

primEdenSendHead :: Int -> a -> IO Int
primEdenSendHead = edenOnly "edenSendHead"

primEdenGate :: Int -> IO ()
primEdenGate = edenOnly "edenGate"

primEdenSendValue :: Int -> a -> IO Int
primEdenSendValue = edenOnly "edenSendValue"

primConFields :: a -> [b]
primConFields = edenOnly "conFields"

primListCell :: a -> Int
primListCell = edenOnly "listCell"

primNormalForm :: a -> Int
primNormalForm = edenOnly "normalForm"

-- The access class of Gph.Prim for the Prelude's Ratio (its instance is in
-- the Prelude).
class PrimRatio r where
  primRatio :: a -> a -> r a
  primNumerator :: r a -> a
  primDenominator :: r a -> a

-- Control.DeepSeq's class (see Gph/Prim.gph).
class NFData a where
  rnf :: a -> ()
  rnf a = primSeq a ()
