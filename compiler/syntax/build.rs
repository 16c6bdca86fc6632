fn main() {
    // lalrpop's lane-table construction reports spurious conflicts on this
    // grammar; the canonical LR(1) construction is exact and fast enough.
    std::env::set_var("LALRPOP_LANE_TABLE", "disabled");
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .process()
        .expect("grammar");
}
