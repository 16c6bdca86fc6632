{-# LANGUAGE PackageImports, NoImplicitPrelude #-}
-- | GHC stand-in for gph's Gph.Prim, used only by check-with-ghc.sh to
-- type-check and test the gph library modules under GHC. Same exports and
-- the same types as Gph/Prim.gph (the script checks that the signatures are
-- identical); each primitive is implemented with GHC's own functions.
module Gph.Prim
  ( Int, Integer, Double, Char, IO, Bool(False, True)
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
  , primPutStr
  , primGetChar
  , primGetLine
  , primGetContents
  , primGetArgs
  , primGetProgName
  , primExitWith
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
  ) where

import "base" Prelude (Int, Integer, Double, Char, IO, Bool(False, True))
import qualified "base" Prelude as P
import qualified "base" Data.Char as C
import qualified "base" GHC.Conc as Conc
import qualified "base" System.Environment as Env
import qualified "base" System.Exit as Exit
import qualified "base" System.IO.Unsafe as U

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

primPutStr :: [Char] -> IO ()
primPutStr = P.putStr

primGetChar :: IO Char
primGetChar = P.getChar

primGetLine :: IO [Char]
primGetLine = P.getLine

primGetContents :: IO [Char]
primGetContents = P.getContents

primGetArgs :: IO [[Char]]
primGetArgs = Env.getArgs

primGetProgName :: IO [Char]
primGetProgName = Env.getProgName

primExitWith :: Int -> IO a
primExitWith = \n -> if n P.== 0 then Exit.exitWith Exit.ExitSuccess else Exit.exitWith (Exit.ExitFailure n)

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
