-- | The sequential meaning of gph's Control.Parallel.Eden.Adaptive
-- (ASPARA's farm and pipeline): map, and the stages composed.
module Control.Parallel.Eden.Adaptive
  ( aspFarm, aspFarmAt, aspPipe, naivePipe
  ) where

import Control.Parallel.Eden (Trans)

aspFarm :: (Trans a, Trans b) => (a -> b) -> [a] -> [b]
aspFarm = map

aspFarmAt :: (Trans a, Trans b) => [Int] -> (a -> b) -> [a] -> [b]
aspFarmAt _ = map

aspPipe :: Trans a => [a -> a] -> [a] -> [a]
aspPipe fs = map (foldl (flip (.)) id fs)

naivePipe :: Trans a => [a -> a] -> [a] -> [a]
naivePipe = aspPipe
