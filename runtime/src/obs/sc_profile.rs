//! Where the reductions go: with `GPH_SC_PROFILE=FILE`, every PE counts
//! how often each supercombinator (a function, a thunk's code, a CAF) is
//! entered, and when the PE is done appends one line per supercombinator
//! entered, `COUNT NAME`, to FILE (PEs of one run append in turn; sum by
//! name for a run's total). A developer's tool for the one-PE speed work
//! (docs/backend.md): GHC's `+RTS -p` entry counts, without the time.
//! Off, it costs nothing a reduction: the reducer counts on its slow
//! path (the mail check), which a profiling run takes at every entry.

use crate::machine::load::Loaded;
use std::io::Write;

/// The counters a PE starts with: one per code position if profiling.
pub(crate) fn counters(l: &Loaded) -> Vec<u64> {
    if std::env::var_os("GPH_SC_PROFILE").is_some_and(|f| !f.is_empty()) {
        vec![0; l.ops.len().max(1)]
    } else {
        Vec::new()
    }
}

/// Appends a PE's counts to the file, most entered first.
pub(crate) fn write(l: &Loaded, counts: &[u64]) {
    let Some(file) = std::env::var_os("GPH_SC_PROFILE") else {
        return;
    };
    let mut rows: Vec<(u64, &str)> = l
        .scs
        .iter()
        .zip(&l.prog.scs)
        .filter_map(|(info, sc)| {
            let n = counts.get(info.entry as usize).copied().unwrap_or(0);
            (n > 0).then_some((n, sc.name.as_str()))
        })
        .collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let text: String = rows
        .iter()
        .map(|(n, name)| format!("{n} {name}\n"))
        .collect();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
    {
        let _ = f.write_all(text.as_bytes());
    }
}
