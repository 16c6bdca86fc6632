//! `--profile`: the activity profiles of the GUM and Grid-GUM papers, as
//! one SVG picture. Above, a line per PE over time: solid where it runs a
//! thread, grey (darker for more threads) where it has runnable threads
//! but runs none, a thin red line where its threads are all blocked, a gap
//! where it is idle. Below, the overall activity profile: how many threads
//! run, are runnable and are blocked, stacked, over time.
//!
//! Memory is bounded: each PE sums what it did into at most [`BINS`]
//! intervals of equal width; when time outgrows them, neighbours merge
//! and the width doubles. The picture is drawn at the end from the bins.

use super::event::Event;
use super::out::{xml_escape, RunInfo, Target};
use super::{Activity, Recorder};
use crate::parallel::ids::PeId;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

/// Intervals per PE (about one per pixel of the picture).
pub const BINS: usize = 1024;
/// The first intervals' width: a microsecond.
const FIRST_WIDTH: f64 = 1e-6;

/// What a PE did during one interval, in seconds (of the PE), and in
/// thread-seconds for the thread counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bin {
    /// A thread was running.
    pub running: f64,
    /// No thread ran, some were runnable.
    pub waiting: f64,
    /// No thread ran or could, some were blocked.
    pub blocked: f64,
    /// Runnable threads (not running) × time.
    pub runnable_threads: f64,
    /// Blocked threads × time.
    pub blocked_threads: f64,
}

impl Bin {
    fn add(&mut self, o: &Bin) {
        self.running += o.running;
        self.waiting += o.waiting;
        self.blocked += o.blocked;
        self.runnable_threads += o.runnable_threads;
        self.blocked_threads += o.blocked_threads;
    }
}

/// A PE's intervals: `bins[i]` covers [i × width, (i+1) × width).
#[derive(Clone, Debug, PartialEq)]
pub struct Bins {
    pub width: f64,
    pub bins: Vec<Bin>,
}

impl Bins {
    fn new() -> Bins {
        Bins {
            width: FIRST_WIDTH,
            bins: vec![Bin::default(); BINS],
        }
    }

    /// Merges neighbours: twice the width, half the intervals used.
    fn coarsen(&mut self) {
        let n = self.bins.len();
        for i in 0..n / 2 {
            let mut b = self.bins[2 * i];
            b.add(&self.bins[2 * i + 1]);
            self.bins[i] = b;
        }
        for b in &mut self.bins[n / 2..] {
            *b = Bin::default();
        }
        self.width *= 2.0;
    }

    /// Adds `state` held from `t0` to `t1`, split over the intervals.
    fn add(&mut self, t0: f64, t1: f64, state: &Activity) {
        if t1 <= t0 {
            return;
        }
        while t1 > self.width * self.bins.len() as f64 {
            self.coarsen();
        }
        // Interval by interval, counted (not recomputed from t: rounding
        // could find the same interval twice).
        let last = self.bins.len() - 1;
        let mut t = t0;
        let mut i = ((t0 / self.width) as usize).min(last);
        while t < t1 && i <= last {
            let end = if i == last {
                t1
            } else {
                (((i + 1) as f64) * self.width).clamp(t, t1)
            };
            let dt = end - t;
            let b = &mut self.bins[i];
            if state.running {
                b.running += dt;
            } else if state.runnable > 0 {
                b.waiting += dt;
            } else if state.blocked > 0 {
                b.blocked += dt;
            }
            b.runnable_threads += state.runnable as f64 * dt;
            b.blocked_threads += state.blocked as f64 * dt;
            t = end;
            i += 1;
        }
    }

    /// The same at width `w` (a power-of-two multiple of this one's).
    fn at_width(mut self, w: f64) -> Bins {
        while self.width < w * 0.999 {
            self.coarsen();
        }
        self
    }
}

/// A profile being made: each PE's bins once its run is over.
#[derive(Debug)]
pub struct Profile {
    path: Target,
    info: RunInfo,
    done: Arc<Mutex<Vec<Option<Bins>>>>,
}

impl Profile {
    /// Checks that the file can be written (it is written at the end).
    pub fn create(path: impl Into<Target>, info: &RunInfo) -> Result<Profile, String> {
        let path = path.into();
        path.write(b"")?;
        Ok(Profile {
            path,
            info: info.clone(),
            done: Arc::new(Mutex::new(vec![None; info.pes.max(1)])),
        })
    }

    pub fn for_pe(&self, pe: PeId) -> Box<dyn Recorder> {
        Box::new(PeProfile {
            pe: pe.0 as usize,
            bins: Bins::new(),
            since: 0.0,
            done: self.done.clone(),
        })
    }

    /// Draws the picture of a run of `run_time` seconds.
    pub fn finish(&self, run_time: f64) -> Result<(), String> {
        let pes: Vec<Bins> = self
            .done
            .lock()
            .map_err(|_| "a PE failed".to_string())?
            .iter()
            .map(|b| b.clone().unwrap_or_else(Bins::new))
            .collect();
        let svg = render(&self.info, &pes, run_time);
        self.path.write(svg.as_bytes())
    }
}

struct PeProfile {
    pe: usize,
    bins: Bins,
    /// The time of the last thread event: what is added next starts there.
    since: f64,
    done: Arc<Mutex<Vec<Option<Bins>>>>,
}

impl Recorder for PeProfile {
    fn record(&mut self, t: f64, e: &Event, was: &Activity) {
        if !matches!(
            e,
            Event::ThreadCreate { .. }
                | Event::ThreadRun { .. }
                | Event::ThreadStop { .. }
                | Event::ThreadWakeup { .. }
        ) {
            return;
        }
        let t = t.max(self.since);
        self.bins.add(self.since, t, was);
        self.since = t;
    }

    fn finish(&mut self, t: f64, now: &Activity) {
        self.bins.add(self.since, t, now);
        self.since = self.since.max(t);
        if let Ok(mut d) = self.done.lock() {
            if let Some(slot) = d.get_mut(self.pe) {
                *slot = Some(self.bins.clone());
            }
        }
    }
}

// The picture's geometry, in pixels.
const WIDTH: f64 = 1100.0;
const LEFT: f64 = 150.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 64.0;
const ROW: f64 = 16.0;
const BAR: f64 = 9.0;
const OVERALL: f64 = 200.0;

const RUNNING: &str = "#2e7d32";
const RUNNABLE: &str = "#f0a030";
const BLOCKED: &str = "#d32f2f";
/// Greys for 1, 2, 3 and more runnable threads on a PE that runs none.
const WAITING: [&str; 4] = ["#d0d0d0", "#a8a8a8", "#808080", "#585858"];

/// A round step for an axis spanning `span` in about `n` steps.
fn nice_step(span: f64, n: f64) -> f64 {
    if span <= 0.0 {
        return 1.0;
    }
    let raw = span / n;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let f = if f < 1.5 {
        1.0
    } else if f < 3.5 {
        2.0
    } else if f < 7.5 {
        5.0
    } else {
        10.0
    };
    f * mag
}

/// A time for an axis label.
fn time_label(t: f64, step: f64) -> String {
    if step >= 1.0 {
        format!("{t:.0} s")
    } else if step >= 1e-3 {
        let ms = t * 1e3;
        let digits = if step >= 1e-2 { 0 } else { 1 };
        format!("{ms:.digits$} ms")
    } else {
        format!("{:.0} µs", t * 1e6)
    }
}

/// The corners of a step line: `ys[c]` from `xs[c]` to `xs[c + 1]`,
/// with a corner only where the value changes (a small file).
fn steps(xs: &[f64], ys: &[f64]) -> Vec<(f64, f64)> {
    let mut pts = Vec::new();
    for (c, &v) in ys.iter().enumerate() {
        let rounded = |v: f64| (v * 10.0).round();
        if c == 0 || rounded(v) != rounded(ys[c - 1]) {
            if c > 0 {
                pts.push((xs[c], ys[c - 1]));
            }
            pts.push((xs[c], v));
        }
    }
    if let Some(&v) = ys.last() {
        pts.push((xs[ys.len()], v));
    }
    pts
}

/// A PE's look in one interval: what to draw.
#[derive(Clone, Copy, PartialEq)]
enum Look {
    Idle,
    Running,
    Waiting(usize),
    Blocked,
}

fn look(b: &Bin, width: f64) -> Look {
    let idle = (width - b.running - b.waiting - b.blocked).max(0.0);
    let most = b.running.max(b.waiting).max(b.blocked).max(idle);
    if most <= 0.0 || most == idle {
        Look::Idle
    } else if most == b.running {
        Look::Running
    } else if most == b.waiting {
        let n = (b.runnable_threads / b.waiting.max(1e-300)).round() as usize;
        Look::Waiting(n.clamp(1, 4) - 1)
    } else {
        Look::Blocked
    }
}

/// The SVG picture of a run: `pes[p]` what PE p did, `run_time` seconds.
pub fn render(info: &RunInfo, pes: &[Bins], run_time: f64) -> String {
    let width = pes.iter().map(|b| b.width).fold(FIRST_WIDTH, f64::max);
    let pes: Vec<Bins> = pes.iter().map(|b| b.clone().at_width(width)).collect();
    // The time shown: the run, or the last interval anything happened in.
    let used = pes
        .iter()
        .filter_map(|b| {
            b.bins
                .iter()
                .rposition(|x| *x != Bin::default())
                .map(|i| (i + 1) as f64 * width)
        })
        .fold(0.0, f64::max);
    let horizon = if run_time > 0.0 {
        run_time
    } else {
        used.max(width)
    };
    let n = pes.len();
    let plot_w = WIDTH - LEFT - RIGHT;
    let x = |t: f64| LEFT + (t / horizon).min(1.0) * plot_w;
    let cols = ((horizon / width).ceil() as usize).clamp(1, BINS);
    let pe_top = TOP + 18.0;
    let overall_top = pe_top + n as f64 * ROW + 40.0;
    let axis_y = overall_top + OVERALL;
    let height = axis_y + 84.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{WIDTH}" height="{height:.0}" fill="white"/>"#
    );
    // Title: what ran, where, how long.
    let clock = if info.engine == "sim" {
        "virtual"
    } else {
        "wall"
    };
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="22" font-size="16" font-weight="bold">{}</text>"#,
        xml_escape(&info.command())
    );
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="42">{}</text>"#,
        xml_escape(&format!(
            "engine {}, {}, policy {}; run time {:.4} s ({clock})",
            info.engine,
            info.machine(),
            info.policy,
            run_time
        ))
    );
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="{:.0}" font-weight="bold">Per-PE activity</text>"#,
        pe_top - 6.0
    );
    // One line per PE.
    for (p, bins) in pes.iter().enumerate() {
        let y = pe_top + p as f64 * ROW;
        let _ = writeln!(
            s,
            r#"<text x="{:.0}" y="{:.1}" text-anchor="end" font-size="11">{}</text>"#,
            LEFT - 8.0,
            y + BAR,
            xml_escape(&info.pe_name(PeId(p as u16)))
        );
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="rgb(238,238,238)"/>"#,
            y + BAR / 2.0,
            LEFT + plot_w,
            y + BAR / 2.0
        );
        // Runs of intervals that look the same are one shape.
        let mut c = 0;
        while c < cols {
            let l = look(&bins.bins[c], width);
            let mut e = c + 1;
            while e < cols && look(&bins.bins[e], width) == l {
                e += 1;
            }
            let (x0, x1) = (x(c as f64 * width), x(e as f64 * width));
            let w = (x1 - x0).max(0.5);
            match l {
                Look::Idle => {}
                Look::Running => {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x0:.2}" y="{y:.1}" width="{w:.2}" height="{BAR}" fill="{RUNNING}"/>"#
                    );
                }
                Look::Waiting(k) => {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x0:.2}" y="{y:.1}" width="{w:.2}" height="{BAR}" fill="{}"/>"#,
                        WAITING[k]
                    );
                }
                Look::Blocked => {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x0:.2}" y="{:.1}" width="{w:.2}" height="3" fill="{BLOCKED}"/>"#,
                        y + BAR / 2.0 - 1.5
                    );
                }
            }
            c = e;
        }
    }
    // The overall profile: threads running, runnable, blocked, stacked.
    let mut stacks = vec![[0.0f64; 3]; cols];
    for bins in &pes {
        for (c, st) in stacks.iter_mut().enumerate() {
            let b = &bins.bins[c];
            st[0] += b.running / width;
            st[1] += b.runnable_threads / width;
            st[2] += b.blocked_threads / width;
        }
    }
    let top_count = stacks
        .iter()
        .map(|st| st[0] + st[1] + st[2])
        .fold(1.0, f64::max);
    let ystep = nice_step(top_count, 4.0).max(1.0);
    let ymax = (top_count / ystep).ceil() * ystep;
    let y = |v: f64| axis_y - v / ymax * OVERALL;
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="{:.0}" font-weight="bold">Overall activity (threads)</text>"#,
        overall_top - 8.0
    );
    let mut v = 0.0;
    while v <= ymax + 1e-9 {
        let yy = y(v);
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="rgb(224,224,224)"/><text x="{:.0}" y="{:.1}" text-anchor="end" font-size="11">{v}</text>"#,
            LEFT + plot_w,
            LEFT - 6.0,
            yy + 4.0
        );
        v += ystep;
    }
    // Each layer a step-shaped polygon from its lower edge to its upper.
    for (layer, colour) in [(0, RUNNING), (1, RUNNABLE), (2, BLOCKED)] {
        let lower = |c: usize| stacks[c][..layer].iter().sum::<f64>();
        let upper = |c: usize| stacks[c][..=layer].iter().sum::<f64>();
        if (0..cols).all(|c| upper(c) - lower(c) < 1e-9) {
            continue;
        }
        let xs: Vec<f64> = (0..=cols).map(|c| x(c as f64 * width)).collect();
        let up: Vec<f64> = (0..cols).map(|c| y(upper(c))).collect();
        let down: Vec<f64> = (0..cols).map(|c| y(lower(c))).collect();
        let mut pts = steps(&xs, &up);
        let mut back = steps(&xs, &down);
        back.reverse();
        pts.extend(back);
        let pts: Vec<String> = pts.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect();
        let _ = writeln!(
            s,
            r#"<polygon points="{}" fill="{colour}" stroke="none"/>"#,
            pts.join(" ")
        );
    }
    // Time axis, under both.
    let _ = writeln!(
        s,
        r#"<line x1="{LEFT}" y1="{axis_y:.1}" x2="{:.1}" y2="{axis_y:.1}" stroke="black"/>"#,
        LEFT + plot_w
    );
    let step = nice_step(horizon, 8.0);
    let mut t = 0.0;
    while t <= horizon * 1.0001 {
        let xx = x(t);
        let _ = writeln!(
            s,
            r#"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="rgb(240,240,240)"/><line x1="{xx:.1}" y1="{axis_y:.1}" x2="{xx:.1}" y2="{:.1}" stroke="black"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle" font-size="11">{}</text>"#,
            pe_top - 2.0,
            axis_y,
            axis_y + 5.0,
            axis_y + 18.0,
            time_label(t, step)
        );
        t += step;
    }
    // Legend.
    let ly = axis_y + 44.0;
    let mut lx = LEFT;
    let items: [(&str, &str, f64); 6] = [
        (RUNNING, "running", BAR),
        (WAITING[1], "runnable, none running (darker: more)", BAR),
        (BLOCKED, "blocked", 3.0),
        ("none", "gap: idle", BAR),
        (RUNNABLE, "runnable threads (overall)", BAR),
        (BLOCKED, "blocked threads (overall)", BAR),
    ];
    for (colour, label, h) in items {
        if colour != "none" {
            let _ = writeln!(
                s,
                r#"<rect x="{lx:.0}" y="{:.1}" width="18" height="{h}" fill="{colour}"/>"#,
                ly - 4.0 - h / 2.0
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.0}" y="{ly:.0}" font-size="11">{}</text>"#,
            lx + 24.0,
            xml_escape(label)
        );
        lx += 30.0 + 6.2 * label.len() as f64;
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(running: bool, runnable: u32, blocked: u32) -> Activity {
        Activity {
            running,
            runnable,
            blocked,
            sparks: 0,
        }
    }

    #[test]
    fn bins_keep_their_totals_when_they_merge() {
        let mut b = Bins::new();
        b.add(0.0, 0.5e-3, &st(true, 2, 0));
        b.add(0.5e-3, 0.25, &st(false, 0, 3));
        assert!(b.width > FIRST_WIDTH);
        assert!(b.width * BINS as f64 >= 0.25);
        // Every interval of the first half millisecond ran.
        let ran = b.bins.iter().filter(|x| x.running > 0.0).count();
        assert_eq!(ran, (0.5e-3 / b.width).ceil() as usize);
        let sum = b.bins.iter().fold(Bin::default(), |mut a, x| {
            a.add(x);
            a
        });
        assert!((sum.running - 0.5e-3).abs() < 1e-12);
        assert!((sum.blocked - (0.25 - 0.5e-3)).abs() < 1e-9);
        assert!((sum.runnable_threads - 1e-3).abs() < 1e-12);
        assert!((sum.blocked_threads - 3.0 * (0.25 - 0.5e-3)).abs() < 1e-9);
    }

    #[test]
    fn renders_a_picture() {
        let info = RunInfo {
            program: "p<&>".into(),
            args: vec!["1".into()],
            engine: "sim".into(),
            pes: 2,
            grid: None,
            policy: "gum".into(),
            file_limit: None,
        };
        let mut a = Bins::new();
        a.add(0.0, 1e-3, &st(true, 1, 0));
        let svg = render(&info, &[a, Bins::new()], 2e-3);
        assert!(svg.starts_with("<svg "));
        assert!(svg.ends_with("</svg>\n"));
        assert!(svg.contains("p&lt;&amp;&gt; 1"));
        assert!(svg.contains(RUNNING));
    }
}
