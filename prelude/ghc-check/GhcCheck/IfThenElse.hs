{-# LANGUAGE PackageImports, NoImplicitPrelude #-}
-- | Used only by check-with-ghc.sh. The gph modules are compiled by GHC with
-- RebindableSyntax (so that numeric literals, negation and do-notation use
-- the gph Prelude's classes); under RebindableSyntax `if` means a call of
-- whatever `ifThenElse` is in scope, and the script imports this one.
module GhcCheck.IfThenElse (ifThenElse) where

import "base" Prelude (Bool(False, True))

ifThenElse :: Bool -> a -> a -> a
ifThenElse True t _ = t
ifThenElse False _ e = e
