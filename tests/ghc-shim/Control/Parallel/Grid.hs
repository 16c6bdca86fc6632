-- | The sequential meaning of gph's Control.Parallel.Grid: one PE, of
-- speed 1, dedicated (load 0), no latency, no limit on bandwidth; the
-- clock is GHC's monotonic clock.
module Control.Parallel.Grid
  ( noPe, selfPe, clock, peSpeed, peLoad, peLatency, peBandwidth
  , peSpeeds, peLoads
  ) where

import Control.Parallel.Eden (noPe, selfPe)
import GHC.Clock (getMonotonicTime)

clock :: IO Double
clock = getMonotonicTime

onePe :: String -> Int -> IO ()
onePe what k
  | k >= 1 && k <= noPe = return ()
  | otherwise = ioError (userError (what ++ ": there is no PE " ++ show k))

peSpeed :: Int -> IO Double
peSpeed k = onePe "peSpeed" k >> return 1

peLoad :: Int -> IO Double
peLoad k = onePe "peLoad" k >> return 0

peLatency :: Int -> IO Double
peLatency k = onePe "peLatency" k >> return 0

peBandwidth :: Int -> IO Double
peBandwidth k = onePe "peBandwidth" k >> return (1 / 0)

peSpeeds :: IO [Double]
peSpeeds = mapM peSpeed [1 .. noPe]

peLoads :: IO [Double]
peLoads = mapM peLoad [1 .. noPe]
