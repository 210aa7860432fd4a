#!/usr/bin/env bash
# Code mode's benchmark (issue 37, item 6): tokens and round trips of 12 multi-step tasks over
# the GitHub MCP catalog solved four ways, then a script's start, the cost of a tool call from
# a script, and the memory of 100 concurrent scripts.
#   bash bench/code_mode.sh [--tasks | --costs] [CATALOG.json]    # from the workspace root
# Builds bench/code_mode (its own workspace, the workspace's Cargo.lock versions) in release
# into the workspace's target/ (the runtime's release build with `code-mode` is shared with
# `cargo bench -p lazytool-runtime`) and runs it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cp "$ROOT/Cargo.lock" "$ROOT/bench/code_mode/Cargo.lock"
export CARGO_TARGET_DIR="$ROOT/target"
cd "$ROOT"
exec cargo run --release --offline --quiet --manifest-path "$ROOT/bench/code_mode/Cargo.toml" -- "$@"
