#!/usr/bin/env bash
# Compile time of 200 `#[tool]` fns (lazytool) vs the same 200 tools written by hand
# (serde/schemars derives, a `match` dispatch, a registration table). Issue 6, item 5.
#
#   bash bench/compile_time.sh            # from the workspace root
#   RUNS=5 TOOLS=200 bash bench/compile_time.sh
#
# Generates target/bench-compile/{generated,handwritten} (each its own `[workspace]`, with
# a copy of the workspace's Cargo.lock so that dependency versions match), builds their
# dependencies once (target/bench-compile/target), then times the rebuild of each crate alone:
# `touch src/main.rs && cargo build [--release]`, RUNS times, the two crates interleaved.
# Modes: debug (cargo's default dev profile, incremental), debug-full (dev, incremental off
# for the bench crate only: a from-scratch compile of the crate), release.
# Reports the median wall time and the median CPU time (user+sys of cargo and rustc; less
# sensitive to other load on the machine) and the ratio generated/handwritten. Target: <= 1.3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/bench-compile"
RUNS="${RUNS:-3}"
TOOLS="${TOOLS:-200}"
MODES="${MODES:-debug debug-full release}"
export CARGO_TARGET_DIR="$OUT/target"

mkdir -p "$OUT"
for crate in generated handwritten; do
  mkdir -p "$OUT/$crate"
  cp "$ROOT/Cargo.lock" "$OUT/$crate/Cargo.lock"
done
python3 "$ROOT/bench/compile_time/gen.py" "$OUT" "$ROOT/lazytool-runtime" "$ROOT/Cargo.lock" "$TOOLS"

cargo_args() { # MODE CRATE
  case "$1" in
    debug) echo "--offline" ;;
    debug-full) echo "--offline --config profile.dev.package.bench-$2.incremental=false" ;;
    release) echo "--offline --release" ;;
  esac
}

# One timed rebuild; prints "wall cpu". Retries when something besides the crate was
# rebuilt (someone edited lazytool-runtime in between).
timed_build() { # MODE CRATE
  local mode=$1 crate=$2 try
  for try in 1 2 3 4 5; do
    (cd "$OUT/$crate" && cargo build $(cargo_args "$mode" "$crate") >/dev/null 2>&1) # dependencies fresh
    touch "$OUT/$crate/src/main.rs"
    (cd "$OUT/$crate" && /usr/bin/time -f '%e %U %S' -o "$OUT/time.txt" \
      cargo build $(cargo_args "$mode" "$crate") 2>"$OUT/build.log")
    if [ "$(grep -c '^ *Compiling' "$OUT/build.log")" = 1 ]; then
      awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$OUT/time.txt"
      return
    fi
    echo "  (retry: dependencies were rebuilt)" >&2
  done
  echo "dependencies keep changing; giving up" >&2
  exit 1
}

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

echo "compile_time: $TOOLS tools, $RUNS runs per figure, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cpus, $(rustc --version)"
summary=()
for mode in $MODES; do
  echo "== $mode: building dependencies" >&2
  for crate in generated handwritten; do
    (cd "$OUT/$crate" && cargo build $(cargo_args "$mode" "$crate") 2>&1 | tail -1) >&2
  done
  : >"$OUT/$mode.txt"
  for run in $(seq "$RUNS"); do
    for crate in generated handwritten; do
      read -r wall cpu < <(timed_build "$mode" "$crate")
      echo "$crate $wall $cpu" >>"$OUT/$mode.txt"
      printf '%-11s %-11s run %s: wall %6.2f s  cpu %6.2f s\n' "$mode" "$crate" "$run" "$wall" "$cpu"
    done
  done
  g_wall=$(awk '$1 == "generated" { print $2 }' "$OUT/$mode.txt" | median)
  h_wall=$(awk '$1 == "handwritten" { print $2 }' "$OUT/$mode.txt" | median)
  g_cpu=$(awk '$1 == "generated" { print $3 }' "$OUT/$mode.txt" | median)
  h_cpu=$(awk '$1 == "handwritten" { print $3 }' "$OUT/$mode.txt" | median)
  summary+=("$(awk -v m="$mode" -v gw="$g_wall" -v hw="$h_wall" -v gc="$g_cpu" -v hc="$h_cpu" 'BEGIN {
    printf "%-11s generated %6.2f s (cpu %6.2f)  handwritten %6.2f s (cpu %6.2f)  ratio wall %.2f cpu %.2f", m, gw, gc, hw, hc, gw / hw, gc / hc }')")
done
echo "== medians (target: ratio <= 1.3)"
printf '%s\n' "${summary[@]}"
