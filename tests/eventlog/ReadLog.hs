-- Reads an eventlog with ghc-events (the library ThreadScope reads with)
-- and prints, per capability, how many events of each kind it holds:
--
--   cap <n|none> <event> <count>
--
-- where <event> is the constructor's name, with the message kind (the
-- port field, see runtime/src/obs/eventlog.rs) after a slash for message
-- events, and the stop status after one for StopThread. Also the bytes
-- received per capability, whether each capability's events are in time
-- order, how often its runs and collections overlap (ThreadScope's
-- timeline wants none), and whether the file was complete. tests/observe.rs compares
-- this with `--stats-json`.
module Main (main) where

import qualified Data.ByteString.Lazy as BL
import qualified Data.Map.Strict as M
import Data.List (foldl')
import GHC.RTS.Events
import GHC.RTS.Events.Incremental (readEventLog)
import System.Environment (getArgs)
import System.Exit (exitWith, ExitCode (..))
import System.IO (hPutStrLn, stderr)

eventName :: EventInfo -> String
eventName e = case e of
  SendMessage {} -> "SendMessage/" ++ show (receiverInport e)
  ReceiveMessage {} -> "ReceiveMessage/" ++ show (receiverInport e)
  StopThread {} -> "StopThread/" ++ head (words (show (status e)))
  _ -> head (words (show e))

capName :: Maybe Int -> String
capName = maybe "none" show

main :: IO ()
main = do
  [path] <- getArgs
  bytes <- BL.readFile path
  case readEventLog bytes of
    Left err -> hPutStrLn stderr ("cannot read: " ++ err) >> exitWith (ExitFailure 2)
    Right (EventLog _ (Data evs), trailer) -> do
      let counts = foldl' (\m ev -> M.insertWith (+) (capName (evCap ev), eventName (evSpec ev)) (1 :: Int) m) M.empty evs
          received = foldl' (\m ev -> case evSpec ev of
                                ReceiveMessage {} -> M.insertWith (+) (capName (evCap ev)) (toInteger (messageSize (evSpec ev))) m
                                _ -> m) M.empty evs
          -- Per capability, the last time seen and whether time went back.
          order = foldl' (\m ev -> M.insertWith (\_ (t0, ok) -> (evTime ev, ok && evTime ev >= t0)) (capName (evCap ev)) (evTime ev, True) m) M.empty evs
          -- Per capability: running, collecting or neither, and how many
          -- events came at the wrong moment (a run while running, a stop
          -- while not, a collection while running).
          overlap = foldl' step M.empty evs
          step m ev =
            let c = capName (evCap ev)
                (st, bad) = M.findWithDefault ("idle", 0 :: Int) c m
                to s' ok = M.insert c (s', if ok then bad else bad + 1) m
            in case evSpec ev of
                 RunThread {} -> to "run" (st == "idle")
                 StopThread {} -> to "idle" (st == "run")
                 StartGC -> to "gc" (st == "idle")
                 EndGC -> to "idle" (st == "gc")
                 _ -> m
      mapM_ (\((c, n), k) -> putStrLn (unwords ["cap", c, n, show k])) (M.toList counts)
      mapM_ (\(c, b) -> putStrLn (unwords ["cap", c, "received-bytes", show b])) (M.toList received)
      mapM_ (\(c, (_, ok)) -> putStrLn (unwords ["cap", c, "in-order", show ok])) (M.toList order)
      mapM_ (\(c, (_, bad)) -> putStrLn (unwords ["cap", c, "overlaps", show bad])) (M.toList overlap)
      putStrLn (maybe "complete" (\e -> "incomplete: " ++ concat (lines e)) trailer)
