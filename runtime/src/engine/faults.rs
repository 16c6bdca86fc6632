//! Fault injection on the sim engine (`--faults SEED`, docs/reliability.md
//! "Faults"): a network and machine worse than the grid says, to find the
//! protocol bugs a well-behaved simulation never shows.
//!
//! What a seed perturbs, each in an amount the seed also draws (so that a
//! hundred seeds cover gentle and rough networks, and every kind alone):
//!
//! * **Latency**: each message takes a random extra time, exponentially
//!   distributed with a mean of some multiples of its link's latency.
//!   Messages between different pairs of PEs overtake each other; a pair's
//!   own messages keep their order (the sim engine's links are FIFO, as
//!   MPI's and TCP's are, and the protocols count on it).
//! * **Bursts**: now and then a link is congested for a while, and every
//!   message on it in that window waits much longer.
//! * **Stalls**: now and then a PE stops for a while after a slice (an
//!   operating system that took its core away), its mail piling up.
//! * **Duplicate FISH**: a FISH sometimes arrives twice. A PE that sends a
//!   new fish when it thinks one lost (GUM's fish time-out) makes the same
//!   situation, so the protocol must live with it: two fish come home, two
//!   SCHEDULEs arrive. Messages that carry graph or weight (SCHEDULE,
//!   RESUME, ACK, FREE) are never duplicated: MPI and TCP deliver exactly
//!   once, and handling those twice is not what any transport asks of the
//!   protocol. They are delayed, bursts and all.
//!
//! The faults draw from a generator of their own, seeded by the seed, so a
//! run is as reproducible with faults as without, and `--seed` (the load
//! policy's choices) stays independent of them.

use crate::engine::grid::Grid;
use crate::parallel::ids::PeId;
use crate::parallel::protocol::envelope::Envelope;
use crate::parallel::protocol::MsgKind;
use std::collections::HashMap;

/// SplitMix64 (Steele, Lea and Flood): a small generator whose every seed,
/// 0 included, gives a good stream.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    /// Exponentially distributed with mean `mean`.
    fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit()).ln()
    }

    /// One of `choices`.
    fn pick(&mut self, choices: &[f64]) -> f64 {
        choices[(self.next() % choices.len() as u64) as usize]
    }
}

/// How much of each fault a seed injects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    /// Mean extra delay of a message, in multiples of its link's latency.
    pub jitter: f64,
    /// Chance that a message starts a burst on its link.
    pub burst_chance: f64,
    /// Chance that a PE stalls after a slice.
    pub stall_chance: f64,
    /// Chance that a FISH arrives twice.
    pub duplicate_fish: f64,
}

impl Profile {
    /// The profile of `seed`: each fault off, mild or heavy, drawn apart.
    fn draw(rng: &mut SplitMix) -> Profile {
        Profile {
            jitter: rng.pick(&[0.0, 0.5, 2.0, 10.0, 50.0]),
            burst_chance: rng.pick(&[0.0, 0.002, 0.02]),
            stall_chance: rng.pick(&[0.0, 0.002, 0.02]),
            duplicate_fish: rng.pick(&[0.0, 0.1, 0.3]),
        }
    }
}

/// The least latency faults are measured in: a link of latency 0 (a grid
/// may say so) is still perturbed, by multiples of 0.1 ms.
const LATENCY_FLOOR: f64 = 1e-4;

/// How many of each fault a run got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultCounts {
    pub delayed: u64,
    pub bursts: u64,
    pub stalls: u64,
    pub duplicated: u64,
}

/// The faults of one simulated run.
pub struct Faults {
    rng: SplitMix,
    pub profile: Profile,
    /// A congested link: until when, and the extra delay of its messages.
    bursts: HashMap<(u16, u16), (f64, f64)>,
    pub counts: FaultCounts,
}

impl Faults {
    pub fn new(seed: u64) -> Faults {
        let mut rng = SplitMix(seed ^ 0x6661_756C_7473); // "faults"
        let profile = Profile::draw(&mut rng);
        Faults {
            rng,
            profile,
            bursts: HashMap::new(),
            counts: FaultCounts::default(),
        }
    }

    /// The extra time a message from `from` to `to`, due to arrive at
    /// `t`, takes (a burst congests the link from `t` on).
    pub fn delay(&mut self, grid: &Grid, from: PeId, to: PeId, t: f64) -> f64 {
        let base = grid.latency(from, to).max(LATENCY_FLOOR);
        let mut extra = 0.0;
        if self.profile.jitter > 0.0 {
            extra += self.rng.exponential(self.profile.jitter * base);
            self.counts.delayed += 1;
        }
        let link = (from.0, to.0);
        if self.rng.chance(self.profile.burst_chance) {
            // Congested for 10 to 1,000 latencies, each message on it
            // waiting 5 to 200 more.
            let until = t + base * (10.0 + 990.0 * self.rng.unit());
            let wait = base * (5.0 + 195.0 * self.rng.unit());
            self.bursts.insert(link, (until, wait));
            self.counts.bursts += 1;
        }
        if let Some(&(until, wait)) = self.bursts.get(&link) {
            if t < until {
                extra += wait;
            } else {
                self.bursts.remove(&link);
            }
        }
        extra
    }

    /// How long a PE stops after a slice, if it does: up to 20 ms.
    pub fn stall(&mut self) -> Option<f64> {
        if !self.rng.chance(self.profile.stall_chance) {
            return None;
        }
        self.counts.stalls += 1;
        Some(0.02 * self.rng.unit())
    }

    /// A second copy of `env` to deliver too, if the network duplicates it.
    pub fn duplicate(&mut self, env: &Envelope) -> Option<Envelope> {
        if env.kind != MsgKind::Fish || !self.rng.chance(self.profile.duplicate_fish) {
            return None;
        }
        self.counts.duplicated += 1;
        let mut copy = env.clone();
        // An observer matches a send with one receipt.
        copy.id = 0;
        Some(copy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_faults() {
        let grid = Grid::uniform(4).unwrap();
        let draw = |seed| {
            let mut f = Faults::new(seed);
            let d: Vec<f64> = (0..50)
                .map(|i| f.delay(&grid, PeId(0), PeId(1), i as f64 * 1e-3))
                .collect();
            (f.profile, d)
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7).1, draw(8).1);
    }

    #[test]
    fn a_hundred_seeds_try_every_fault_off_and_on() {
        let profiles: Vec<Profile> = (0..100).map(|s| Faults::new(s).profile).collect();
        for (name, get) in [
            ("jitter", (|p: &Profile| p.jitter) as fn(&Profile) -> f64),
            ("bursts", |p| p.burst_chance),
            ("stalls", |p| p.stall_chance),
            ("duplicates", |p| p.duplicate_fish),
        ] {
            assert!(profiles.iter().any(|p| get(p) == 0.0), "{name} never off");
            assert!(profiles.iter().any(|p| get(p) > 0.0), "{name} never on");
        }
    }

    #[test]
    fn delays_are_never_negative() {
        let grid = Grid::uniform(2).unwrap();
        for seed in 0..20 {
            let mut f = Faults::new(seed);
            for i in 0..1000 {
                assert!(f.delay(&grid, PeId(0), PeId(1), i as f64 * 1e-4) >= 0.0);
            }
        }
    }
}
