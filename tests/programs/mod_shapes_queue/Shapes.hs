module Shapes (Shape(..), HasArea(..), totalArea, (+++)) where

class HasArea a where
  area :: a -> Double
  perimeter :: a -> Double
  describe :: a -> String
  describe x = "area " ++ show (area x) ++ ", perimeter " ++ show (perimeter x)

data Shape = Circle { radius :: Double } | Rect { w, h :: Double }
  deriving (Show, Eq)

instance HasArea Shape where
  area (Circle r) = pi * r * r
  area (Rect a b) = a * b
  perimeter (Circle r) = 2 * pi * r
  perimeter Rect { w = a, h = b } = 2 * (a + b)

totalArea :: HasArea a => [a] -> Double
totalArea = sum . map area

infixr 5 +++
(+++) :: [a] -> [a] -> [a]
xs +++ ys = foldr (:) ys xs
