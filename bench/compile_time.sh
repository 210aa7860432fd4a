#!/usr/bin/env bash
# Compile time of 200 `#[tool]` fns (lazytool) vs the same 200 tools written by hand
# (serde/schemars derives, a `match` dispatch, a registration table) and with rmcp's macros
# (`#[tool_router]`, `Parameters<T>`); tools only, served over stdio and over streamable HTTP
# (issues 6 and 51).
#
#   bash bench/compile_time.sh            # from the workspace root
#   RUNS=5 TOOLS=1000 MODES=debug CRATES="generated rmcp" bash bench/compile_time.sh
#
# Generates target/bench-compile/{generated,handwritten,rmcp}{,-stdio,-http} (no handwritten server)
# (bench/compile_time/gen.py says what each is; each its own `[workspace]`, with a copy of the
# workspace's Cargo.lock so that dependency versions match), builds their dependencies once
# (target/bench-compile/target), then times the rebuild of each crate alone:
# `touch src/main.rs && cargo build [--release]`, RUNS times, the crates interleaved.
# The lazytool crates are built as cargo builds a crate from crates.io (without incremental
# compilation: gen.py's profile overrides), as rmcp is.
# Modes: debug (cargo's default dev profile, incremental), debug-full (dev, incremental off
# for the bench crate only: a from-scratch compile of the crate), release.
# Reports the median wall time and the median CPU time (user+sys of cargo and rustc; less
# sensitive to other load on the machine), each binary's size, and the ratios of lazytool to
# handwritten and to rmcp. Targets (issue 51): debug rebuild <= 1.2x handwritten and <= rmcp.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/bench-compile"
RUNS="${RUNS:-3}"
TOOLS="${TOOLS:-200}"
MODES="${MODES:-debug debug-full release}"
CRATES="${CRATES:-generated handwritten rmcp generated-stdio rmcp-stdio generated-http rmcp-http}"
TIMINGS="${TIMINGS:-1}"
EXPANSION="${EXPANSION:-1}"
export CARGO_TARGET_DIR="$OUT/target"

mkdir -p "$OUT"
for crate in $CRATES; do
  mkdir -p "$OUT/$crate"
  cp "$ROOT/Cargo.lock" "$OUT/$crate/Cargo.lock"
done
CRATES="$CRATES" python3 "$ROOT/bench/compile_time/gen.py" "$OUT" "$ROOT" "$ROOT/Cargo.lock" "$TOOLS"

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

binary() { # MODE CRATE
  case "$1" in release) echo "$CARGO_TARGET_DIR/release/bench-$2" ;; *) echo "$CARGO_TARGET_DIR/debug/bench-$2" ;; esac
}

echo "compile_time: $TOOLS tools, $RUNS runs per figure, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cpus, $(rustc --version), load $(cut -d' ' -f1-3 /proc/loadavg)"
summary=()
for mode in $MODES; do
  echo "== $mode: building dependencies" >&2
  for crate in $CRATES; do
    (cd "$OUT/$crate" && cargo build $(cargo_args "$mode" "$crate") 2>&1 | tail -1) >&2
  done
  : >"$OUT/$mode.txt"
  for run in $(seq "$RUNS"); do
    for crate in $CRATES; do
      read -r wall cpu < <(timed_build "$mode" "$crate")
      echo "$crate $wall $cpu" >>"$OUT/$mode.txt"
      printf '%-11s %-16s run %s: wall %6.2f s  cpu %6.2f s\n' "$mode" "$crate" "$run" "$wall" "$cpu"
    done
  done
  for crate in $CRATES; do
    wall=$(awk -v c="$crate" '$1 == c { print $2 }' "$OUT/$mode.txt" | median)
    cpu=$(awk -v c="$crate" '$1 == c { print $3 }' "$OUT/$mode.txt" | median)
    size=$(stat -c %s "$(binary "$mode" "$crate")")
    echo "$crate $wall $cpu $size" >>"$OUT/$mode.medians.txt.new"
    summary+=("$(printf '%-11s %-16s wall %6.2f s  cpu %6.2f s  binary %6.1f MB' "$mode" "$crate" "$wall" "$cpu" "$(awk -v s="$size" 'BEGIN { print s / 1e6 }')")")
  done
  mv "$OUT/$mode.medians.txt.new" "$OUT/$mode.medians.txt"
  if [ "$TIMINGS" = 1 ]; then
    for crate in $CRATES; do
      touch "$OUT/$crate/src/main.rs"
      (cd "$OUT/$crate" && cargo build $(cargo_args "$mode" "$crate") --timings >/dev/null 2>&1)
      report=$(ls -t "$CARGO_TARGET_DIR"/cargo-timings/cargo-timing-*.html | head -1)
      cp "$report" "$OUT/timings-$mode-$crate.html"
      summary+=("$(python3 "$ROOT/bench/compile_time/timings.py" "$report" "bench-$crate" "$mode")")
    done
  fi
  for pair in generated/handwritten generated/rmcp generated-stdio/rmcp-stdio generated-http/rmcp-http; do
    a=${pair%/*} b=${pair#*/}
    line=$(awk -v a="$a" -v b="$b" -v m="$mode" '
      $1 == a { aw = $2; ac = $3; as = $4 } $1 == b { bw = $2; bc = $3; bs = $4 }
      END { if (aw && bw) printf "%-11s %-27s ratio wall %.2f cpu %.2f binary %.2f", m, a "/" b, aw / bw, ac / bc, as / bs }' "$OUT/$mode.medians.txt")
    [ -n "$line" ] && summary+=("$line")
  done
done
if [ "$EXPANSION" = 1 ]; then
  for crate in $CRATES; do
    bytes=$(cd "$OUT/$crate" && RUSTC_BOOTSTRAP=1 cargo rustc --offline -q -- -Zunpretty=expanded 2>/dev/null | wc -c)
    summary+=("$(awk -v c="$crate" -v b="$bytes" -v n="$TOOLS" 'BEGIN { printf "expansion   %-16s %9d bytes, %7.0f bytes per tool", c, b, b / n }')")
  done
fi
echo "== medians (targets: debug generated/handwritten <= 1.2, generated/rmcp <= 1.0)"
printf '%s\n' "${summary[@]}"
