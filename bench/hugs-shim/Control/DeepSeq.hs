-- | The part of the deepseq package the programs use, for Hugs.
module Control.DeepSeq (NFData(..), deepseq, force, ($!!)) where

infixr 0 $!!, `deepseq`

class NFData a where
  rnf :: a -> ()
  rnf a = a `seq` ()

instance NFData Int
instance NFData Integer
instance NFData Double
instance NFData Char
instance NFData Bool
instance NFData ()
instance NFData a => NFData [a] where
  rnf [] = ()
  rnf (x:xs) = rnf x `seq` rnf xs
instance NFData a => NFData (Maybe a) where
  rnf Nothing = ()
  rnf (Just x) = rnf x
instance (NFData a, NFData b) => NFData (a, b) where
  rnf (a, b) = rnf a `seq` rnf b
instance (NFData a, NFData b, NFData c) => NFData (a, b, c) where
  rnf (a, b, c) = rnf a `seq` rnf b `seq` rnf c

deepseq :: NFData a => a -> b -> b
deepseq a b = rnf a `seq` b

force :: NFData a => a -> a
force x = x `deepseq` x

($!!) :: NFData a => (a -> b) -> a -> b
f $!! x = x `deepseq` f x
