\documentclass{article}
\begin{document}
A literate program in the LaTeX style: the code is between
begin{code} and end{code}; this text, and main = print 0 in it, is not.

\begin{code}
main :: IO ()
main = mapM_ (print . double) (squares 5)
\end{code}

And a second block:

\begin{code}
double :: Int -> Int
double = (* 2)

squares :: Int -> [Int]
squares n = [k * k | k <- [1 .. n]]
\end{code}
\end{document}
