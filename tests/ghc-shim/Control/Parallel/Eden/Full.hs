-- | The sequential meaning of gph's Control.Parallel.Eden.Full (Eden's
-- whole Control.Parallel.Eden), for the oracle: on one processor a
-- process is a function call, remote data is the value, a dynamic channel
-- is an MVar that parfill fills, and merge interleaves its lists fairly
-- (any interleaving is a correct merge; tests print what does not depend
-- on the order).
module Control.Parallel.Eden.Full
  ( Process, process, rfi, PA, runPA, ( # ), ($#), spawn, spawnF, spawnAt, spawnFAt
  , instantiate, instantiateF, instantiateAt, instantiateFAt
  , noPe, selfPe, Trans, Places
  , RD, release, releasePA, fetch, fetchPA, releaseAll, fetchAll
  , liftRD, liftRD2, liftRD3, liftRD4
  , ChanName, new, parfill, merge, mergeProc
  , Lift(Lift), deLift, createProcess, cpAt
  , NFData(rnf), pseq
  ) where

import Control.Parallel.Eden
import Control.DeepSeq (NFData(rnf))
import Control.Parallel (pseq)
import Control.Concurrent (forkIO)
import Control.Concurrent.MVar
import System.IO.Unsafe (unsafePerformIO)

rfi :: Trans b => (a -> b) -> a -> Process () b
rfi f x = process (\() -> f x)

newtype PA a = PA (IO a)

instance Functor PA where
  fmap f (PA io) = PA (fmap f io)

instance Applicative PA where
  pure x = PA (return x)
  PA f <*> PA x = PA (f <*> x)

instance Monad PA where
  PA io >>= k = PA (io >>= \x -> case k x of PA io' -> io')

runPA :: PA a -> a
runPA (PA io) = unsafePerformIO io
{-# NOINLINE runPA #-}

instantiate :: (Trans a, Trans b) => Process a b -> a -> PA b
instantiate p x = PA (return (p # x))

instantiateF :: (Trans a, Trans b) => (a -> b) -> a -> PA b
instantiateF f x = PA (return (f x))

instantiateAt :: (Trans a, Trans b) => Int -> Process a b -> a -> PA b
instantiateAt _ = instantiate

instantiateFAt :: (Trans a, Trans b) => Int -> (a -> b) -> a -> PA b
instantiateFAt _ = instantiateF

type Places = [Int]

newtype ChanName a = ChanName (MVar a)

new :: Trans a => (ChanName a -> a -> b) -> b
new f = unsafePerformIO $ do
  mv <- newEmptyMVar
  let v = unsafePerformIO (readMVar mv)
  return (f (ChanName mv) v)
{-# NOINLINE new #-}

parfill :: Trans a => ChanName a -> a -> b -> b
parfill (ChanName mv) x e = unsafePerformIO (forkIO (putMVar mv x) >> return e)
{-# NOINLINE parfill #-}

newtype RD a = RD a

release :: Trans a => a -> RD a
release = RD

releasePA :: Trans a => a -> PA (RD a)
releasePA x = PA (return (RD x))

fetch :: Trans a => RD a -> a
fetch (RD x) = x

fetchPA :: Trans a => RD a -> PA a
fetchPA (RD x) = PA (return x)

releaseAll :: Trans a => [a] -> [RD a]
releaseAll = map RD

fetchAll :: Trans a => [RD a] -> [a]
fetchAll = map fetch

liftRD :: (Trans a, Trans b) => (a -> b) -> RD a -> RD b
liftRD f (RD x) = RD (f x)

liftRD2 :: (Trans a, Trans b, Trans c) => (a -> b -> c) -> RD a -> RD b -> RD c
liftRD2 f (RD x) (RD y) = RD (f x y)

liftRD3 :: (Trans a, Trans b, Trans c, Trans d) => (a -> b -> c -> d) -> RD a -> RD b -> RD c -> RD d
liftRD3 f (RD x) (RD y) (RD z) = RD (f x y z)

liftRD4 :: (Trans a, Trans b, Trans c, Trans d, Trans e) => (a -> b -> c -> d -> e) -> RD a -> RD b -> RD c -> RD d -> RD e
liftRD4 f (RD x) (RD y) (RD z) (RD w) = RD (f x y z w)

merge :: [[a]] -> [a]
merge xss = go xss []
  where
    go [] [] = []
    go [] later = go (reverse later) []
    go ([] : rest) later = go rest later
    go ((y : ys) : rest) later = y : go rest (ys : later)

mergeProc :: [[a]] -> [a]
mergeProc = merge

data Lift a = Lift a

deLift :: Lift a -> a
deLift (Lift x) = x

createProcess :: (Trans a, Trans b) => Process a b -> a -> Lift b
createProcess p x = Lift (p # x)

cpAt :: (Trans a, Trans b) => Int -> Process a b -> a -> Lift b
cpAt _ = createProcess
