#!/usr/bin/env bash
# Search quality on BFCL v4 and search cost at 100,000 tools (issue 26).
#   bash bench/search.sh [quality|scale|all] [--misses FILE]      # from the workspace root
# Installs the wheel bfcl-eval==2026.3.23 (its data only: --no-deps) into a venv under
# target/bench-search (downloaded on the first run, never committed), extracts its
# single-turn sets with bench/search/bfcl.py, then builds bench/search (its own workspace:
# the workspace's Cargo.lock versions plus tantivy) in release and runs it.
#   bash bench/search.sh features FILE     # what the search weighs per question, for
#                                          # bench/search/fit.py (see its top)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/bench-search"
VENV="$OUT/venv"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import importlib.metadata as m; assert m.version("bfcl-eval") == "2026.3.23"' 2>/dev/null; then
    "$VENV/bin/pip" install --quiet --no-deps "bfcl-eval==2026.3.23"
fi
DATA_DIR="$("$VENV/bin/python" -c 'import importlib.util as u, pathlib; print(pathlib.Path(u.find_spec("bfcl_eval").origin).parent / "data")')"
"$VENV/bin/python" "$ROOT/bench/search/bfcl.py" "$DATA_DIR" "$OUT/data"
cp "$ROOT/Cargo.lock" "$ROOT/bench/search/Cargo.lock"
export CARGO_TARGET_DIR="$OUT"
FEATURES=()
if [ "${1:-}" = features ]; then
    # Only then: the index keeps the frequencies behind its scores, which would count in the
    # scale figures.
    FEATURES=(--features search-features)
fi
cargo build --release --quiet --manifest-path "$ROOT/bench/search/Cargo.toml" "${FEATURES[@]}"
exec "$OUT/release/lazytool-bench-search" "$OUT/data" "$@"
