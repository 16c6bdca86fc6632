-- An abstract queue: the type is exported without its constructor.
module Data.Queue.Simple
  ( Queue
  , emptyQ
  , push
  , pop
  , fromListQ
  , sizeQ
  ) where

data Queue a = Queue [a] [a]

emptyQ :: Queue a
emptyQ = Queue [] []

push :: a -> Queue a -> Queue a
push x (Queue f b) = Queue f (x : b)

pop :: Queue a -> Maybe (a, Queue a)
pop (Queue [] []) = Nothing
pop (Queue [] b) = pop (Queue (reverse b) [])
pop (Queue (x : f) b) = Just (x, Queue f b)

fromListQ :: [a] -> Queue a
fromListQ xs = Queue xs []

sizeQ :: Queue a -> Int
sizeQ (Queue f b) = length f + length b

instance Show a => Show (Queue a) where
  showsPrec d (Queue f b) = showParen (d > 10) $
    showString "fromListQ " . showsPrec 11 (f ++ reverse b)
