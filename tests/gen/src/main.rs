//! gph-gen: generates random well-typed Tier 1 programs and checks that
//! `gph run` prints what GHC prints for them (see the README, "Tests").
//!
//! * `gph-gen print --seed S`: the program of seed S.
//! * `gph-gen check --seed S --count N [--jobs J] [--gph PATH] [--keep DIR]`:
//!   programs S .. S+N-1 through the oracle and gph in every configuration;
//!   failures are shrunk and written to DIR; a summary at the end.
//! * `gph-gen corpus --seed S --count N --out DIR`: golden files
//!   (NAME.gph, NAME.stdout, NAME.exitcode) as in tests/programs.

use clap::{Parser, Subcommand};
use gph_gen::driver::{corpus, run_check, Settings};
use gph_gen::{check, gen, print};
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "Random well-typed gph programs, checked against GHC")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Prints the program of one seed.
    Print {
        #[arg(long)]
        seed: u64,
    },
    /// Generates programs, runs them under GHC and gph, shrinks failures.
    Check {
        #[arg(long)]
        seed: u64,
        #[arg(long, default_value_t = 100)]
        count: u64,
        /// Programs checked at the same time.
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        /// The gph binary (default: beside gph-gen, else on PATH).
        #[arg(long)]
        gph: Option<PathBuf>,
        /// The oracle (default: $ORACLE, else ../shared/tools/oracle).
        #[arg(long)]
        oracle: Option<PathBuf>,
        /// Where failing programs and their shrunk versions go.
        #[arg(long)]
        keep: Option<PathBuf>,
        /// Do not shrink failures.
        #[arg(long)]
        no_shrink: bool,
        /// Most oracle runs spent shrinking one failure.
        #[arg(long, default_value_t = 150)]
        shrink_budget: usize,
        /// Programs compiled in one GHC run (1: the oracle for each program).
        #[arg(long, default_value_t = 8)]
        batch: usize,
        /// Failures shrunk per kind and configuration (the rest are kept unshrunk).
        #[arg(long, default_value_t = 3)]
        shrink_max: usize,
    },
    /// Writes golden files NAME.gph, NAME.stdout (and NAME.exitcode) from the oracle.
    Corpus {
        #[arg(long)]
        seed: u64,
        #[arg(long, default_value_t = 100)]
        count: u64,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        #[arg(long)]
        oracle: Option<PathBuf>,
    },
}

fn main() {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Print { seed } => print!("{}", print::print_program(&gen::generate(seed))),
        Cmd::Check {
            seed,
            count,
            jobs,
            gph,
            oracle,
            keep,
            no_shrink,
            shrink_budget,
            shrink_max,
            batch,
        } => {
            let gph = gph.unwrap_or_else(check::default_gph);
            let oracle = oracle.unwrap_or_else(check::default_oracle);
            let ok = run_check(&Settings {
                seed,
                count,
                jobs,
                gph,
                oracle,
                keep,
                shrink_budget,
                shrink_max: if no_shrink { 0 } else { shrink_max },
                batch,
            });
            std::process::exit(if ok { 0 } else { 1 });
        }
        Cmd::Corpus {
            seed,
            count,
            out,
            jobs,
            oracle,
        } => {
            let oracle = oracle.unwrap_or_else(check::default_oracle);
            corpus(seed, count, &out, jobs, &oracle);
        }
    }
}
