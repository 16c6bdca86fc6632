//! The statistics: what each PE did, counted from its events
//! (`PeStats::count`), and the reports made of them: `--stats` (like
//! GHC's `+RTS -s`, `format_stats`) and `--stats-json` (`to_json`). Each
//! statistic is one field of [`PeStats`], declared once with how PEs add
//! up; nothing else stores it.

use crate::obs::event::Event;
use crate::parallel::protocol::packet::Flush;
use crate::parallel::protocol::{codec, MsgKind};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// How a statistic of several PEs adds up.
trait Merge {
    fn add_up(&mut self, other: &Self);
}

impl Merge for u64 {
    fn add_up(&mut self, o: &u64) {
        *self += o;
    }
}

impl Merge for f64 {
    fn add_up(&mut self, o: &f64) {
        *self += o;
    }
}

/// A largest value (the PEs together: the largest of theirs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Max(pub u64);

impl Merge for Max {
    fn add_up(&mut self, o: &Max) {
        self.0 = self.0.max(o.0);
    }
}

impl Merge for BTreeMap<&'static str, (u64, u64)> {
    fn add_up(&mut self, o: &Self) {
        for (k, (c, b)) in o {
            let e = self.entry(k).or_default();
            e.0 += c;
            e.1 += b;
        }
    }
}

/// How a statistic travels to the main PE from another process (`mpi`):
/// numbers in the codec's LEB128, a time as the bits of its double.
trait Wire: Sized {
    fn put(&self, out: &mut Vec<u8>);
    fn take(bytes: &mut &[u8]) -> Option<Self>;
}

impl Wire for u64 {
    fn put(&self, out: &mut Vec<u8>) {
        codec::put_word(out, *self);
    }

    fn take(bytes: &mut &[u8]) -> Option<u64> {
        codec::take_word(bytes)
    }
}

impl Wire for f64 {
    fn put(&self, out: &mut Vec<u8>) {
        self.to_bits().put(out);
    }

    fn take(bytes: &mut &[u8]) -> Option<f64> {
        u64::take(bytes).map(f64::from_bits)
    }
}

impl Wire for Max {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
    }

    fn take(bytes: &mut &[u8]) -> Option<Max> {
        u64::take(bytes).map(Max)
    }
}

/// Messages by kind: each kind as its number.
impl Wire for BTreeMap<&'static str, (u64, u64)> {
    fn put(&self, out: &mut Vec<u8>) {
        (self.len() as u64).put(out);
        for (name, (c, b)) in self {
            let k = MsgKind::ALL.iter().position(|k| k.name() == *name);
            (k.unwrap_or(usize::MAX) as u64).put(out);
            c.put(out);
            b.put(out);
        }
    }

    fn take(bytes: &mut &[u8]) -> Option<Self> {
        let mut m = BTreeMap::new();
        for _ in 0..u64::take(bytes)? {
            let kind = MsgKind::ALL.get(usize::try_from(u64::take(bytes)?).ok()?)?;
            m.insert(kind.name(), (u64::take(bytes)?, u64::take(bytes)?));
        }
        Some(m)
    }
}

impl PeStats {
    /// The statistics as bytes, for the main PE (`mpi`).
    pub fn to_wire(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.put(&mut out);
        out
    }

    /// Reads what [`PeStats::to_wire`] wrote.
    pub fn from_wire(mut bytes: &[u8]) -> Result<PeStats, String> {
        let s = PeStats::take(&mut bytes).filter(|_| bytes.is_empty());
        s.ok_or_else(|| "malformed statistics".to_string())
    }
}

/// Declares a struct of statistics and how several add up, one line per
/// statistic.
macro_rules! stats {
    ($(#[$sdoc:meta])* $ty:ident { $($(#[$doc:meta])* $name:ident: $fty:ty,)* }) => {
        $(#[$sdoc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize)]
        pub struct $ty {
            $($(#[$doc])* pub $name: $fty,)*
        }

        impl Merge for $ty {
            fn add_up(&mut self, o: &$ty) {
                $(self.$name.add_up(&o.$name);)*
            }
        }

        impl Wire for $ty {
            fn put(&self, out: &mut Vec<u8>) {
                $(self.$name.put(out);)*
            }

            fn take(bytes: &mut &[u8]) -> Option<$ty> {
                Some($ty { $($name: Wire::take(bytes)?,)* })
            }
        }
    };
}

stats! {
/// What one PE did (or several together: `add`). Serialised, the per-PE
/// part of `--stats-json`.
PeStats {
    /// Supercombinator entries (thunks included).
    reductions: u64,
    /// Bytes of heap in use at each collection and at the end, summed.
    allocated_bytes: u64,
    gcs: u64,
    /// Bytes copied by the collector (live data, summed over collections).
    copied_bytes: u64,
    /// The largest semispace, in bytes.
    peak_heap_bytes: Max,
    /// The deepest a thread's stacks went, in 4-byte units.
    #[serde(skip)]
    max_stack_words: Max,
    threads: u64,
    /// Times a thread blocked (on a black hole or another PE's node).
    blocked: u64,
    sparks_created: u64,
    sparks_converted: u64,
    sparks_fizzled: u64,
    sparks_overflowed: u64,
    /// Sparks sent away in answer to a FISH, and threads made of sparks
    /// that came from other PEs.
    sparks_exported: u64,
    sparks_imported: u64,
    /// FISH messages this PE started, forwarded, and that came home empty.
    fish_sent: u64,
    fish_forwarded: u64,
    fish_failed: u64,
    /// FETCH messages this PE started.
    fetches: u64,
    /// Eden processes that ran here.
    processes: u64,
    /// Packets that carried a load policy's tables on the side
    /// (Grid-GUM2's piggyback), and the bytes of those tables.
    piggybacks: u64,
    piggyback_bytes: u64,
    /// Seconds running (threads and messages), idle, and idle while
    /// threads waited for other PEs: virtual on the sim engine, wall
    /// elsewhere; measured by the engine, which alone knows time.
    busy_s: f64,
    idle_s: f64,
    blocked_s: f64,
    /// Messages sent, by kind: (count, bytes).
    #[serde(skip)]
    messages: BTreeMap<&'static str, (u64, u64)>,
    /// The packets that carried them (reported apart: `packets_json`).
    #[serde(skip)]
    packets: PacketStats,
}}

stats! {
/// What a PE's packet layer sent (`parallel::protocol::packet`). Reported
/// only for a run in which messages waited for company (`chunked`): in
/// any other every message is a packet of its own, as before the layer.
PacketStats {
    /// Packets sent, and the messages and bytes in them.
    sent: u64,
    messages: u64,
    bytes: u64,
    /// The most messages in one packet.
    max_messages: Max,
    /// Why the packets left: with an urgent message, full (or the next
    /// message did not fit), timed out, or the PE had no runnable thread.
    urgent: u64,
    full: u64,
    timeout: u64,
    idle: u64,
}}

impl PacketStats {
    fn count(&mut self, messages: u32, bytes: u64, why: Flush) {
        self.sent += 1;
        self.messages += u64::from(messages);
        self.bytes += bytes;
        self.max_messages.add_up(&Max(u64::from(messages)));
        *match why {
            Flush::Urgent => &mut self.urgent,
            Flush::Full => &mut self.full,
            Flush::Timeout => &mut self.timeout,
            Flush::Idle => &mut self.idle,
        } += 1;
    }

    /// Whether a message waited for others: a packet carried several, or
    /// left for another reason than an urgent message.
    pub fn chunked(&self) -> bool {
        self.max_messages.0 > 1 || self.urgent < self.sent
    }

    /// Messages and bytes per packet, on average.
    pub fn mean_messages(&self) -> f64 {
        self.messages as f64 / self.sent.max(1) as f64
    }

    pub fn mean_bytes(&self) -> f64 {
        self.bytes as f64 / self.sent.max(1) as f64
    }
}

impl PeStats {
    /// Adds another PE's statistics to these.
    pub fn add(&mut self, o: &PeStats) {
        self.add_up(o);
    }

    /// Counts one event.
    #[inline]
    pub fn count(&mut self, e: &Event) {
        match *e {
            Event::ThreadCreate { .. } => self.threads += 1,
            Event::ThreadStop {
                reductions,
                stack_words,
                why,
                ..
            } => {
                self.reductions += reductions;
                self.max_stack_words.add_up(&Max(stack_words));
                if why.is_blocked() {
                    self.blocked += 1;
                }
            }
            Event::SparkCreate => self.sparks_created += 1,
            Event::SparkOverflow => self.sparks_overflowed += 1,
            Event::SparkRun => self.sparks_converted += 1,
            Event::SparkFizzle | Event::SparkGc => self.sparks_fizzled += 1,
            Event::SparkSteal { .. } => self.sparks_exported += 1,
            Event::SparkReceive { .. } => {
                self.sparks_imported += 1;
                self.sparks_converted += 1;
            }
            Event::GcEnd {
                copied_words,
                heap_words,
            } => {
                self.gcs += 1;
                self.copied_bytes += 8 * copied_words;
                self.peak_heap_bytes.add_up(&Max(8 * heap_words));
            }
            Event::HeapAllocated { words } => self.allocated_bytes += 8 * words,
            Event::HeapSize { words } => self.peak_heap_bytes.add_up(&Max(8 * words)),
            Event::Send { kind, bytes, .. } => {
                let e = self.messages.entry(kind.name()).or_default();
                e.0 += 1;
                e.1 += bytes;
            }
            Event::Packet {
                messages,
                bytes,
                why,
                ..
            } => self.packets.count(messages, bytes, why),
            Event::Piggyback { bytes } => {
                self.piggybacks += 1;
                self.piggyback_bytes += bytes;
            }
            Event::FishOut { .. } => self.fish_sent += 1,
            Event::FishForward { .. } => self.fish_forwarded += 1,
            Event::FishHome => self.fish_failed += 1,
            Event::Fetch { .. } => self.fetches += 1,
            Event::ProcessCreate { .. } => self.processes += 1,
            Event::ThreadRun { .. }
            | Event::ThreadWakeup { .. }
            | Event::SparkDud
            | Event::GcStart
            | Event::Receive { .. }
            | Event::ProcessThread { .. }
            | Event::ProcessEnd { .. } => {}
        }
    }

    /// Messages and bytes sent, all kinds together.
    pub fn sent(&self) -> (u64, u64) {
        self.messages
            .values()
            .fold((0, 0), |(m, b), (cm, cb)| (m + cm, b + cb))
    }

    /// The PEs together: counts and times added, the largest heap.
    pub fn sum(pes: &[PeStats]) -> PeStats {
        let mut t = PeStats::default();
        for p in pes {
            t.add(p);
        }
        t
    }
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// The PEs together.
    pub total: PeStats,
    pub per_pe: Vec<PeStats>,
    /// The main PE's deepest stack, in bytes.
    pub max_stack_bytes: u64,
    /// Wall time of the run.
    pub time: Duration,
    pub engine: &'static str,
    pub pes: usize,
    /// The virtual run time (sim engine).
    pub virtual_time: Option<f64>,
    /// The faults injected (sim engine, `--faults`).
    pub faults: Option<crate::engine::faults::FaultCounts>,
}

impl Stats {
    /// A run's statistics from its PEs'.
    pub fn new(per_pe: Vec<PeStats>) -> Stats {
        Stats {
            total: PeStats::sum(&per_pe),
            max_stack_bytes: per_pe.first().map_or(0, |p| 4 * p.max_stack_words.0),
            per_pe,
            ..Stats::default()
        }
    }
}

/// The `--stats-json` document: engine, PEs, times, per-PE counters (with
/// messages and bytes sent), messages by kind; and the packets, per PE and
/// in all, when messages waited for company (`PacketStats::chunked`).
pub fn to_json(s: &Stats, wall: Duration) -> String {
    let chunked = s.total.packets.chunked();
    let per_pe: Vec<serde_json::Value> = s
        .per_pe
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let mut v = serde_json::to_value(p).unwrap_or_default();
            let (messages_sent, bytes_sent) = p.sent();
            if let Some(o) = v.as_object_mut() {
                o.insert("pe".into(), k.into());
                o.insert("messages_sent".into(), messages_sent.into());
                o.insert("bytes_sent".into(), bytes_sent.into());
                if chunked {
                    o.insert("packets".into(), packets_json(&p.packets));
                }
            }
            v
        })
        .collect();
    let messages: serde_json::Map<String, serde_json::Value> = s
        .total
        .messages
        .iter()
        .map(|(k, (c, b))| (k.to_string(), serde_json::json!({"count": c, "bytes": b})))
        .collect();
    let mut doc = serde_json::json!({
        "engine": s.engine,
        "pes": s.pes,
        "wall_time_s": wall.as_secs_f64(),
        "virtual_time_s": s.virtual_time,
        "per_pe": per_pe,
        "messages": messages,
    });
    if chunked {
        doc["packets"] = packets_json(&s.total.packets);
    }
    if let Some(f) = &s.faults {
        doc["faults"] = serde_json::json!({
            "delayed": f.delayed,
            "bursts": f.bursts,
            "stalls": f.stalls,
            "duplicated": f.duplicated,
        });
    }
    doc.to_string()
}

/// One PE's packets (or all), for `--stats-json`.
fn packets_json(p: &PacketStats) -> serde_json::Value {
    serde_json::json!({
        "sent": p.sent,
        "messages": p.messages,
        "bytes": p.bytes,
        "messages_per_packet": p.mean_messages(),
        "max_messages_per_packet": p.max_messages,
        "bytes_per_packet": p.mean_bytes(),
        "flushes": {
            "urgent": p.urgent,
            "full": p.full,
            "timeout": p.timeout,
            "idle": p.idle,
        },
    })
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `1 PE`, `4 PEs`.
pub fn pes(n: usize) -> String {
    if n == 1 {
        "1 PE".to_string()
    } else {
        format!("{n} PEs")
    }
}

/// The `--stats` report (like `+RTS -s`): the totals; with several PEs,
/// then the engine (and virtual run time), a table of what each PE did and
/// the messages sent, by kind.
pub fn format_stats(s: &Stats) -> String {
    let secs = s.time.as_secs_f64();
    let rate = if secs > 0.0 {
        s.total.reductions as f64 / secs / 1e6
    } else {
        0.0
    };
    let mut out = format!(
        "{:>16} reductions ({rate:.1} M/s)\n\
         {:>16} bytes allocated in the heap\n\
         {:>16} bytes copied during GC\n\
         {:>16} bytes maximum heap size\n\
         {:>16} bytes maximum stack size\n\
         {:>16} collections\n\
         {:>16} threads\n\
         SPARKS: {} ({} converted, {} fizzled, {} overflowed)\n\
         Total time {:.3}s\n",
        thousands(s.total.reductions),
        thousands(s.total.allocated_bytes),
        thousands(s.total.copied_bytes),
        thousands(s.total.peak_heap_bytes.0),
        thousands(s.max_stack_bytes),
        thousands(s.total.gcs),
        thousands(s.total.threads),
        s.total.sparks_created,
        s.total.sparks_converted,
        s.total.sparks_fizzled,
        s.total.sparks_overflowed,
        secs,
    );
    // Eden's figures only for programs that made processes, so that GpH's
    // report keeps its shape.
    let eden = s.total.processes > 0;
    if eden {
        out.push_str(&format!(
            "EDEN: {} processes\n",
            thousands(s.total.processes)
        ));
    }
    if s.per_pe.len() <= 1 {
        // One simulated PE still has a virtual time to report.
        if let Some(v) = s.virtual_time {
            out.push_str(&format!(
                "ENGINE: {}, 1 PE, virtual time {v:.4}s\n",
                s.engine
            ));
        }
        return out;
    }
    out.push_str(&format!("ENGINE: {}, {}", s.engine, pes(s.per_pe.len())));
    if let Some(v) = s.virtual_time {
        out.push_str(&format!(", virtual time {v:.4}s"));
    }
    out.push('\n');
    if let Some(f) = &s.faults {
        out.push_str(&format!(
            "FAULTS: {} messages delayed, {} bursts, {} stalls, {} duplicate FISH\n",
            thousands(f.delayed),
            thousands(f.bursts),
            thousands(f.stalls),
            thousands(f.duplicated),
        ));
    }
    out.push('\n');
    // Two header lines: a group above each abbreviated column.
    let mut rows = vec![
        cells(&[
            "", "", "alloc", "", "", "sparks", "sparks", "fish", "", "busy", "idle", "blkd",
        ]),
        cells(&[
            "PE",
            "reductions",
            "MB",
            "GCs",
            "threads",
            "c/v/f/o",
            "exp/imp",
            "s/fw/fl",
            "fetches",
            "s",
            "s",
            "s",
        ]),
    ];
    rows.extend(
        s.per_pe
            .iter()
            .enumerate()
            .map(|(i, p)| pe_row(i.to_string(), p)),
    );
    rows.push(pe_row("total".into(), &PeStats::sum(&s.per_pe)));
    if eden {
        // Processes after threads.
        rows[0].insert(5, String::new());
        rows[1].insert(5, "procs".into());
        let procs = s.per_pe.iter().map(|p| p.processes);
        for (row, n) in rows[2..].iter_mut().zip(procs.chain([s.total.processes])) {
            row.insert(5, thousands(n));
        }
    }
    out.push_str(&columns(&rows, false));
    out.push('\n');
    let mut rows = vec![cells(&["MESSAGES", "count", "bytes"])];
    let (mut count, mut bytes) = (0, 0);
    for (kind, (c, b)) in &s.total.messages {
        rows.push(vec![format!("  {kind}"), thousands(*c), thousands(*b)]);
        count += c;
        bytes += b;
    }
    rows.push(vec!["  total".into(), thousands(count), thousands(bytes)]);
    out.push_str(&columns(&rows, true));
    let t = &s.total;
    if t.piggybacks > 0 {
        // A packet carries only what its receiver has not heard (gum2):
        // the mean over all packets is what the tables cost the network.
        out.push_str(&format!(
            "PIGGYBACK {} bytes of load tables on {} of {} packets ({:.1} a packet; {:.1} on each that carried some)\n",
            thousands(t.piggyback_bytes),
            thousands(t.piggybacks),
            thousands(t.packets.sent),
            t.piggyback_bytes as f64 / t.packets.sent.max(1) as f64,
            t.piggyback_bytes as f64 / t.piggybacks as f64
        ));
    }
    if s.total.packets.chunked() {
        out.push('\n');
        out.push_str(&packets_table(s));
    }
    out
}

/// The packets each PE sent: how many, messages per packet (mean, most),
/// bytes per packet, and why they left.
fn packets_table(s: &Stats) -> String {
    let mut rows = vec![
        cells(&["", "", "mean", "most", "mean", "flushed", "", "", ""]),
        cells(&[
            "PACKETS", "sent", "msgs", "msgs", "bytes", "urgent", "full", "timeout", "idle",
        ]),
    ];
    let row = |label: String, p: &PacketStats| {
        vec![
            label,
            thousands(p.sent),
            format!("{:.1}", p.mean_messages()),
            thousands(p.max_messages.0),
            format!("{:.0}", p.mean_bytes()),
            thousands(p.urgent),
            thousands(p.full),
            thousands(p.timeout),
            thousands(p.idle),
        ]
    };
    for (i, p) in s.per_pe.iter().enumerate() {
        rows.push(row(format!("  {i}"), &p.packets));
    }
    rows.push(row("  total".into(), &s.total.packets));
    columns(&rows, true)
}

fn cells(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|x| x.to_string()).collect()
}

/// One row of the per-PE table.
fn pe_row(label: String, p: &PeStats) -> Vec<String> {
    vec![
        label,
        thousands(p.reductions),
        format!("{:.1}", p.allocated_bytes as f64 / 1e6),
        thousands(p.gcs),
        thousands(p.threads),
        format!(
            "{}/{}/{}/{}",
            p.sparks_created, p.sparks_converted, p.sparks_fizzled, p.sparks_overflowed
        ),
        format!("{}/{}", p.sparks_exported, p.sparks_imported),
        format!("{}/{}/{}", p.fish_sent, p.fish_forwarded, p.fish_failed),
        thousands(p.fetches),
        format!("{:.3}", p.busy_s),
        format!("{:.3}", p.idle_s),
        format!("{:.3}", p.blocked_s),
    ]
}

/// Lays `rows` out in columns two spaces apart, right-aligned but for the
/// first column if `left_first`.
fn columns(rows: &[Vec<String>], left_first: bool) -> String {
    let mut widths: Vec<usize> = Vec::new();
    for row in rows {
        for (c, cell) in row.iter().enumerate() {
            let w = cell.chars().count();
            match widths.get_mut(c) {
                Some(old) => *old = (*old).max(w),
                None => widths.push(w),
            }
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, (cell, &w)) in row.iter().zip(&widths).enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            if c == 0 && left_first {
                line.push_str(&format!("{cell:<w$}"));
            } else {
                line.push_str(&format!("{cell:>w$}"));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_pe_stats() -> Stats {
        let pe = PeStats {
            reductions: 12_345_678,
            allocated_bytes: 987_654_321,
            gcs: 42,
            copied_bytes: 1_234_567,
            peak_heap_bytes: Max(8_388_608),
            threads: 7,
            sparks_created: 100,
            sparks_converted: 80,
            sparks_fizzled: 15,
            sparks_overflowed: 5,
            busy_s: 1.5,
            ..PeStats::default()
        };
        Stats {
            max_stack_bytes: 65_536,
            time: Duration::from_millis(1500),
            engine: "threads",
            pes: 1,
            ..Stats::new(vec![pe])
        }
    }

    /// A PE's statistics travel to the main PE whole (`mpi`), and
    /// garbage does not decode.
    #[test]
    fn pe_stats_survive_the_wire() {
        let mut pe = one_pe_stats().per_pe[0].clone();
        pe.idle_s = 0.125;
        pe.messages.insert("FISH", (3, 72));
        pe.messages.insert("RESUME", (56, 1_234_567));
        pe.packets.sent = 9;
        pe.packets.max_messages = Max(4);
        let wire = pe.to_wire();
        assert_eq!(PeStats::from_wire(&wire), Ok(pe));
        for n in 0..wire.len() {
            assert!(PeStats::from_wire(&wire[..n]).is_err(), "cut at {n}");
        }
        assert!(PeStats::from_wire(&[wire.clone(), vec![0]].concat()).is_err());
    }

    /// The report is the same with one PE as before there were many.
    #[test]
    fn one_pe_stats_unchanged() {
        let expected = "      12,345,678 reductions (8.2 M/s)
     987,654,321 bytes allocated in the heap
       1,234,567 bytes copied during GC
       8,388,608 bytes maximum heap size
          65,536 bytes maximum stack size
              42 collections
               7 threads
SPARKS: 100 (80 converted, 15 fizzled, 5 overflowed)
Total time 1.500s
";
        let mut s = one_pe_stats();
        assert_eq!(format_stats(&s), expected);
        // Messages change nothing on one PE; a virtual time is reported.
        s.engine = "sim";
        s.total.messages.insert("FISH", (3, 72));
        assert_eq!(format_stats(&s), expected);
        s.virtual_time = Some(0.25);
        let virt = format!("{expected}ENGINE: sim, 1 PE, virtual time 0.2500s\n");
        assert_eq!(format_stats(&s), virt);
        s.per_pe.clear();
        assert_eq!(format_stats(&s), virt);
    }

    #[test]
    fn many_pe_stats() {
        let pe = |i: u64| PeStats {
            reductions: 1_000_000 * (i + 1),
            allocated_bytes: 2_500_000 * (i + 1),
            gcs: i,
            threads: 10 + i,
            sparks_created: 100 * i,
            sparks_converted: 50 * i,
            sparks_fizzled: 3 * i,
            sparks_overflowed: i,
            sparks_exported: 7 * i,
            sparks_imported: 11 * i,
            fish_sent: 20 + i,
            fish_forwarded: 30 + i,
            fish_failed: 5 + i,
            fetches: 1_000 * i,
            busy_s: 0.125 * (i + 1) as f64,
            idle_s: 0.05,
            blocked_s: 0.01,
            ..PeStats::default()
        };
        let mut s = one_pe_stats();
        s.engine = "sim";
        s.pes = 3;
        s.virtual_time = Some(0.20244);
        s.per_pe = (0..3).map(pe).collect();
        s.total.messages.insert("FISH", (1_234, 29_616));
        s.total.messages.insert("FETCH", (56, 2_688));
        s.total.messages.insert("RESUME", (56, 1_234_567));
        let out = format_stats(&s);
        let totals = format_stats(&one_pe_stats());
        assert!(out.starts_with(&totals), "{out}");
        let rest = &out[totals.len()..];
        assert!(
            rest.starts_with("ENGINE: sim, 3 PEs, virtual time 0.2024s\n"),
            "{out}"
        );
        let words = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        let lines: Vec<Vec<String>> = rest.lines().map(words).collect();
        let row = |first: &str| {
            lines
                .iter()
                .find(|l| l.first().map(String::as_str) == Some(first))
                .unwrap_or_else(|| panic!("no row {first} in\n{out}"))
                .clone()
        };
        let pe_rows = ["0", "1", "2"].map(row);
        assert_eq!(
            pe_rows[0],
            words("0 1,000,000 2.5 0 10 0/0/0/0 0/0 20/30/5 0 0.125 0.050 0.010")
        );
        assert_eq!(
            pe_rows[2],
            words("2 3,000,000 7.5 2 12 200/100/6/2 14/22 22/32/7 2,000 0.375 0.050 0.010")
        );
        assert!(!lines
            .iter()
            .any(|l| l.first().map(String::as_str) == Some("3")));
        assert_eq!(row("FISH"), words("FISH 1,234 29,616"));
        assert_eq!(row("FETCH"), words("FETCH 56 2,688"));
        assert_eq!(row("RESUME"), words("RESUME 56 1,234,567"));
        // The PEs' total comes first, the messages' total last.
        assert_eq!(
            row("total"),
            words("total 6,000,000 15.0 3 33 300/150/9/3 21/33 63/93/18 3,000 0.750 0.150 0.030")
        );
        assert_eq!(lines.last().unwrap(), &words("total 1,346 1,266,871"));
        // Readable in a terminal of 100 columns.
        assert!(out.lines().all(|l| l.len() <= 100), "{out}");
    }

    /// Two PEs that sent `packets` (messages, bytes, why) each.
    fn sent(packets: &[(u32, u64, Flush)]) -> Stats {
        let mut pe = PeStats::default();
        for &(messages, bytes, why) in packets {
            pe.count(&Event::Packet {
                to: crate::parallel::ids::PeId(1),
                messages,
                bytes,
                why,
            });
        }
        Stats {
            engine: "sim",
            pes: 2,
            ..Stats::new(vec![pe.clone(), pe])
        }
    }

    #[test]
    fn packet_stats_only_when_a_message_waited() {
        // Every message a packet of its own, sent as it came: as before the
        // packet layer, and reported as before.
        let s = sent(&[(1, 24, Flush::Urgent), (1, 40, Flush::Urgent)]);
        assert_eq!(s.total.packets.sent, 4);
        assert!(!s.total.packets.chunked());
        assert!(!format_stats(&s).contains("PACKETS"));
        assert!(!to_json(&s, Duration::ZERO).contains("packets"));
        // One HEAD that waited (alone) is enough to report them all.
        for why in [Flush::Full, Flush::Timeout, Flush::Idle] {
            assert!(sent(&[(1, 24, why)]).total.packets.chunked());
        }
        let s = sent(&[
            (1, 24, Flush::Urgent),
            (5, 400, Flush::Urgent),
            (3, 200, Flush::Full),
            (2, 100, Flush::Timeout),
            (1, 36, Flush::Idle),
        ]);
        let out = format_stats(&s);
        let words = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        let row = |first: &str| {
            out.lines()
                .rev()
                .map(words)
                .find(|l| l.first().map(String::as_str) == Some(first))
                .unwrap_or_else(|| panic!("no row {first} in\n{out}"))
        };
        // Per PE: 5 packets of 12 messages, 760 bytes; the PEs together.
        assert_eq!(
            row("PACKETS"),
            words("PACKETS sent msgs msgs bytes urgent full timeout idle")
        );
        assert_eq!(row("1"), words("1 5 2.4 5 152 2 1 1 1"));
        assert_eq!(row("total"), words("total 10 2.4 5 152 4 2 2 2"));
        assert!(out.lines().all(|l| l.len() <= 100), "{out}");
        let json: serde_json::Value = serde_json::from_str(&to_json(&s, Duration::ZERO)).unwrap();
        let want = serde_json::json!({
            "sent": 10, "messages": 24, "bytes": 1520,
            "messages_per_packet": 2.4, "max_messages_per_packet": 5, "bytes_per_packet": 152.0,
            "flushes": {"urgent": 4, "full": 2, "timeout": 2, "idle": 2},
        });
        assert_eq!(json["packets"], want);
        assert_eq!(json["per_pe"][1]["packets"]["sent"], 5);
        assert_eq!(json["per_pe"][1]["packets"]["flushes"]["idle"], 1);
    }
}
