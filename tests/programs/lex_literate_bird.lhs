A literate Haskell program with bird tracks: only the lines that start
with > are the program, and line numbers stay those of the file.

> module Main where
>
> import Data.List (sort)

The comment lines between code blocks are ignored, even when they
look like code:
main = print "not this one"

> main :: IO ()
> main = do
>   print (sort [3, 1, 2 :: Int])
>   putStrLn (twice "ab")

> twice :: String -> String
> twice s = s ++ s
