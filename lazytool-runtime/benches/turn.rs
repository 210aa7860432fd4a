//! Per-turn cost (work in progress).

fn main() {}
