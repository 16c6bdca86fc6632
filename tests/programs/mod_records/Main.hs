-- Several modules: Main.hs imports Shapes/Geometry.hs (module Shapes.Geometry),
-- whose export list exports a record type with all its fields, one with some,
-- and a field on its own; used unqualified and qualified (G.py, p { G.py = 9 }).
module Main where

import Shapes.Geometry
import qualified Shapes.Geometry as G

main :: IO ()
main = do
  let p = shift 3 origin
  print p
  print (px p, G.py p)
  let b = Box { lo = origin, G.hi = p { G.py = 9 } }
  print b
  print (hi b)
  print (b { lo = shift 1 (lo b) })
  case b of
    Box { hi = Point { px = x } } -> print x
