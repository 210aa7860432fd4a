#!/usr/bin/env bash
# Peak RSS of 10,000 dynamic tools and of 1,000 live sessions (issue 6, item 6).
#   bash bench/memory.sh [CATALOG.json] [TOOLS] [SESSIONS]     # from the workspace root
# Builds bench/memory (its own workspace, the workspace's Cargo.lock versions) in release
# into target/bench-memory and runs it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cp "$ROOT/Cargo.lock" "$ROOT/bench/memory/Cargo.lock"
export CARGO_TARGET_DIR="$ROOT/target/bench-memory"
exec cargo run --release --offline --quiet --manifest-path "$ROOT/bench/memory/Cargo.toml" -- "$@"
