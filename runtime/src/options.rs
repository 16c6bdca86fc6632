//! The options of a run that change a PE's `Tuning` (the load policy's
//! knobs and the packet layer's), each written once: the field with its
//! help text here, which the `gph` command flattens into `run`'s and the
//! REPL's arguments (clap), and what it changes in `apply`. What each
//! knob means is in `Tuning` (`machine/pe.rs`).

use crate::machine::pe::Tuning;

/// What a run changes of the default `Tuning`; `Default` changes nothing.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Overrides {
    /// Most live threads per PE (Grid-GUM's thread limitation).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub thread_limit: Option<u32>,
    /// A busy PE with fewer sparks than this fishes for more (default: 0
    /// under gum, fish only when idle; 2 under gum2, scaled by speed).
    #[arg(long, value_name = "N")]
    pub low_watermark: Option<usize>,
    /// Under gum2, a fast PE of another cluster that fishes gets its fair
    /// share of the pool at once (Grid-GUM2's super-schedule; off by
    /// default: it made most of the measured runs slower, docs/parallel.md).
    #[arg(long)]
    pub super_schedule: bool,
    /// Milliseconds a PE waits after a fish came home empty before it
    /// sends another (GUM's fish delay; default 1).
    #[arg(long, value_name = "MS", value_parser = parse_millis)]
    pub fish_delay: Option<std::time::Duration>,
    /// Send every message as a packet of its own (the packet layer gathers
    /// the stream elements for one PE into packets by default).
    #[arg(long)]
    pub no_chunking: bool,
    /// The largest packet of gathered messages, in bytes (default 64K); a
    /// larger message travels alone.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub packet_size: Option<u64>,
    /// Milliseconds a stream element waits at most for others to travel
    /// with (default 1).
    #[arg(long, value_name = "MS", value_parser = parse_millis)]
    pub chunk_timeout: Option<std::time::Duration>,
    /// Reductions a thread runs before the PE turns to its messages and
    /// other threads (default 20000; GHC's context switch, -C).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub slice: Option<u64>,
}

impl Overrides {
    /// `tuning` with these changes.
    pub fn apply(&self, tuning: &mut Tuning) {
        if let Some(t) = self.thread_limit {
            tuning.thread_limit = (t as usize).max(1);
        }
        if let Some(w) = self.low_watermark {
            tuning.low_watermark = Some(w);
        }
        tuning.super_schedule |= self.super_schedule;
        if let Some(d) = self.fish_delay {
            tuning.fish_delay = d;
        }
        if self.no_chunking {
            tuning.chunking.enabled = false;
        }
        if let Some(b) = self.packet_size {
            tuning.chunking.packet_size = b as usize;
        }
        if let Some(t) = self.chunk_timeout {
            tuning.chunking.timeout = t;
        }
        if let Some(n) = self.slice {
            tuning.slice = n;
        }
    }

    /// The changes in a few words each, after the policy's name (what an
    /// eventlog's or a trace's description of the run says).
    pub fn describe(&self, policy: &mut String) {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        if let Some(n) = self.thread_limit {
            policy.push_str(&format!(", thread limit {n}"));
        }
        if let Some(n) = self.low_watermark {
            policy.push_str(&format!(", low watermark {n}"));
        }
        if self.super_schedule {
            policy.push_str(", super-schedule");
        }
        if let Some(d) = self.fish_delay {
            policy.push_str(&format!(", fish delay {} ms", ms(d)));
        }
        if self.no_chunking {
            policy.push_str(", no chunking");
        }
        if let Some(b) = self.packet_size {
            policy.push_str(&format!(", packets of {b} bytes"));
        }
        if let Some(d) = self.chunk_timeout {
            policy.push_str(&format!(", chunk timeout {} ms", ms(d)));
        }
        if let Some(n) = self.slice {
            policy.push_str(&format!(", slices of {n} reductions"));
        }
    }
}

/// Milliseconds (`0.5`, `2`) as a duration.
pub fn parse_millis(s: &str) -> Result<std::time::Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(ms) if (0.0..=60_000.0).contains(&ms) => {
            Ok(std::time::Duration::from_secs_f64(ms / 1000.0))
        }
        _ => Err(format!(
            "`{s}` is not a number of milliseconds from 0 to 60000"
        )),
    }
}

/// `123`, `64K`, `512M`, `4G` (binary units) as bytes.
/// The smallest `--heap-limit`: a PE's heap holds the program's static
/// area and room to run, and a limit that cannot is a mistake to say at
/// once, not "heap exhausted" once the program has started.
pub const MIN_HEAP_LIMIT: u64 = 4 << 20;

/// `--heap-limit`'s value: a size of at least [`MIN_HEAP_LIMIT`].
pub fn parse_heap_limit(s: &str) -> Result<u64, String> {
    let b = parse_size(s)?;
    if b < MIN_HEAP_LIMIT {
        return Err(format!(
            "`{s}` is below the smallest heap limit, {}M",
            MIN_HEAP_LIMIT >> 20
        ));
    }
    Ok(b)
}

pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size such as 512M or 4G"))?;
    let scale: u64 = match unit.to_ascii_uppercase().trim_end_matches('B') {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return Err(format!("`{s}`: the unit must be K, M or G")),
    };
    n.checked_mul(scale)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("`{s}` is not a usable size"))
}
