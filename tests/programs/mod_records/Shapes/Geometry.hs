module Shapes.Geometry (Point(..), Box(Box, lo), hi, origin, shift) where

data Point = Point { px :: Int, py :: Int } deriving (Show, Eq)

data Box = Box { lo :: Point, hi :: Point } deriving Show

origin :: Point
origin = Point { px = 0, py = 0 }

shift :: Int -> Point -> Point
shift d p = p { px = px p + d }
