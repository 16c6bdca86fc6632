-- | The sequential meaning of gph's Control.Parallel.Eden.DivisibleLoad:
-- whatever the schedule, dlMap is map.
module Control.Parallel.Eden.DivisibleLoad
  ( Schedule(Static, PSS, CSS, GSS, FSS, TSS, NGSS, PWD)
  , dlMap, dlMapAt
  ) where

import Control.Parallel.Eden (Trans)
import Control.Parallel.Eden.Schedule

dlMap :: (Trans a, Trans b) => Schedule -> (a -> b) -> [a] -> [b]
dlMap s f xs = checkSchedule s `seq` map f xs

dlMapAt :: (Trans a, Trans b) => [Int] -> Schedule -> (a -> b) -> [a] -> [b]
dlMapAt _ = dlMap
