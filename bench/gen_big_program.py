#!/usr/bin/env python3
"""Generates a large, well-typed gph program (about N lines) for timing the
front end: data types with deriving, type signatures, guards, where clauses,
case, let, list comprehensions, local polymorphism and type classes in use."""
import sys

def block(i):
    return f'''
data Shape{i} = Circle{i} Double | Rect{i} Double Double | Tri{i} Double Double Double
  deriving (Show, Eq)

area{i} :: Shape{i} -> Double
area{i} (Circle{i} r) = 3.14159 * r * r
area{i} (Rect{i} w h) = w * h
area{i} (Tri{i} a b c)
  | s > 0 = sqrt (s * (s - a) * (s - b) * (s - c))
  | otherwise = 0
  where s = (a + b + c) / 2

count{i} :: Int -> [Int] -> Int
count{i} k xs = length [x | x <- xs, x `mod` k == 0, let y = x * x, y > k]

step{i} :: (Ord a, Num a) => a -> [a] -> [a]
step{i} lim = go
  where
    go [] = []
    go (x:rest)
      | x > lim = lim : go rest
      | otherwise = case rest of
          [] -> [x]
          (y:_) -> x + y : go rest

pairs{i} :: [a] -> [(a, a)]
pairs{i} xs = let ys = drop 1 xs in zip xs ys

summary{i} :: Int -> String
summary{i} n = show (count{i} 3 [1 .. n]) ++ " " ++ show (map area{i} [Circle{i} 1, Rect{i} 2 3])
'''

def main():
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    per = block(0).count('\n')
    n = max(1, lines // per)
    out = ['module Main (main) where', '']
    for i in range(n):
        out.append(block(i))
    out.append('main :: IO ()')
    out.append('main = do')
    for i in range(0, n, max(1, n // 20)):
        out.append(f'  putStrLn (summary{i} 10)')
    print('\n'.join(out))

main()
