//! Grid and machine files (TOML) on any text: a grid or a located error,
//! never a panic; a grid that parses runs on any number of its PEs or
//! says why not.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(grid) = gph_runtime::engine::grid::Grid::parse(text, "fuzz.toml") {
        for n in [1, 2, grid.len(), 64] {
            let _ = grid.with_pes(n);
        }
    }
});
