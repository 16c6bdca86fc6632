//! What gph code may ask about the machine it runs on (issue 27's
//! primitives, `Control.Parallel.Grid`): the time, and each PE's speed,
//! background load, latency and bandwidth as this PE knows them. The grid
//! skeletons (`Control.Parallel.Eden.DivisibleLoad`, `.Adaptive`) size
//! their chunks with these.
//!
//! * The clock is the engine's: virtual seconds on the sim engine, so that
//!   a skeleton that times a calibration run schedules the same way on
//!   every run (and the run stays reproducible); wall seconds since the
//!   run started on the other engines. The engine tells the PE its clock
//!   at the start of each slice; within a slice the sim's clock has not
//!   moved yet, so the PE adds what the slice's reductions so far will
//!   cost (`Engine::per_reduction`).
//! * Speeds come from the grid the run simulates or emulates, else from
//!   the load policy's table (Grid-GUM2's PEStatic, which a machine file's
//!   calibrated speed fills), else 1.0. Latencies come from the policy's
//!   measurements (ComMap) first, then the grid's, else 0.
//! * Background load and bandwidth are the grid's (what a monitor such as
//!   the papers' test-beds ran would report): 0 and unlimited without one.

use crate::host;
use crate::machine::pe::{Pe, Stop};
use crate::parallel::ids::PeId;

/// The engine's clock as of the start of the running slice.
#[derive(Clone, Copy, Debug)]
pub struct SliceClock {
    /// Seconds, by the engine's clock.
    at: f64,
    /// When the slice started, by the host's clock.
    wall: host::Instant,
    /// Seconds per reduction on a clock the engine moves itself.
    per_reduction: Option<f64>,
}

impl Default for SliceClock {
    fn default() -> Self {
        SliceClock {
            at: 0.0,
            wall: host::Instant::now(),
            per_reduction: None,
        }
    }
}

impl Pe<'_, '_> {
    /// The engine's clock at the start of a slice or message (the driver
    /// calls this before stepping the PE).
    pub fn set_clock(&mut self, at: f64, per_reduction: Option<f64>) {
        self.clock = SliceClock {
            at,
            wall: host::Instant::now(),
            per_reduction,
        };
    }

    /// The engine's clock now, seconds.
    pub(crate) fn clock_now(&self) -> f64 {
        let c = &self.clock;
        match c.per_reduction {
            Some(r) => {
                let done = self.slice_reductions + self.slice_pending + self.slice_work;
                c.at + done as f64 * r
            }
            None => c.at + c.wall.elapsed().as_secs_f64(),
        }
    }

    /// PE number `k` as gph code names it (1 .. noPe), or the error of the
    /// primitive `what`.
    fn pe_named(&self, what: &str, k: i64) -> Result<PeId, Stop> {
        if k < 1 {
            Err(Stop::Error(format!(
                "{what}: there is no PE {k}; PEs are numbered from 1"
            )))
        } else if k > self.npes as i64 {
            Err(Stop::Error(format!(
                "{what}: there is no PE {k}; the run has {} PEs",
                self.npes
            )))
        } else {
            Ok(PeId((k - 1) as u16))
        }
    }

    /// PE `k`'s relative speed (the fastest 1.0).
    pub(crate) fn pe_speed(&self, k: i64) -> Result<f64, Stop> {
        let pe = self.pe_named("peSpeed", k)?;
        // The grid first: it is what the run simulates or emulates, while
        // the policy's table says 1.0 for a PE not heard from yet.
        Ok(self
            .grid
            .map(|g| g.speed(pe))
            .or_else(|| self.policy.speed_of(pe))
            .unwrap_or(1.0))
    }

    /// PE `k`'s background load now (0: a dedicated machine).
    pub(crate) fn pe_load(&self, k: i64) -> Result<f64, Stop> {
        let pe = self.pe_named("peLoad", k)?;
        let now = self.clock_now();
        Ok(self.grid.map_or(0.0, |g| g.background(pe, now)))
    }

    /// The one-way latency from this PE to PE `k`, seconds.
    pub(crate) fn pe_latency(&self, k: i64) -> Result<f64, Stop> {
        let pe = self.pe_named("peLatency", k)?;
        let me = self.id();
        Ok(self
            .policy
            .latency_of(pe)
            .or_else(|| self.grid.map(|g| g.latency(me, pe)))
            .unwrap_or(0.0))
    }

    /// The bandwidth from this PE to PE `k`, bytes per second.
    pub(crate) fn pe_bandwidth(&self, k: i64) -> Result<f64, Stop> {
        let pe = self.pe_named("peBandwidth", k)?;
        let me = self.id();
        Ok(self.grid.map_or(f64::INFINITY, |g| g.bandwidth(me, pe)))
    }
}
