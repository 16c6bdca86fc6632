//! Grid-GUM2's load policy (the Grid-GUM papers, `../shared/papers/000_*`
//! section 7 and `001_*`; docs/parallel.md "Grid-GUM2"). GUM fishes at
//! random, which on a heterogeneous grid sends a fast PE's FISH to a slow
//! one as often as to a loaded one, across a slow link as often as across
//! the room. Grid-GUM2 lets every PE know, roughly, where the work is:
//!
//! * PEStatic: at start-up every PE tells every other its speed
//!   (`announce`, a PESTATIC message each).
//! * PEDynamic: each PE keeps a table of every PE's load (its sparks) with
//!   the time (on that PE's own clock) it was measured, and ComMap, a
//!   table of latencies between PEs. Every packet carries the part of
//!   both that its receiver has not heard from this PE yet (`piggyback`):
//!   the sender's own load if it changed since, up to [`PIGGY_LOADS`] of
//!   the freshest other entries newer than what the receiver was told (or
//!   told us), and up to [`PIGGY_LATENCIES`] entries of the sender's own
//!   latency row whose value changed, in turn. A message with no news
//!   carries nothing. The receiver keeps what is more recent than what it
//!   knew (`heard`): only the PE an entry is about stamps it, with the
//!   time its value last changed, so stamps of one entry always come from
//!   one clock and the freshest stamp goes with the current value. (Every
//!   packet once carried the three freshest entries and two latencies
//!   whether new or not, 25 bytes on an 11-byte stream element: Eden's
//!   parallel sort of 20000 numbers on 4 simulated PEs without chunking
//!   took 91.4 ms against gum's 76.5 ms.)
//! * Latencies: a packet's receipt time minus its send time, the least
//!   seen (queueing only ever adds to it).
//! * Work location: an idle PE fishes the PE with the highest load for its
//!   speed (a slow PE's sparks are the ones worth taking), among those
//!   within half of the best preferring the lowest latency; a PE without
//!   sparks forwards a FISH to the busiest PE it knows of. Its own
//!   cluster comes first: when none of ours is known to have sparks, a
//!   FISH goes from one of ours to another at random before it crosses
//!   to the busiest PE of another cluster. Knowing of no load anywhere,
//!   it does what GUM does.
//! * Super-schedule (only with `Tuning::super_schedule`, off by default:
//!   it made most measured runs slower, docs/parallel.md): a FISH from
//!   another cluster (latency over
//!   [`REMOTE_FACTOR`] times this PE's lowest) whose PE is at least as
//!   fast gets several sparks at once, its PE's fair share of the pool
//!   (the pool over all PEs' speeds, times its own), up to
//!   [`SUPER_MOST`]: its round trip is dear, and its PE passes them on in
//!   its cluster. (A share in proportion to the two PEs' speeds alone,
//!   the first rule, gave a fast remote PE most of a small pool: queens
//!   11, 11 tasks, on two slow PEs and a fast one 2 ms away, 22 % slower
//!   than gum.)
//! * The low watermark, scaled by speed: a busy PE fishes early when its
//!   sparks fall below `watermark * speed / mean speed`, so fast PEs fish
//!   earlier than slow ones.

use crate::machine::pe::Tuning;
use crate::parallel::ids::PeId;
use crate::parallel::policy::gum::{GumPolicy, FISH_LIFE};
use crate::parallel::policy::{Asked, Load, LoadPolicy, Sparks};
use crate::parallel::protocol::codec;
use std::time::Duration;

/// Load entries besides the sender's own in a piggyback.
pub const PIGGY_LOADS: usize = 3;
/// Latency entries in a piggyback.
pub const PIGGY_LATENCIES: usize = 2;
/// A PE this many times further than this PE's nearest is in another
/// cluster.
pub const REMOTE_FACTOR: f64 = 4.0;
/// The most sparks one SCHEDULE carries.
pub const SUPER_MOST: usize = 8;
/// A PE this many times faster than another is clearly faster.
pub const FASTER: f64 = 1.25;
/// The low watermark of a PE of average speed when none is given.
pub const DEFAULT_WATERMARK: usize = 2;

/// A value and when (seconds, on the clock of the PE that measured it) it
/// was measured; `at` is -inf while nothing is known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stamped<T> {
    pub value: T,
    pub at: f64,
}

impl<T: Copy> Stamped<T> {
    fn unknown(value: T) -> Self {
        Stamped {
            value,
            at: f64::NEG_INFINITY,
        }
    }

    fn known(&self) -> bool {
        self.at > f64::NEG_INFINITY
    }

    /// Keeps `other` if it is more recent.
    fn merge(&mut self, other: Stamped<T>) {
        if other.at > self.at {
            *self = other;
        }
    }
}

pub struct Gum2Policy {
    me: PeId,
    /// GUM's random choices, for when the tables know of no work.
    gum: GumPolicy,
    /// PEStatic: each PE's speed (1.0 until heard of: the fastest).
    speed: Vec<f64>,
    /// PEDynamic: each PE's sparks.
    load: Vec<Stamped<u32>>,
    /// ComMap: `latency[a][b]`, seconds from b to a as a measured them.
    latency: Vec<Vec<Stamped<f64>>>,
    /// The next of our latency entries to piggyback.
    latency_turn: usize,
    /// `told[to][p]`: the stamp of the newest load entry of PE p that PE
    /// `to` had from us, or told us of.
    told: Vec<Vec<f64>>,
    /// `told_latency[to][p]`: our latency to p as we last told PE `to`
    /// (NaN: never).
    told_latency: Vec<Vec<f64>>,
    watermark: usize,
    /// Whether to super-schedule (`Tuning::super_schedule`).
    super_schedule: bool,
    /// Whether a thread limit is in force (`Tuning::thread_limit`).
    thread_limit: bool,
}

fn micros(t: f64) -> u64 {
    (t.max(0.0) * 1e6).round() as u64
}

fn seconds(us: u64) -> f64 {
    us as f64 / 1e6
}

impl Gum2Policy {
    pub fn new(me: PeId, npes: usize, speed: f64, seed: u64, tuning: &Tuning) -> Gum2Policy {
        let mut speeds = vec![1.0; npes];
        speeds[me.0 as usize] = speed;
        Gum2Policy {
            me,
            gum: GumPolicy::new(me, npes, seed, tuning),
            speed: speeds,
            load: vec![Stamped::unknown(0); npes],
            latency: vec![vec![Stamped::unknown(0.0); npes]; npes],
            latency_turn: 0,
            told: vec![vec![f64::NEG_INFINITY; npes]; npes],
            told_latency: vec![vec![f64::NAN; npes]; npes],
            watermark: tuning.low_watermark.unwrap_or(DEFAULT_WATERMARK),
            super_schedule: tuning.super_schedule,
            thread_limit: tuning.thread_limit != usize::MAX,
        }
    }

    fn me(&self) -> usize {
        self.me.0 as usize
    }

    /// How many PEs there are.
    fn npes(&self) -> usize {
        self.speed.len()
    }

    /// Our latency to `pe`: measured, else as `pe` measured it, else None.
    fn latency_to(&self, pe: PeId) -> Option<f64> {
        let (a, b) = (self.me(), pe.0 as usize);
        [self.latency[a][b], self.latency[b][a]]
            .into_iter()
            .find(|l| l.known())
            .map(|l| l.value)
    }

    /// The known load of `pe` for its speed (0 when unknown).
    fn pressure(&self, pe: usize) -> f64 {
        let l = self.load[pe];
        if l.known() {
            l.value as f64 / self.speed[pe]
        } else {
            0.0
        }
    }

    /// The PE, other than us and `not`, with the most load for its speed,
    /// preferring the nearest among those within half of the most; None
    /// when no PE is known to have sparks.
    fn busiest_of(&self, pes: &[usize]) -> Option<PeId> {
        let best = pes.iter().map(|&p| self.pressure(p)).fold(0.0, f64::max);
        if best <= 0.0 {
            return None;
        }
        let far = f64::INFINITY;
        pes.iter()
            .copied()
            .filter(|&p| self.pressure(p) * 2.0 >= best)
            .min_by(|&p, &q| {
                let lp = self.latency_to(PeId(p as u16)).unwrap_or(far);
                let lq = self.latency_to(PeId(q as u16)).unwrap_or(far);
                lp.total_cmp(&lq)
                    .then(self.pressure(q).total_cmp(&self.pressure(p)))
            })
            .map(|p| PeId(p as u16))
    }

    /// Whom to ask for work, other than us and `not`, for a FISH that has
    /// made `age` hops. Our own cluster comes first (the papers: "obtain
    /// work, and hence data, from PEs with low latency"): its busiest PE
    /// when one is known to have sparks; else one of ours at random, a
    /// probe that costs a LAN round trip where asking across costs a WAN
    /// one, while the FISH has made fewer hops than our cluster has other
    /// PEs; only then the busiest PE of another cluster. The tables alone
    /// point across too often: a PE sends most of its packets when it is
    /// idle (its FISH), so its neighbours mostly hear "no sparks" of it,
    /// while the remote main PE's answers say it has plenty. (nfib 34 18
    /// on one E PE and four M PEs 35.8 ms away, mean of 3 seeds: 0.94 s,
    /// the M PEs fishing the E PE over and over; gum 0.62 s; 0.62 s now.)
    /// None: nothing is known anywhere.
    fn target(&mut self, not: Option<PeId>, age: u32) -> Option<PeId> {
        let others: Vec<usize> = (0..self.npes())
            .filter(|&p| p != self.me() && Some(PeId(p as u16)) != not)
            .collect();
        let (local, remote): (Vec<usize>, Vec<usize>) =
            others.iter().partition(|&&p| !self.remote(PeId(p as u16)));
        if let Some(pe) = self.busiest_of(&local) {
            return Some(pe);
        }
        let far = self.busiest_of(&remote)?;
        if (age as usize) < local.len() {
            let ours: Vec<u16> = local.iter().map(|&p| p as u16).collect();
            if let Some(pe) = self.gum.random_of(&ours) {
                return Some(pe);
            }
        }
        Some(far)
    }

    /// Whether `pe` is in another cluster than ours: its latency is many
    /// times our nearest PE's.
    fn remote(&self, pe: PeId) -> bool {
        let nearest = (0..self.npes())
            .filter(|&p| p != self.me())
            .filter_map(|p| self.latency_to(PeId(p as u16)))
            .fold(f64::INFINITY, f64::min);
        match self.latency_to(pe) {
            Some(l) => nearest.is_finite() && l > REMOTE_FACTOR * nearest,
            None => false,
        }
    }

    /// The low watermark for this PE's speed.
    fn scaled_watermark(&self) -> usize {
        let mean = self.speed.iter().sum::<f64>() / self.npes().max(1) as f64;
        (self.watermark as f64 * self.speed[self.me()] / mean).round() as usize
    }
}

impl LoadPolicy for Gum2Policy {
    fn fish_target(&mut self) -> PeId {
        match self.target(None, 0) {
            Some(pe) => pe,
            None => self.gum.fish_target(),
        }
    }

    fn forward(&mut self, origin: PeId, age: u32) -> Option<PeId> {
        if age >= FISH_LIFE {
            return None;
        }
        match self.target(Some(origin), age) {
            Some(pe) => Some(pe),
            None => self.gum.forward(origin, age),
        }
    }

    fn fish_delay(&self) -> Duration {
        self.gum.fish_delay()
    }

    fn fish_early(&self, load: Load) -> bool {
        load.sparks < self.scaled_watermark() && load.runnable == 0
    }

    /// GUM's choice, but the last few sparks are kept for faster PEs: a
    /// fisher gets one only while the pool holds more than there are PEs
    /// clearly faster than it (this one included, which would run it
    /// itself). A spark a slow PE takes at the end finishes last: raytracer
    /// 240 180 2 on two slow PEs and a fast one (SSF), 1.119 s against
    /// gum's 1.023 s; 1.022 s kept. Not under a thread limit: a PE at its
    /// limit neither fishes nor runs its own sparks, and the slow fisher
    /// may be the only PE that can take them.
    fn spark_to_send(&self, sparks: &Sparks, asked: Asked) -> Option<usize> {
        if let (Some(f), false) = (asked.fisher, self.thread_limit) {
            let theirs = self.speed.get(f.0 as usize).copied().unwrap_or(1.0);
            let faster = (0..self.npes())
                .filter(|&p| p != f.0 as usize && self.speed[p] > FASTER * theirs)
                .count();
            if sparks.len() <= faster {
                return None;
            }
        }
        self.gum.spark_to_send(sparks, asked)
    }

    fn announce(&self) -> Option<f64> {
        Some(self.speed[self.me()])
    }

    fn speed_of(&self, pe: PeId) -> Option<f64> {
        self.speed.get(pe.0 as usize).copied()
    }

    fn latency_of(&self, pe: PeId) -> Option<f64> {
        if pe == self.me {
            Some(0.0)
        } else {
            self.latency_to(pe)
        }
    }

    fn static_info(&mut self, from: PeId, speed: f64) {
        if let Some(s) = self.speed.get_mut(from.0 as usize) {
            if speed > 0.0 && speed.is_finite() {
                *s = speed;
            }
        }
    }

    /// What `to` has not heard from us: our load if it changed since we
    /// last told it; the freshest other entries newer than what it knows,
    /// but its own (it knows better); our latencies whose value changed,
    /// in turn. Nothing at all when there is no news. Stamps and
    /// latencies in whole microseconds.
    fn piggyback(&mut self, to: PeId, now: f64, load: Load) -> Vec<u8> {
        let (me, t) = (self.me(), to.0 as usize);
        if t >= self.npes() {
            return Vec::new();
        }
        let sparks = load.sparks as u32;
        // A new value gets a stamp later than the last one, on the wire
        // too (whole microseconds): a receiver keeps the first of two
        // values stamped alike, and would never hear of the second.
        if !self.load[me].known() || self.load[me].value != sparks {
            let last = self.load[me];
            let at = if last.known() {
                micros(now).max(micros(last.at) + 1)
            } else {
                micros(now)
            };
            self.load[me] = Stamped {
                value: sparks,
                at: seconds(at),
            };
        }
        let news = |p: usize| self.load[p].known() && self.load[p].at > self.told[t][p];
        let mut others: Vec<usize> = (0..self.npes())
            .filter(|&p| p != me && p != t && news(p))
            .collect();
        others.sort_by(|&p, &q| self.load[q].at.total_cmp(&self.load[p].at));
        others.truncate(PIGGY_LOADS);
        let loads: Vec<usize> = news(me).then_some(me).into_iter().chain(others).collect();
        let n = self.npes();
        let row: Vec<usize> = (0..n)
            .map(|k| (self.latency_turn + k) % n)
            .filter(|&p| {
                let l = self.latency[me][p];
                l.known() && l.value != self.told_latency[t][p]
            })
            .take(PIGGY_LATENCIES)
            .collect();
        if loads.is_empty() && row.is_empty() {
            return Vec::new();
        }
        if let Some(&last) = row.last() {
            self.latency_turn = last + 1;
        }
        let mut out = Vec::new();
        codec::put_word(&mut out, loads.len() as u64);
        for p in loads {
            self.told[t][p] = self.load[p].at;
            codec::put_word(&mut out, p as u64);
            codec::put_word(&mut out, self.load[p].value as u64);
            codec::put_word(&mut out, micros(self.load[p].at));
        }
        codec::put_word(&mut out, row.len() as u64);
        for p in row {
            let l = self.latency[me][p];
            self.told_latency[t][p] = l.value;
            codec::put_word(&mut out, p as u64);
            codec::put_word(&mut out, micros(l.value));
            codec::put_word(&mut out, micros(l.at));
        }
        out
    }

    fn heard(
        &mut self,
        from: PeId,
        sent_at: f64,
        now: f64,
        piggyback: &[u8],
    ) -> Result<(), String> {
        let (me, f) = (self.me(), from.0 as usize);
        if f >= self.npes() {
            return Err(format!("a packet from PE {f} of {}", self.npes()));
        }
        let took = now - sent_at;
        if took >= 0.0 {
            let l = &mut self.latency[me][f];
            let value = if l.known() { l.value.min(took) } else { took };
            *l = Stamped { value, at: now };
        }
        if piggyback.is_empty() {
            return Ok(());
        }
        let mut bytes = piggyback;
        let mut word = || codec::take_word(&mut bytes).ok_or("a piggyback cut short");
        let n = self.npes();
        let pe = |w: u64| match usize::try_from(w) {
            Ok(p) if p < n => Ok(p),
            _ => Err(format!("a piggyback names PE {w} of {n}")),
        };
        for _ in 0..word()? {
            let p = pe(word()?)?;
            let value = word()?.min(u32::MAX as u64) as u32;
            let at = seconds(word()?);
            // The sender knows this entry: no need to tell it back.
            self.told[f][p] = self.told[f][p].max(at);
            if p != me {
                self.load[p].merge(Stamped { value, at });
            }
        }
        for _ in 0..word()? {
            let p = pe(word()?)?;
            let value = seconds(word()?);
            let at = seconds(word()?);
            self.latency[f][p].merge(Stamped { value, at });
        }
        if !bytes.is_empty() {
            return Err("a piggyback too long".into());
        }
        Ok(())
    }

    /// A fisher of another cluster at least as fast as this PE gets its
    /// fair share of the pool for its speed among all PEs (its own spark
    /// included), at most `SUPER_MOST` sparks in all.
    fn extra_sparks(&self, origin: PeId, available: usize) -> usize {
        let (mine, theirs) = (self.speed[self.me()], self.speed[origin.0 as usize]);
        if !self.super_schedule || available == 0 || theirs < mine || !self.remote(origin) {
            return 0;
        }
        let all: f64 = self.speed.iter().sum();
        let share = ((available + 1) as f64 * theirs / all).floor() as usize;
        share.saturating_sub(1).min(available).min(SUPER_MOST - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(me: u16, npes: usize, speed: f64) -> Gum2Policy {
        Gum2Policy::new(PeId(me), npes, speed, 7, &Tuning::default())
    }

    fn load(sparks: usize) -> Load {
        Load {
            runnable: 0,
            sparks,
        }
    }

    /// PE `from` tells `to` its load `sparks` at time `t`, a millisecond
    /// away.
    fn tell(from: &mut Gum2Policy, to: &mut Gum2Policy, sparks: usize, t: f64) {
        tell_over(from, to, sparks, t, 0.001);
    }

    /// The same over a link of `latency` seconds.
    fn tell_over(from: &mut Gum2Policy, to: &mut Gum2Policy, sparks: usize, t: f64, latency: f64) {
        let pb = from.piggyback(to.me, t, load(sparks));
        to.heard(from.me, t, t + latency, &pb).unwrap();
    }

    #[test]
    fn the_more_recent_entry_wins_whatever_the_order_of_arrival() {
        let mut a = policy(0, 3, 1.0);
        let mut b = policy(1, 3, 1.0);
        let mut c = policy(2, 3, 1.0);
        // b hears of c's load 5 at t = 2, then directly of c's older load
        // 9 from t = 1 (a slow link): 5 stays.
        let old = c.piggyback(b.me, 1.0, load(9));
        tell(&mut c, &mut a, 5, 2.0);
        tell(&mut a, &mut b, 0, 3.0);
        assert_eq!(b.load[2], Stamped { value: 5, at: 2.0 });
        b.heard(c.me, 1.0, 3.5, &old).unwrap();
        assert_eq!(b.load[2], Stamped { value: 5, at: 2.0 });
        // A newer one replaces it.
        tell(&mut c, &mut b, 1, 4.0);
        assert_eq!(b.load[2], Stamped { value: 1, at: 4.0 });
        // Nobody overrides what a PE knows of itself.
        let _ = a.piggyback(b.me, 9.0, load(3));
        let mut claim = Vec::new();
        for w in [1, 0, 7, micros(20.0), 0] {
            codec::put_word(&mut claim, w);
        }
        a.heard(c.me, 20.0, 20.0, &claim).unwrap();
        assert_eq!(a.load[0], Stamped { value: 3, at: 9.0 });
    }

    #[test]
    fn piggybacks_survive_and_garbage_is_an_error() {
        let mut a = policy(0, 4, 1.0);
        let mut b = policy(1, 4, 1.0);
        a.heard(PeId(2), 0.5, 0.7, &[]).unwrap();
        let pb = a.piggyback(b.me, 1.0, load(4));
        b.heard(a.me, 1.0, 1.2, &pb).unwrap();
        assert_eq!(b.load[0].value, 4);
        assert!((b.latency[0][2].value - 0.2).abs() < 1e-6);
        assert!((b.latency_to(PeId(0)).unwrap() - 0.2).abs() < 1e-6);
        for n in 0..pb.len() {
            assert!(b.heard(a.me, 1.0, 1.2, &pb[..n]).is_err() || n == 0);
        }
        let mut long = pb.clone();
        long.push(0);
        assert!(b.heard(a.me, 1.0, 1.2, &long).is_err());
        assert!(b.heard(a.me, 1.0, 1.2, &[1, 9, 0, 0, 0]).is_err());
        assert!(b.heard(PeId(7), 1.0, 1.2, &[]).is_err());
    }

    #[test]
    fn a_piggyback_carries_only_news_for_its_receiver() {
        let mut a = policy(0, 3, 1.0);
        let mut b = policy(1, 3, 1.0);
        let mut c = policy(2, 3, 1.0);
        tell(&mut c, &mut a, 4, 1.0);
        // b hears a's load and c's, and a's latency to c.
        let first = a.piggyback(b.me, 2.0, load(5));
        b.heard(a.me, 2.0, 2.001, &first).unwrap();
        assert_eq!((b.load[0].value, b.load[2].value), (5, 4));
        // Nothing new: nothing at all.
        assert!(a.piggyback(b.me, 3.0, load(5)).is_empty());
        // A new load goes, stamped later than the last even within the
        // same microsecond, and it wins.
        let pb = a.piggyback(b.me, 2.0, load(6));
        assert_eq!(pb, {
            let mut want = Vec::new();
            for w in [1, 0, 6, micros(2.0) + 1, 0] {
                codec::put_word(&mut want, w);
            }
            want
        });
        b.heard(a.me, 2.0, 2.001, &pb).unwrap();
        assert_eq!(b.load[0].value, 6);
        // What b told a, a does not tell b back.
        let mut d = policy(2, 3, 1.0);
        let from_b = b.piggyback(a.me, 4.0, load(1));
        a.heard(b.me, 4.0, 4.001, &from_b).unwrap();
        tell(&mut d, &mut b, 7, 5.0);
        let back = a.piggyback(b.me, 6.0, load(6));
        b.heard(a.me, 6.0, 6.001, &back).unwrap();
        assert_eq!(b.load[2], Stamped { value: 7, at: 5.0 });
        assert!(back.len() < first.len());
    }

    #[test]
    fn latency_is_the_least_seen() {
        let mut a = policy(0, 2, 1.0);
        for (sent, got) in [(1.0, 1.5), (2.0, 2.1), (3.0, 3.4)] {
            a.heard(PeId(1), sent, got, &[]).unwrap();
        }
        assert!((a.latency_to(PeId(1)).unwrap() - 0.1).abs() < 1e-9);
    }

    #[test]
    fn an_idle_pe_fishes_the_most_loaded_for_its_speed() {
        let mut a = policy(0, 4, 1.0);
        // Knowing nothing it fishes like GUM, at random.
        let t = a.fish_target();
        assert!(t != PeId(0) && (t.0 as usize) < 4);
        // PE 1: 6 sparks at speed 1; PE 2: 4 at speed 0.25 (16 for its
        // speed); PE 3: none.
        a.static_info(PeId(2), 0.25);
        for (pe, n) in [(1, 6), (2, 4), (3, 0)] {
            let mut o = policy(pe, 4, if pe == 2 { 0.25 } else { 1.0 });
            tell(&mut o, &mut a, n, 1.0);
        }
        assert_eq!(a.fish_target(), PeId(2));
        // Within half of the best, the nearest wins (PE 2 is 35 ms away:
        // the latency is the least seen, so make it the only one seen).
        a.latency[0][2] = Stamped::unknown(0.0);
        a.heard(PeId(2), 2.0, 2.035, &[]).unwrap();
        let mut one = policy(1, 4, 1.0);
        tell(&mut one, &mut a, 10, 3.0);
        assert_eq!(a.fish_target(), PeId(1));
        // A fish forwarded goes to the busiest but its origin; PE 2 is
        // across a link, so PE 3, in our cluster, is asked first, and
        // after one hop here PE 2.
        assert_eq!(a.forward(PeId(1), 0), Some(PeId(3)));
        assert_eq!(a.forward(PeId(1), 1), Some(PeId(2)));
        assert_eq!(a.forward(PeId(3), FISH_LIFE), None);
    }

    #[test]
    fn work_in_our_own_cluster_comes_first() {
        let mut a = policy(0, 4, 1.0);
        // PEs 1 and 2 are 1 ms away, PE 3 35 ms (another cluster).
        let mut far = policy(3, 4, 1.0);
        let mut near = policy(1, 4, 1.0);
        let mut other = policy(2, 4, 1.0);
        // A near PE with one spark beats a far one with ten.
        tell_over(&mut far, &mut a, 10, 1.0, 0.035);
        tell(&mut near, &mut a, 1, 1.0);
        tell(&mut other, &mut a, 0, 1.0);
        assert_eq!(a.fish_target(), PeId(1));
        // Nothing known of ours: one of ours, at random, first.
        tell(&mut near, &mut a, 0, 1.01);
        tell(&mut other, &mut a, 0, 1.01);
        for _ in 0..8 {
            assert!([PeId(1), PeId(2)].contains(&a.fish_target()));
        }
        // A FISH that has made as many hops as we have neighbours here
        // crosses; one from PE 1 never goes back to PE 1.
        assert_eq!(a.forward(PeId(1), 2), Some(PeId(3)));
        for _ in 0..8 {
            assert_eq!(a.forward(PeId(1), 0), Some(PeId(2)));
        }
        assert_eq!(a.forward(PeId(1), 1), Some(PeId(3)));
    }

    #[test]
    fn a_fast_fisher_of_another_cluster_gets_several_sparks() {
        let tuning = Tuning {
            super_schedule: true,
            ..Tuning::default()
        };
        let mut a = Gum2Policy::new(PeId(0), 4, 0.5, 7, &tuning);
        a.static_info(PeId(1), 0.5);
        a.static_info(PeId(2), 1.0);
        a.static_info(PeId(3), 0.25);
        // PE 1 is near (1 ms), PEs 2 and 3 far (35 ms).
        a.heard(PeId(1), 0.0, 0.001, &[]).unwrap();
        a.heard(PeId(2), 0.0, 0.035, &[]).unwrap();
        a.heard(PeId(3), 0.0, 0.035, &[]).unwrap();
        assert!(!a.remote(PeId(1)) && a.remote(PeId(2)));
        // Near: one spark, however fast.
        assert_eq!(a.extra_sparks(PeId(1), 10), 0);
        // Far and twice as fast: its share of the 12 for its speed, 1 of
        // the 2.25 of all four PEs: 5, the one it asked for and 4 more.
        assert_eq!(a.extra_sparks(PeId(2), 11), 4);
        assert_eq!(a.extra_sparks(PeId(2), 5), 1);
        assert_eq!(a.extra_sparks(PeId(2), 100), SUPER_MOST - 1);
        // Far but slower: one.
        assert_eq!(a.extra_sparks(PeId(3), 10), 0);
        assert_eq!(a.extra_sparks(PeId(2), 0), 0);
        // Only when asked for.
        let mut b = policy(0, 4, 0.5);
        b.static_info(PeId(2), 1.0);
        b.heard(PeId(1), 0.0, 0.001, &[]).unwrap();
        b.heard(PeId(2), 0.0, 0.035, &[]).unwrap();
        assert_eq!(b.extra_sparks(PeId(2), 11), 0);
    }

    #[test]
    fn the_last_sparks_are_kept_for_faster_pes() {
        use crate::machine::heap::{header, kind, Heap, HeapBudget};
        use std::collections::VecDeque;
        let mut heap = Heap::new(
            vec![header(kind::CON, 0, 0)],
            1 << 10,
            HeapBudget::of_words(2 << 12),
        );
        let mut pool: VecDeque<_> = (0..3)
            .map(|_| heap.alloc_node(header(kind::THUNK, 0, 0), &[]).unwrap())
            .collect();
        // PEs 0 and 1 fast, 2 and 3 at a third of their speed; we are PE 0.
        let mut a = policy(0, 4, 1.0);
        for (pe, speed) in [(1, 1.0), (2, 0.34), (3, 0.34)] {
            a.static_info(PeId(pe), speed);
        }
        let asked = |fisher: u16| Asked {
            fisher: Some(PeId(fisher)),
            idle: false,
            threads: 1,
            fisher_threads: 0,
            fisher_early: false,
        };
        // Three sparks, two PEs faster than a slow fisher (PE 1 and us):
        // one for it.
        assert!(a
            .spark_to_send(&Sparks::new(&pool, &heap), asked(2))
            .is_some());
        pool.pop_back();
        // Two: kept for PE 1 or for us; a fast fisher still gets one.
        assert_eq!(a.spark_to_send(&Sparks::new(&pool, &heap), asked(3)), None);
        assert!(a
            .spark_to_send(&Sparks::new(&pool, &heap), asked(1))
            .is_some());
        // On identical PEs nothing is kept back.
        let b = policy(0, 4, 1.0);
        assert!(b
            .spark_to_send(&Sparks::new(&pool, &heap), asked(2))
            .is_some());
    }

    #[test]
    fn the_watermark_scales_with_speed() {
        let mut fast = policy(0, 4, 1.0);
        let mut slow = policy(2, 4, 0.25);
        for p in [&mut fast, &mut slow] {
            p.static_info(PeId(0), 1.0);
            p.static_info(PeId(1), 1.0);
            p.static_info(PeId(2), 0.25);
            p.static_info(PeId(3), 0.25);
        }
        // Mean speed 0.625: 2 * 1.6 = 3.2 and 2 * 0.4 = 0.8.
        assert_eq!(fast.scaled_watermark(), 3);
        assert_eq!(slow.scaled_watermark(), 1);
        assert!(fast.fish_early(load(2)) && !slow.fish_early(load(2)));
        assert!(!fast.fish_early(Load {
            runnable: 1,
            sparks: 0
        }));
    }
}
