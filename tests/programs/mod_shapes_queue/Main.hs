-- Three modules: Main, Shapes (a class with a default method, a record
-- type, an exported operator with its fixity) and Data.Queue.Simple (an
-- abstract type in a sub-folder, imported qualified).
module Main (main) where

import Shapes
import qualified Data.Queue.Simple as Q
import Data.Queue.Simple (Queue)

newtype Square = Square Double

instance HasArea Square where
  area (Square s) = s * s
  perimeter (Square s) = 4 * s
  describe s = "a square of " ++ show (area s)

bfs :: (Int -> [Int]) -> Int -> [Int]
bfs next start = go (Q.push start Q.emptyQ) [start]
  where
    go q seen = case Q.pop q of
      Nothing -> []
      Just (x, q') ->
        let new = [y | y <- next x, y `notElem` seen]
        in x : go (foldr Q.push q' (reverse new)) (seen ++ new)

main :: IO ()
main = do
  let shapes = [Circle 1, Rect { w = 2, h = 3 }, Circle { radius = 0.5 }]
  mapM_ (putStrLn . describe) shapes
  putStrLn (describe (Square 3))
  print (totalArea shapes, totalArea [Square 1, Square 2])
  print ([1, 2] +++ [3] +++ [4, 5 :: Int])
  let q = foldr Q.push (Q.fromListQ "ab") "dc" :: Queue Char
  print (q, Q.sizeQ q)
  print (fmap fst (Q.pop q))
  print (bfs (\n -> filter (<= 20) [2 * n, 2 * n + 1]) 1)
  print (map radius (filter isCircle shapes))
  where
    isCircle Circle {} = True
    isCircle _ = False
