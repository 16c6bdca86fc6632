//! The shape of the simulated machine for the `sim` engine: which PEs
//! there are, how fast each one computes relative to the others, and how
//! long a message takes between two of them.
//!
//! `--pes N` alone means [`Grid::uniform`]: N identical PEs on a LAN
//! (0.2 ms, 100 Mbit/s). A grid file (TOML, see `programs/grids/`) describes
//! clusters of PEs and the links between clusters:
//!
//! ```toml
//! # 4 fast + 4 slow PEs on one LAN
//! name = "hetero8"          # optional; defaults to the file's name
//!
//! [[cluster]]
//! name = "fast"
//! pes = 4                   # how many PEs (at least 1)
//! speed = 1395              # relative CPU speed, any unit (default 1)
//! latency_ms = 0.2          # between two PEs of this cluster (default 0.2)
//! bandwidth_mbit = 100      # between two PEs of this cluster (default 100)
//!
//! [[cluster]]
//! name = "slow"
//! pes = 4
//! speed = 534
//! latency_ms = 0.35
//!
//! [[link]]
//! between = ["fast", "slow"]
//! latency_ms = 0.35
//! bandwidth_mbit = 100      # optional
//! ```
//!
//! A cluster or a link may also say what sending costs the sender, per
//! packet and per 32-bit word of it (`message_cost_us`, `word_cost_us`,
//! microseconds of the fastest PE; default 0: the receiver's cost of
//! handling a message, the sim engine's own, is then all there is). The
//! Eden chunking paper measured 63 and 0.1 (`beowulf8.toml`).
//!
//! Only the ratios of speeds matter: they are scaled so that the fastest PE
//! has speed 1.0, or, when the grid says `reference_speed = R` (top level),
//! so that a PE of speed R has 1.0 (R = 1816 puts a grid of 933 MHz
//! machines at 0.51: grids of different machines then compare in virtual
//! time). Between two clusters without a `[[link]]`, the latency and
//! the sending costs are the larger of the two clusters' and the bandwidth
//! the smaller (the slower network decides); a link without
//! `bandwidth_mbit` or costs gets those too. PEs are numbered in cluster
//! order from 0, so PE 0 (the main PE) is the first PE of the first cluster.
//! A grid has 1 to 64 PEs. Unknown keys are errors, so that a misspelt key
//! is reported rather than silently replaced by its default.
//!
//! A cluster's machines may be shared with other users (the "non-dedicated"
//! machines of the grid-skeleton papers, `../shared/papers/003_*`, `004_*`):
//! `load = [0, 1.5, 0.5]` with `load_step_ms = 200` gives each of its PEs a
//! background load that takes those values in turn, a step each, over and
//! over; `load_trace = [[0, 0], [2.5, 1], [4, 0.5]]` gives (seconds, load)
//! pairs instead, each load holding until the next. `load_shift_ms = 50`
//! starts PE k of the cluster k × 50 ms into its pattern, so that
//! its machines are not loaded in step. A PE under load l runs at
//! 1 / (1 + l) of its speed (one competing process per unit of load, as a
//! Unix load average counts them): the sim engine charges its work so,
//! the threads engine paces it so (`--grid` on threads), and gph code reads
//! l with `peLoad` (Control.Parallel.Grid).

use crate::parallel::ids::PeId;
use serde::Deserialize;
use std::path::Path;

/// The most PEs the sim engine simulates.
const MAX_PES: usize = 64;
/// A LAN of the papers' era: what `--pes N` and an unspecified cluster get.
const DEFAULT_LATENCY_MS: f64 = 0.2;
const DEFAULT_BANDWIDTH_MBIT: f64 = 100.0;

/// The simulated machine, checked and ready for the engine's look-ups.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub name: String,
    /// One entry per PE, in cluster order (PEs of the first cluster first).
    pub pes: Vec<PeSpec>,
    clusters: Vec<Cluster>,
    /// `net[a][b]`: the network between a PE of cluster `a` and one of
    /// cluster `b` (the diagonal is inside a cluster); symmetric.
    net: Vec<Vec<Net>>,
    /// What the sim charges for a PE's work.
    pub costs: Costs,
}

/// What the sim engine charges for the work of a PE of speed 1.0: the
/// `[costs]` of a machine file, which `gph calibrate` measures on the
/// machine it runs on; a grid without one gets the sim's own constants,
/// about a laptop core of 2024 (docs/parallel.md, "A simulator calibrated
/// to its machine").
#[derive(Clone, Debug, PartialEq)]
pub struct Costs {
    /// Reductions per second (the unit of a slice's work).
    pub reductions_per_second: f64,
    /// Seconds to handle a message (a packet of several counts as one),
    /// and per 64-bit word of it: decoding and unpacking.
    pub message: f64,
    pub message_word: f64,
    /// Seconds to make a thread of a spark.
    pub thread: f64,
    /// Seconds per word the collector copies (0: a collection costs
    /// nothing apart, its time being in the reduction rate).
    pub gc_word: f64,
    /// Seconds from a message's arrival at an idle PE to the PE at work
    /// on it (an OS thread woken from its wait).
    pub wake: f64,
    /// `contention[k - 1]`: how fast a PE runs while k PEs are busy,
    /// relative to one alone (shared memory bandwidth and caches, the
    /// hyperthreads of one core); beyond the list, its last value. Empty:
    /// 1.0 whatever the load.
    pub contention: Vec<f64>,
}

impl Default for Costs {
    fn default() -> Self {
        Costs {
            reductions_per_second: 20e6,
            message: 2e-6,
            message_word: 5e-9,
            thread: 5e-6,
            gc_word: 0.0,
            wake: 0.0,
            contention: Vec::new(),
        }
    }
}

impl Costs {
    /// The speed factor of a PE while `busy` PEs (itself included) work.
    pub fn contention(&self, busy: usize) -> f64 {
        match self.contention.len() {
            0 => 1.0,
            n => self.contention[busy.clamp(1, n) - 1],
        }
    }
}

/// A machine's `[costs]` as a file writes them: microseconds and
/// nanoseconds, each optional (the default's value).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileCosts {
    reductions_per_second: Option<f64>,
    message_us: Option<f64>,
    message_word_ns: Option<f64>,
    thread_us: Option<f64>,
    gc_word_ns: Option<f64>,
    wake_us: Option<f64>,
    contention: Option<Vec<f64>>,
}

impl FileCosts {
    fn costs(&self) -> Result<Costs, String> {
        let d = Costs::default();
        let mut c = d.clone();
        for (key, v, scale, slot) in [
            (
                "reductions_per_second",
                self.reductions_per_second,
                1.0,
                &mut c.reductions_per_second,
            ),
            ("message_us", self.message_us, 1e-6, &mut c.message),
            (
                "message_word_ns",
                self.message_word_ns,
                1e-9,
                &mut c.message_word,
            ),
            ("thread_us", self.thread_us, 1e-6, &mut c.thread),
            ("gc_word_ns", self.gc_word_ns, 1e-9, &mut c.gc_word),
            ("wake_us", self.wake_us, 1e-6, &mut c.wake),
        ] {
            if let Some(v) = v {
                if !(v >= 0.0 && v.is_finite()) || (key == "reductions_per_second" && v == 0.0) {
                    return Err(format!(
                        "[costs] has {key} {v}; it must be a positive number"
                    ));
                }
                *slot = v * scale;
            }
        }
        if let Some(k) = &self.contention {
            if let Some(bad) = k.iter().find(|&&f| !(f > 0.0 && f <= 1.0)) {
                return Err(format!(
                    "[costs] has a contention factor {bad}; each is above 0 and at most 1"
                ));
            }
            c.contention = k.clone();
        }
        Ok(c)
    }
}

/// What the engine needs to know about one PE.
#[derive(Clone, Debug, PartialEq)]
pub struct PeSpec {
    /// Index of the PE's cluster (in the order of the grid file).
    pub cluster: usize,
    /// Relative speed, the fastest PE being 1.0: virtual time per unit of
    /// work is divided by it.
    pub speed: f64,
    /// Seconds into its cluster's pattern at which this PE's background
    /// load starts (`load_shift_ms` times its place in the cluster).
    pub load_lag: f64,
}

/// A cluster's background load over time (module docs): its PEs get
/// 1 / (1 + load) of their processors.
#[derive(Clone, Debug, PartialEq)]
pub enum Background {
    /// `loads[k]` from k steps to k + 1 steps, over and over.
    Periodic { loads: Vec<f64>, step: f64 },
    /// (seconds, load) in increasing time; each load holds until the next
    /// (0 before the first).
    Trace(Vec<(f64, f64)>),
}

impl Background {
    /// The load at time `t` (seconds; before 0 counts as 0).
    pub fn at(&self, t: f64) -> f64 {
        match self {
            Background::Periodic { loads, step } => {
                let k = (t.max(0.0) / step).floor() as usize;
                loads[k % loads.len()]
            }
            Background::Trace(points) => points
                .iter()
                .take_while(|(at, _)| *at <= t)
                .last()
                .map_or(0.0, |p| p.1),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Cluster {
    name: String,
    pes: usize,
    /// As written in the file until `build` scales it like the PEs'.
    speed: f64,
    background: Option<Background>,
    /// Seconds between the patterns of two successive PEs.
    load_shift: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Net {
    /// Seconds.
    latency: f64,
    /// Bytes per second.
    bandwidth: f64,
    /// Seconds the sender spends per packet, and per 32-bit word of it.
    message_cost: f64,
    word_cost: f64,
}

/// A network as a file gives it: milliseconds, Mbit/s, microseconds.
struct FileNet {
    latency_ms: f64,
    bandwidth_mbit: f64,
    message_cost_us: f64,
    word_cost_us: f64,
}

impl FileNet {
    /// Between two networks: the slower decides.
    fn slower(&self, o: &FileNet) -> FileNet {
        FileNet {
            latency_ms: self.latency_ms.max(o.latency_ms),
            bandwidth_mbit: self.bandwidth_mbit.min(o.bandwidth_mbit),
            message_cost_us: self.message_cost_us.max(o.message_cost_us),
            word_cost_us: self.word_cost_us.max(o.word_cost_us),
        }
    }

    fn net(&self) -> Net {
        Net {
            latency: self.latency_ms / 1e3,
            bandwidth: self.bandwidth_mbit * 1e6 / 8.0,
            message_cost: self.message_cost_us / 1e6,
            word_cost: self.word_cost_us / 1e6,
        }
    }

    /// Checks the costs (latency and bandwidth have their own checks).
    fn check_costs(&self, what: &str) -> Result<(), String> {
        for (key, us) in [
            ("message_cost_us", self.message_cost_us),
            ("word_cost_us", self.word_cost_us),
        ] {
            if !(us >= 0.0 && us.is_finite()) {
                return Err(format!(
                    "{what} has {key} {us}; costs must be 0 or more microseconds"
                ));
            }
        }
        Ok(())
    }
}

/// A grid file as written, before checking.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileGrid {
    name: Option<String>,
    reference_speed: Option<f64>,
    costs: Option<FileCosts>,
    #[serde(default)]
    cluster: Vec<FileCluster>,
    #[serde(default)]
    link: Vec<FileLink>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileCluster {
    name: String,
    /// Signed so that `pes = -1` gets our message, not serde's.
    pes: i64,
    speed: Option<f64>,
    latency_ms: Option<f64>,
    bandwidth_mbit: Option<f64>,
    message_cost_us: Option<f64>,
    word_cost_us: Option<f64>,
    load: Option<Vec<f64>>,
    load_step_ms: Option<f64>,
    load_trace: Option<Vec<(f64, f64)>>,
    load_shift_ms: Option<f64>,
}

impl FileCluster {
    /// The background load the cluster describes, checked.
    fn background(&self) -> Result<Option<Background>, String> {
        let name = &self.name;
        let check = |l: f64| {
            if l >= 0.0 && l.is_finite() {
                Ok(())
            } else {
                Err(format!(
                    "cluster `{name}` has a background load of {l}; loads are 0 or more"
                ))
            }
        };
        match (&self.load, self.load_step_ms, &self.load_trace) {
            (None, None, None) => Ok(None),
            (Some(_), _, Some(_)) => Err(format!(
                "cluster `{name}` has both load and load_trace; give one"
            )),
            (Some(loads), step, None) => {
                if loads.is_empty() {
                    return Err(format!(
                        "cluster `{name}` has load = []; give at least one value"
                    ));
                }
                loads.iter().try_for_each(|&l| check(l))?;
                let step = step.unwrap_or(1000.0);
                if !(step > 0.0 && step.is_finite()) {
                    return Err(format!(
                        "cluster `{name}` has load_step_ms {step}; steps must be positive"
                    ));
                }
                Ok(Some(Background::Periodic {
                    loads: loads.clone(),
                    step: step / 1e3,
                }))
            }
            (None, Some(_), None) => Err(format!("cluster `{name}` has load_step_ms but no load")),
            (None, step, Some(trace)) => {
                if step.is_some() {
                    return Err(format!(
                        "cluster `{name}` has load_step_ms with load_trace; a trace gives its own times"
                    ));
                }
                let mut last = f64::NEG_INFINITY;
                for &(t, l) in trace {
                    if !(t.is_finite() && t > last) {
                        return Err(format!(
                            "cluster `{name}` has load_trace times out of order at {t}; give increasing seconds"
                        ));
                    }
                    check(l)?;
                    last = t;
                }
                Ok(Some(Background::Trace(trace.clone())))
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileLink {
    between: Vec<String>,
    latency_ms: f64,
    bandwidth_mbit: Option<f64>,
    message_cost_us: Option<f64>,
    word_cost_us: Option<f64>,
}

impl Grid {
    /// N identical PEs on a LAN: latency 0.2 ms, 100 Mbit/s.
    pub fn uniform(n: usize) -> Result<Grid, String> {
        if n == 0 || n > MAX_PES {
            return Err(format!(
                "cannot simulate {n} PEs; the sim engine supports 1 to {MAX_PES}"
            ));
        }
        let cluster = Cluster {
            name: "lan".into(),
            pes: n,
            speed: 1.0,
            background: None,
            load_shift: 0.0,
        };
        let net = FileNet {
            latency_ms: DEFAULT_LATENCY_MS,
            bandwidth_mbit: DEFAULT_BANDWIDTH_MBIT,
            message_cost_us: 0.0,
            word_cost_us: 0.0,
        }
        .net();
        Ok(Grid::build(
            "uniform".into(),
            vec![cluster],
            vec![vec![net]],
            None,
            Costs::default(),
        ))
    }

    /// Parses a grid file's text (`path` is only for messages).
    pub fn parse(text: &str, path: &str) -> Result<Grid, String> {
        let file: FileGrid =
            toml::from_str(text).map_err(|e| format!("{path}: {}", e.to_string().trim_end()))?;
        let at = |msg: String| format!("{path}: {msg}");
        let err = |msg: String| Err(at(msg));

        if file.cluster.is_empty() {
            return err("no [[cluster]]; a grid has at least one cluster".into());
        }
        let mut clusters = Vec::new();
        let mut inside = Vec::new();
        let mut total: u64 = 0;
        for c in &file.cluster {
            let name = &c.name;
            if name.trim().is_empty() {
                return err("a cluster has an empty name".into());
            }
            if clusters.iter().any(|k: &Cluster| &k.name == name) {
                return err(format!(
                    "two clusters are named `{name}`; cluster names must be unique"
                ));
            }
            if c.pes < 1 {
                return err(format!(
                    "cluster `{name}` has {} PEs; a cluster has at least 1",
                    c.pes
                ));
            }
            total = total.saturating_add(c.pes as u64);
            let speed = c.speed.unwrap_or(1.0);
            if !(speed > 0.0 && speed.is_finite()) {
                return err(format!(
                    "cluster `{name}` has speed {speed}; speeds must be positive"
                ));
            }
            let what = format!("cluster `{name}`");
            let net = FileNet {
                latency_ms: c.latency_ms.unwrap_or(DEFAULT_LATENCY_MS),
                bandwidth_mbit: c.bandwidth_mbit.unwrap_or(DEFAULT_BANDWIDTH_MBIT),
                message_cost_us: c.message_cost_us.unwrap_or(0.0),
                word_cost_us: c.word_cost_us.unwrap_or(0.0),
            };
            check_latency(net.latency_ms, &what).map_err(at)?;
            check_bandwidth(net.bandwidth_mbit, &what).map_err(at)?;
            net.check_costs(&what).map_err(at)?;
            let background = c.background().map_err(at)?;
            let shift = c.load_shift_ms.unwrap_or(0.0);
            if !(shift >= 0.0 && shift.is_finite()) {
                return err(format!(
                    "cluster `{name}` has load_shift_ms {shift}; shifts are 0 or more"
                ));
            }
            if background.is_none() && c.load_shift_ms.is_some() {
                return err(format!("cluster `{name}` has load_shift_ms but no load"));
            }
            clusters.push(Cluster {
                name: name.clone(),
                pes: c.pes as usize,
                speed,
                background,
                load_shift: shift / 1e3,
            });
            inside.push(net);
        }
        if total > MAX_PES as u64 {
            return err(format!(
                "the grid has {total} PEs; the sim engine supports at most {MAX_PES}"
            ));
        }

        // Defaults first (the slower network of the two), then the links.
        let k = clusters.len();
        let mut net: Vec<Vec<Net>> = (0..k)
            .map(|a| (0..k).map(|b| inside[a].slower(&inside[b]).net()).collect())
            .collect();
        let mut linked: Vec<(usize, usize)> = Vec::new();
        for l in &file.link {
            let [a, b] = l.between.as_slice() else {
                return err(format!(
                    "a [[link]] has between = {:?}; it names exactly two clusters",
                    l.between
                ));
            };
            let index = |n: &str| {
                clusters.iter().position(|c| c.name == n).ok_or_else(|| {
                    format!("{path}: a [[link]] names cluster `{n}`, which the grid does not have")
                })
            };
            let (ia, ib) = (index(a)?, index(b)?);
            if ia == ib {
                return err(format!(
                    "a [[link]] joins cluster `{a}` to itself; set the cluster's own latency_ms instead"
                ));
            }
            let key = (ia.min(ib), ia.max(ib));
            if linked.contains(&key) {
                return err(format!(
                    "two [[link]]s between `{a}` and `{b}`; give each pair of clusters at most one"
                ));
            }
            linked.push(key);
            let what = format!("the link between `{a}` and `{b}`");
            let slower = inside[ia].slower(&inside[ib]);
            let link = FileNet {
                latency_ms: l.latency_ms,
                bandwidth_mbit: l.bandwidth_mbit.unwrap_or(slower.bandwidth_mbit),
                message_cost_us: l.message_cost_us.unwrap_or(slower.message_cost_us),
                word_cost_us: l.word_cost_us.unwrap_or(slower.word_cost_us),
            };
            check_latency(link.latency_ms, &what).map_err(at)?;
            check_bandwidth(link.bandwidth_mbit, &what).map_err(at)?;
            link.check_costs(&what).map_err(at)?;
            net[ia][ib] = link.net();
            net[ib][ia] = link.net();
        }

        let name = match file.name {
            Some(n) if !n.trim().is_empty() => n,
            Some(_) => return err("the grid's name is empty".into()),
            None => Path::new(path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "grid".into()),
        };
        if let Some(r) = file.reference_speed {
            if !(r > 0.0 && r.is_finite()) {
                return err(format!("reference_speed is {r}; speeds must be positive"));
            }
        }
        let costs = match &file.costs {
            Some(c) => c.costs().map_err(at)?,
            None => Costs::default(),
        };
        Ok(Grid::build(
            name,
            clusters,
            net,
            file.reference_speed,
            costs,
        ))
    }

    /// This grid with `n` PEs: a machine file (one cluster) run on `n` of
    /// its cores, or more; a grid of several clusters has its own count.
    pub fn with_pes(&self, n: usize) -> Result<Grid, String> {
        if n == self.len() {
            return Ok(self.clone());
        }
        if self.clusters.len() != 1 {
            return Err(format!(
                "the grid {} has {} PEs in {} clusters; only a grid of one cluster runs on another number of PEs",
                self.name,
                self.len(),
                self.clusters.len()
            ));
        }
        if n == 0 || n > MAX_PES {
            return Err(format!(
                "cannot simulate {n} PEs; the sim engine supports 1 to {MAX_PES}"
            ));
        }
        let mut g = self.clone();
        g.clusters[0].pes = n;
        g.pes = Grid::lay_out(&g.clusters);
        Ok(g)
    }

    /// Reads and parses a grid file.
    pub fn load(path: &Path) -> Result<Grid, String> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{shown}: cannot read the grid file: {e}"))?;
        Grid::parse(&text, &shown)
    }

    /// The one place that scales speeds and lays out the PEs, for both
    /// `uniform` and grid files.
    fn build(
        name: String,
        mut clusters: Vec<Cluster>,
        net: Vec<Vec<Net>>,
        reference: Option<f64>,
        costs: Costs,
    ) -> Grid {
        let fastest = clusters.iter().map(|c| c.speed).fold(0.0, f64::max);
        let unit = reference.unwrap_or(fastest);
        for c in &mut clusters {
            c.speed /= unit;
        }
        let pes = Grid::lay_out(&clusters);
        Grid {
            name,
            pes,
            clusters,
            net,
            costs,
        }
    }

    /// The PEs of the clusters, in order.
    fn lay_out(clusters: &[Cluster]) -> Vec<PeSpec> {
        clusters
            .iter()
            .enumerate()
            .flat_map(|(i, c)| {
                (0..c.pes).map(move |k| PeSpec {
                    cluster: i,
                    speed: c.speed,
                    load_lag: k as f64 * c.load_shift,
                })
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.pes.len()
    }

    /// The background load of a PE at time `t` (seconds; 0 on a dedicated
    /// machine).
    pub fn background(&self, pe: PeId, t: f64) -> f64 {
        let spec = &self.pes[pe.0 as usize];
        match &self.clusters[spec.cluster].background {
            Some(b) => b.at(t + spec.load_lag),
            None => 0.0,
        }
    }

    /// A PE's speed at time `t`: its own over 1 + its background load.
    pub fn speed_at(&self, pe: PeId, t: f64) -> f64 {
        self.speed(pe) / (1.0 + self.background(pe, t))
    }

    /// Whether some PE has a background load.
    pub fn has_background(&self) -> bool {
        self.clusters.iter().any(|c| c.background.is_some())
    }

    /// Always false for a grid that was built (a grid has at least one PE);
    /// here because `len` is.
    pub fn is_empty(&self) -> bool {
        self.pes.is_empty()
    }

    /// Relative speed of a PE, the fastest being 1.0.
    pub fn speed(&self, pe: PeId) -> f64 {
        self.pes[pe.0 as usize].speed
    }

    /// Whether two PEs are in the same cluster.
    pub fn same_cluster(&self, a: PeId, b: PeId) -> bool {
        self.pes[a.0 as usize].cluster == self.pes[b.0 as usize].cluster
    }

    fn net(&self, from: PeId, to: PeId) -> Net {
        let a = self.pes[from.0 as usize].cluster;
        let b = self.pes[to.0 as usize].cluster;
        self.net[a][b]
    }

    /// One-way latency between two PEs, in seconds (0 for pe to itself).
    pub fn latency(&self, from: PeId, to: PeId) -> f64 {
        if from == to {
            0.0
        } else {
            self.net(from, to).latency
        }
    }

    /// Bandwidth between two PEs, in bytes per second (infinite from a PE to
    /// itself, so that a local message costs nothing).
    pub fn bandwidth(&self, from: PeId, to: PeId) -> f64 {
        if from == to {
            f64::INFINITY
        } else {
            self.net(from, to).bandwidth
        }
    }

    /// Time for a message of `bytes` bytes from `from` to `to` to arrive, in
    /// seconds: latency + bytes / bandwidth.
    pub fn transit(&self, from: PeId, to: PeId, bytes: usize) -> f64 {
        self.latency(from, to) + self.wire_time(from, to, bytes)
    }

    /// How long `bytes` bytes take on the wire from `from` to `to` (0 for
    /// a PE to itself): the size over the bandwidth.
    pub fn wire_time(&self, from: PeId, to: PeId, bytes: usize) -> f64 {
        if from == to {
            0.0
        } else {
            bytes as f64 / self.net(from, to).bandwidth
        }
    }

    /// What sending a packet of `bytes` bytes from `from` to `to` costs
    /// the sender, in seconds of the fastest PE: the grid's cost per packet
    /// plus its cost per 32-bit word (none to itself, nor by default).
    pub fn send_cost(&self, from: PeId, to: PeId, bytes: usize) -> f64 {
        if from == to {
            0.0
        } else {
            let n = self.net(from, to);
            n.message_cost + n.word_cost * bytes.div_ceil(4) as f64
        }
    }

    /// The cluster name of a PE (for statistics).
    pub fn cluster_name(&self, pe: PeId) -> &str {
        &self.clusters[self.pes[pe.0 as usize].cluster].name
    }

    /// A one-line description, e.g. "hetero8: 8 PEs in 2 clusters (fast 4 x
    /// 1.00, slow 4 x 0.38)", for `--stats` and the REPL.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .clusters
            .iter()
            .map(|c| format!("{} {} x {:.2}", c.name, c.pes, c.speed))
            .collect();
        let plural = |n: usize, what: &str| {
            if n == 1 {
                format!("{n} {what}")
            } else {
                format!("{n} {what}s")
            }
        };
        format!(
            "{}: {} in {} ({})",
            self.name,
            plural(self.len(), "PE"),
            plural(self.clusters.len(), "cluster"),
            parts.join(", ")
        )
    }
}

fn check_latency(ms: f64, what: &str) -> Result<(), String> {
    if ms >= 0.0 && ms.is_finite() {
        Ok(())
    } else {
        Err(format!(
            "{what} has latency_ms {ms}; latencies must be 0 or more milliseconds"
        ))
    }
}

fn check_bandwidth(mbit: f64, what: &str) -> Result<(), String> {
    if mbit > 0.0 && mbit.is_finite() {
        Ok(())
    } else {
        Err(format!(
            "{what} has bandwidth_mbit {mbit}; bandwidths must be positive"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HETERO: &str = r#"
name = "hetero8"
[[cluster]]
name = "fast"
pes = 4
speed = 1395
latency_ms = 0.2
[[cluster]]
name = "slow"
pes = 4
speed = 534
latency_ms = 0.35
[[link]]
between = ["fast", "slow"]
latency_ms = 0.35
"#;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    fn error(text: &str) -> String {
        match Grid::parse(text, "grid.toml") {
            Ok(g) => panic!("accepted: {}", g.describe()),
            Err(e) => e,
        }
    }

    fn grids_dir() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../programs/grids")
    }

    #[test]
    fn grid_files_in_programs_parse() {
        let mut files: Vec<_> = std::fs::read_dir(grids_dir())
            .expect("programs/grids")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        assert!(files.len() >= 4, "expected the example grids: {files:?}");
        for f in &files {
            let g = Grid::load(f).unwrap_or_else(|e| panic!("{e}"));
            assert!(!g.is_empty() && g.len() <= MAX_PES);
            let stem = f.file_stem().unwrap().to_str().unwrap();
            assert_eq!(g.name, stem, "a grid's name is its file's name");
        }
    }

    #[test]
    fn grid_example_files_have_the_papers_shapes() {
        let load = |n: &str| Grid::load(&grids_dir().join(n)).unwrap();
        let g = load("homogeneous8.toml");
        assert_eq!(g.len(), 8);
        assert!(g.pes.iter().all(|p| p.speed == 1.0));
        assert!(close(g.latency(PeId(0), PeId(7)), 0.2e-3));

        let g = load("hetero8.toml");
        assert_eq!(
            g.describe(),
            "hetero8: 8 PEs in 2 clusters (fast 4 x 1.00, slow 4 x 0.38)"
        );
        assert!(close(g.speed(PeId(7)), 534.0 / 1395.0));
        assert!(close(g.latency(PeId(0), PeId(1)), 0.2e-3));
        assert!(close(g.latency(PeId(4), PeId(5)), 0.35e-3));
        assert!(close(g.latency(PeId(0), PeId(4)), 0.35e-3));

        let g = load("two-clusters.toml");
        assert_eq!(g.len(), 16);
        assert!(close(g.latency(PeId(0), PeId(7)), 0.2e-3));
        assert!(close(g.latency(PeId(0), PeId(8)), 35e-3));
        assert!(close(g.bandwidth(PeId(8), PeId(0)), 10e6 / 8.0));

        let g = load("lan16.toml");
        assert_eq!(g.len(), 16);
        assert_eq!(g.clusters.len(), 1);
        assert_eq!(g.send_cost(PeId(0), PeId(1), 1000), 0.0);

        // The Eden chunking paper's cluster: 63.34 µs per packet and 0.1 µs
        // per 32-bit word to send.
        let g = load("beowulf8.toml");
        assert_eq!(g.len(), 8);
        assert!(close(g.bandwidth(PeId(0), PeId(7)), 100e6 / 8.0));
        assert!(close(g.send_cost(PeId(0), PeId(7), 0), 63.34e-6));
        assert!(close(
            g.send_cost(PeId(3), PeId(2), 4000),
            63.34e-6 + 100e-6
        ));
        assert!(close(
            g.send_cost(PeId(3), PeId(2), 4001),
            63.34e-6 + 100.1e-6
        ));
        assert_eq!(g.send_cost(PeId(5), PeId(5), 4000), 0.0);
    }

    #[test]
    fn grid_sending_costs_as_latencies() {
        // Between clusters without a link the larger costs; a link sets its
        // own or takes those.
        let text = "[[cluster]]\nname = \"a\"\npes = 2\nmessage_cost_us = 10\n\
                    [[cluster]]\nname = \"b\"\npes = 2\nword_cost_us = 0.5\n";
        let g = Grid::parse(text, "g.toml").unwrap();
        assert!(close(g.send_cost(PeId(0), PeId(1), 8), 10e-6));
        assert!(close(g.send_cost(PeId(2), PeId(3), 8), 1e-6));
        assert!(close(g.send_cost(PeId(0), PeId(2), 8), 11e-6));
        let link = "[[link]]\nbetween = [\"a\", \"b\"]\nlatency_ms = 1\nmessage_cost_us = 30\n";
        let g = Grid::parse(&format!("{text}{link}"), "g.toml").unwrap();
        assert!(close(g.send_cost(PeId(3), PeId(0), 8), 31e-6));
    }

    #[test]
    fn grid_uniform() {
        let g = Grid::uniform(8).unwrap();
        assert_eq!(g.len(), 8);
        assert!(!g.is_empty());
        assert!(g.pes.iter().all(|p| p.cluster == 0 && p.speed == 1.0));
        assert!(close(g.latency(PeId(0), PeId(7)), 0.2e-3));
        assert!(close(g.bandwidth(PeId(3), PeId(1)), 100e6 / 8.0));
        assert_eq!(g.cluster_name(PeId(5)), "lan");
        assert_eq!(g.describe(), "uniform: 8 PEs in 1 cluster (lan 8 x 1.00)");
        assert_eq!(
            Grid::uniform(1).unwrap().describe(),
            "uniform: 1 PE in 1 cluster (lan 1 x 1.00)"
        );
        assert_eq!(Grid::uniform(64).unwrap().len(), 64);
        for n in [0, 65, 1000] {
            let e = Grid::uniform(n).unwrap_err();
            assert!(
                e.contains(&format!("{n} PEs")) && e.contains("1 to 64"),
                "{e}"
            );
        }
    }

    #[test]
    fn grid_speeds_are_relative_to_the_fastest() {
        let g = Grid::parse(HETERO, "h.toml").unwrap();
        assert_eq!(g.speed(PeId(0)), 1.0);
        assert!(close(g.speed(PeId(4)), 534.0 / 1395.0));
        assert_eq!(g.cluster_name(PeId(3)), "fast");
        assert_eq!(g.cluster_name(PeId(4)), "slow");
        assert_eq!(g.pes[4].cluster, 1);
        // The unit does not matter, only the ratio.
        let scaled = HETERO
            .replace("1395", "2790")
            .replace("speed = 534", "speed = 1068");
        assert_eq!(Grid::parse(&scaled, "h.toml").unwrap(), g);
        // Against a reference speed: 1395 runs at 1.0, whoever is fastest.
        let slow_only = "reference_speed = 1395\n[[cluster]]\nname = \"s\"\npes = 2\nspeed = 534\n";
        let s = Grid::parse(slow_only, "s.toml").unwrap();
        assert!(close(s.speed(PeId(1)), 534.0 / 1395.0));
        let bad = slow_only.replace("1395", "0");
        assert!(Grid::parse(&bad, "s.toml")
            .unwrap_err()
            .contains("reference_speed is 0"));
    }

    #[test]
    fn grid_latency_and_transit_are_symmetric() {
        let g = Grid::parse(HETERO, "h.toml").unwrap();
        for a in 0..8 {
            for b in 0..8 {
                let (a, b) = (PeId(a), PeId(b));
                assert_eq!(g.latency(a, b), g.latency(b, a));
                assert_eq!(g.bandwidth(a, b), g.bandwidth(b, a));
                assert_eq!(g.transit(a, b, 1000), g.transit(b, a, 1000));
            }
        }
        assert_eq!(g.latency(PeId(2), PeId(2)), 0.0);
        assert_eq!(g.transit(PeId(2), PeId(2), 1 << 20), 0.0);
        assert_eq!(g.bandwidth(PeId(2), PeId(2)), f64::INFINITY);
        // 0.35 ms + 12,500 bytes at 100 Mbit/s (12.5 MB/s) = 0.35 ms + 1 ms.
        assert!(close(g.transit(PeId(0), PeId(5), 12_500), 1.35e-3));
        assert!(close(g.transit(PeId(0), PeId(5), 0), 0.35e-3));
    }

    #[test]
    fn grid_defaults() {
        // A cluster with only a name and a count: speed 1, 0.2 ms, 100 Mbit/s.
        let g = Grid::parse("[[cluster]]\nname = \"a\"\npes = 3\n", "dir/small.toml").unwrap();
        assert_eq!(g.name, "small", "the name defaults to the file's");
        assert_eq!(g, {
            let mut u = Grid::uniform(3).unwrap();
            u.name = "small".into();
            u.clusters[0].name = "a".into();
            u
        });
        // Without a link: the larger latency and the smaller bandwidth.
        let g = Grid::parse(
            r#"
[[cluster]]
name = "a"
pes = 2
latency_ms = 1
bandwidth_mbit = 1000
[[cluster]]
name = "b"
pes = 2
latency_ms = 5
bandwidth_mbit = 10
"#,
            "g.toml",
        )
        .unwrap();
        assert!(close(g.latency(PeId(0), PeId(1)), 1e-3));
        assert!(close(g.latency(PeId(2), PeId(3)), 5e-3));
        assert!(close(g.latency(PeId(0), PeId(2)), 5e-3));
        assert!(close(g.bandwidth(PeId(0), PeId(1)), 1000e6 / 8.0));
        assert!(close(g.bandwidth(PeId(0), PeId(3)), 10e6 / 8.0));
        // A link without a bandwidth: the smaller of the two clusters'.
        let linked = "[[link]]\nbetween = [\"b\", \"a\"]\nlatency_ms = 40\n";
        let g2 = Grid::parse(&format!("{}{linked}", g_text_two_clusters()), "g.toml").unwrap();
        assert!(close(g2.latency(PeId(2), PeId(0)), 40e-3));
        assert!(close(g2.bandwidth(PeId(2), PeId(0)), 10e6 / 8.0));
    }

    #[test]
    fn a_machine_file_has_costs_and_runs_on_any_number_of_its_pes() {
        let text = "name = \"m\"\n[costs]\nreductions_per_second = 3e7\nmessage_us = 1.5\n\
                    message_word_ns = 40\ngc_word_ns = 2\nwake_us = 10\n\
                    contention = [1.0, 0.9, 0.8]\n\
                    [[cluster]]\nname = \"cores\"\npes = 4\n";
        let g = Grid::parse(text, "m.toml").unwrap();
        let c = &g.costs;
        assert_eq!(c.reductions_per_second, 3e7);
        assert!(close(c.message, 1.5e-6) && close(c.message_word, 40e-9));
        assert!(close(c.gc_word, 2e-9) && close(c.wake, 10e-6));
        assert_eq!(
            c.thread,
            Costs::default().thread,
            "what the file leaves out"
        );
        // The last factor holds beyond the list; 1.0 for one PE.
        assert_eq!(
            [1, 2, 3, 4, 16].map(|k| c.contention(k)),
            [1.0, 0.9, 0.8, 0.8, 0.8]
        );
        assert_eq!(Costs::default().contention(16), 1.0);
        let g16 = g.with_pes(16).unwrap();
        assert_eq!((g16.len(), g16.costs.clone()), (16, g.costs.clone()));
        assert_eq!(g.with_pes(1).unwrap().len(), 1);
        assert!(g.with_pes(65).is_err());
        // A grid of several clusters keeps its own count.
        let h = Grid::parse(HETERO, "h.toml").unwrap();
        assert!(h.with_pes(8).is_ok());
        assert!(h.with_pes(4).unwrap_err().contains("one cluster"));
        for bad in [
            "reductions_per_second = 0",
            "message_us = -1",
            "contention = [1.0, 1.5]",
            "contention = [0.0]",
            "unknown = 1",
        ] {
            let t = format!("[costs]\n{bad}\n[[cluster]]\nname = \"c\"\npes = 1\n");
            assert!(Grid::parse(&t, "bad.toml").is_err(), "{bad}");
        }
    }

    fn g_text_two_clusters() -> &'static str {
        "[[cluster]]\nname = \"a\"\npes = 2\n\
         [[cluster]]\nname = \"b\"\npes = 2\nbandwidth_mbit = 10\n"
    }

    #[test]
    fn grid_describe() {
        let g = Grid::parse(HETERO, "h.toml").unwrap();
        assert_eq!(
            g.describe(),
            "hetero8: 8 PEs in 2 clusters (fast 4 x 1.00, slow 4 x 0.38)"
        );
        let g = Grid::parse(
            "name = \"solo\"\n[[cluster]]\nname = \"x\"\npes = 1\nspeed = 3\n",
            "g.toml",
        )
        .unwrap();
        assert_eq!(g.describe(), "solo: 1 PE in 1 cluster (x 1 x 1.00)");
    }

    #[test]
    fn background_loads_follow_their_pattern_or_trace_and_slow_the_pe() {
        let g = Grid::parse(
            "[[cluster]]\nname = \"a\"\npes = 3\nload = [0, 1, 3]\nload_step_ms = 10\nload_shift_ms = 5\n\
             [[cluster]]\nname = \"b\"\npes = 1\nload_trace = [[0.5, 2], [1.0, 0.5]]\n\
             [[cluster]]\nname = \"c\"\npes = 1\n",
            "g.toml",
        )
        .unwrap();
        let (a0, a1, a2, b, c) = (PeId(0), PeId(1), PeId(2), PeId(3), PeId(4));
        // PE 0: 0 for 10 ms, 1, 3, then again.
        let at = |pe, t| g.background(pe, t);
        assert_eq!(
            [at(a0, 0.0), at(a0, 0.015), at(a0, 0.025), at(a0, 0.031)],
            [0.0, 1.0, 3.0, 0.0]
        );
        // PE 1 starts 5 ms into the pattern, PE 2 10 ms.
        assert_eq!(
            [at(a1, 0.002), at(a1, 0.006), at(a2, 0.0), at(a2, 0.016)],
            [0.0, 1.0, 1.0, 3.0]
        );
        // The trace: 0 before its first point, each value held.
        assert_eq!(
            [at(b, 0.2), at(b, 0.5), at(b, 0.9), at(b, 7.0)],
            [0.0, 2.0, 2.0, 0.5]
        );
        assert_eq!(at(c, 3.0), 0.0);
        assert!(g.has_background());
        assert!((g.speed_at(a0, 0.025) - 0.25).abs() < 1e-12);
        assert!((g.speed_at(b, 0.6) - 1.0 / 3.0).abs() < 1e-12);
        // On more PEs a one-cluster grid keeps its pattern and lags.
        let one = Grid::parse(
            "[[cluster]]\nname = \"a\"\npes = 1\nload = [2, 0]\nload_step_ms = 10\nload_shift_ms = 10\n",
            "g.toml",
        )
        .unwrap()
        .with_pes(3)
        .unwrap();
        assert_eq!(
            [
                one.background(PeId(0), 0.0),
                one.background(PeId(1), 0.0),
                one.background(PeId(2), 0.0)
            ],
            [2.0, 0.0, 2.0]
        );
        assert!(!Grid::uniform(4).unwrap().has_background());
    }

    #[test]
    fn grid_errors_name_the_file_and_the_problem() {
        let cluster = |name: &str, rest: &str| format!("[[cluster]]\nname = \"{name}\"\n{rest}\n");
        let two = format!("{}{}", cluster("a", "pes = 2"), cluster("b", "pes = 2"));
        let cases: Vec<(String, &str)> = vec![
            // No cluster at all.
            (String::new(), "grid.toml: no [[cluster]]; a grid has at least one cluster"),
            ("name = \"x\"\n".into(), "at least one cluster"),
            // PE counts.
            (cluster("a", "pes = 0"), "grid.toml: cluster `a` has 0 PEs; a cluster has at least 1"),
            (cluster("a", "pes = -3"), "cluster `a` has -3 PEs"),
            (cluster("a", "pes = 65"), "grid.toml: the grid has 65 PEs; the sim engine supports at most 64"),
            (
                format!("{}{}", cluster("a", "pes = 40"), cluster("b", "pes = 40")),
                "the grid has 80 PEs",
            ),
            (cluster("a", "pes = 99999999999"), "the grid has 99999999999 PEs"),
            // Background loads.
            (cluster("a", "pes = 1\nload = []"), "cluster `a` has load = []; give at least one value"),
            (cluster("a", "pes = 1\nload = [0, -1]"), "cluster `a` has a background load of -1; loads are 0 or more"),
            (cluster("a", "pes = 1\nload = [1]\nload_step_ms = 0"), "load_step_ms 0; steps must be positive"),
            (cluster("a", "pes = 1\nload_step_ms = 5"), "cluster `a` has load_step_ms but no load"),
            (cluster("a", "pes = 1\nload_shift_ms = 5"), "cluster `a` has load_shift_ms but no load"),
            (cluster("a", "pes = 1\nload = [1]\nload_trace = [[0, 1]]"), "both load and load_trace"),
            (cluster("a", "pes = 1\nload_trace = [[1, 1], [0.5, 2]]"), "load_trace times out of order at 0.5"),
            (cluster("a", "pes = 1\nload_trace = [[0, 1]]\nload_step_ms = 3"), "a trace gives its own times"),
            (cluster("a", "pes = 1\nload = [1]\nload_step_ms = 10\nload_shift_ms = -1"), "load_shift_ms -1; shifts are 0 or more"),
            // Speeds, latencies, bandwidths.
            (
                cluster("slow", "pes = 1\nspeed = 0"),
                "grid.toml: cluster `slow` has speed 0; speeds must be positive",
            ),
            (cluster("a", "pes = 1\nspeed = -2.5"), "cluster `a` has speed -2.5"),
            (cluster("a", "pes = 1\nspeed = nan"), "cluster `a` has speed NaN"),
            (cluster("a", "pes = 1\nspeed = inf"), "cluster `a` has speed inf"),
            (
                cluster("a", "pes = 1\nlatency_ms = -1"),
                "grid.toml: cluster `a` has latency_ms -1; latencies must be 0 or more milliseconds",
            ),
            (
                cluster("a", "pes = 1\nbandwidth_mbit = 0"),
                "grid.toml: cluster `a` has bandwidth_mbit 0; bandwidths must be positive",
            ),
            (
                cluster("a", "pes = 1\nmessage_cost_us = -63"),
                "grid.toml: cluster `a` has message_cost_us -63; costs must be 0 or more microseconds",
            ),
            (cluster("a", "pes = 1\nword_cost_us = inf"), "cluster `a` has word_cost_us inf"),
            (
                format!("{two}[[link]]\nbetween = [\"a\", \"b\"]\nlatency_ms = 1\nword_cost_us = -1\n"),
                "the link between `a` and `b` has word_cost_us -1",
            ),
            // Names.
            (
                format!("{}{}", cluster("a", "pes = 1"), cluster("a", "pes = 2")),
                "grid.toml: two clusters are named `a`; cluster names must be unique",
            ),
            (cluster("", "pes = 1"), "a cluster has an empty name"),
            (format!("name = \"\"\n{}", cluster("a", "pes = 1")), "the grid's name is empty"),
            // Links.
            (
                format!("{two}[[link]]\nbetween = [\"a\", \"c\"]\nlatency_ms = 1\n"),
                "grid.toml: a [[link]] names cluster `c`, which the grid does not have",
            ),
            (
                format!("{two}[[link]]\nbetween = [\"a\"]\nlatency_ms = 1\n"),
                "it names exactly two clusters",
            ),
            (
                format!("{two}[[link]]\nbetween = [\"a\", \"a\"]\nlatency_ms = 1\n"),
                "joins cluster `a` to itself",
            ),
            (
                format!(
                    "{two}[[link]]\nbetween = [\"a\", \"b\"]\nlatency_ms = 1\n\
                     [[link]]\nbetween = [\"b\", \"a\"]\nlatency_ms = 2\n"
                ),
                "grid.toml: two [[link]]s between `b` and `a`",
            ),
            (
                format!("{two}[[link]]\nbetween = [\"a\", \"b\"]\nlatency_ms = -0.5\n"),
                "the link between `a` and `b` has latency_ms -0.5",
            ),
            (
                format!("{two}[[link]]\nbetween = [\"a\", \"b\"]\nlatency_ms = 1\nbandwidth_mbit = -10\n"),
                "the link between `a` and `b` has bandwidth_mbit -10",
            ),
            // What serde and toml report: unknown keys, missing keys, syntax.
            (cluster("a", "pes = 1\nlatency = 3"), "unknown field `latency`"),
            (format!("nmae = \"x\"\n{}", cluster("a", "pes = 1")), "unknown field `nmae`"),
            (format!("{two}[[link]]\nbetween = [\"a\", \"b\"]\n"), "missing field `latency_ms`"),
            ("[[cluster]]\npes = 1\n".into(), "missing field `name`"),
            (cluster("a", "pes = \"four\""), "grid.toml: TOML parse error at line 3"),
            ("[[cluster]\nname = \"a\"\n".into(), "grid.toml: TOML parse error at line 1"),
            (cluster("a", "pes = 1\nspeed = "), "TOML parse error at line 4"),
        ];
        for (text, want) in cases {
            let e = error(&text);
            assert!(e.starts_with("grid.toml: "), "{e:?} for\n{text}");
            assert!(
                e.contains(want),
                "{e:?} does not contain {want:?}; for\n{text}"
            );
        }
    }

    #[test]
    fn grid_load_reports_a_missing_file() {
        let e = Grid::load(Path::new("/nonexistent/grid.toml")).unwrap_err();
        assert!(
            e.starts_with("/nonexistent/grid.toml: cannot read the grid file"),
            "{e}"
        );
    }
}
