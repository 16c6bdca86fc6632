-- | Sequential meaning of the parallel package's strategies, for Hugs.
module Control.Parallel.Strategies
  ( Strategy, using, withStrategy, r0, rseq, rpar, rdeepseq, parList
  , parListChunk, parMap, evalList, NFData
  ) where

import Control.DeepSeq

infixl 0 `using`

type Strategy a = a -> a

using :: a -> Strategy a -> a
using x s = s x

withStrategy :: Strategy a -> a -> a
withStrategy s x = s x

r0, rseq, rpar :: Strategy a
r0 x = x
rseq x = x `seq` x
rpar x = x `seq` x

rdeepseq :: NFData a => Strategy a
rdeepseq x = rnf x `seq` x

evalList, parList :: Strategy a -> Strategy [a]
evalList _ [] = []
evalList s (x:xs) = let y = s x in y `seq` (y : evalList s xs)
parList = evalList

parListChunk :: Int -> Strategy a -> Strategy [a]
parListChunk _ s = evalList s

parMap :: Strategy b -> (a -> b) -> [a] -> [b]
parMap s f xs = map f xs `using` parList s
