#!/usr/bin/env bash
# What each way of using lazytool costs to build, cold: the crates and the wall time of
#   tool      a crate with one `#[tool]` (lazytool-runtime, tokio, serde_json)
#   stdio     a stdio MCP server (the same plus lazytool-mcp, default features)
#   http      a streamable HTTP MCP server (lazytool-mcp, feature `server-http`)
#   gateway   `cargo build -p lazytool-gateway` (debug)
#   release   `cargo install --path lazytool-gateway` (the release profile)
#   dist      `cargo install --path lazytool-gateway --profile dist`
# Each in its own fresh target directory under $WORK, crates already downloaded (--offline),
# versions from the workspace's Cargo.lock. Prints one Markdown row per path, with the load
# average (`uptime`) before and after: on a busy machine the times say little.
#
#   bash bench/build_cost.sh                     # every path
#   PATHS="tool stdio" bash bench/build_cost.sh  # some
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$(mktemp -d /tmp/lazytool-build-cost.XXXXXX)}
mkdir -p "$WORK"
PATHS=${PATHS:-tool stdio http gateway release dist}
export CARGO_TERM_COLOR=never

load() { uptime | sed 's/.*load average: //'; }

# A throwaway binary crate `$1` depending on lazytool-runtime and, when $2 is given, on
# lazytool-mcp with the features $2 (`-` for none).
user_crate() {
  local dir="$WORK/$1" mcp=""
  mkdir -p "$dir/src"
  if [ -n "${2:-}" ]; then
    local features=""
    [ "$2" != "-" ] && features=", features = [\"$2\"]"
    mcp="lazytool-mcp = { path = \"$ROOT/lazytool-mcp\"$features }"
  fi
  cat >"$dir/Cargo.toml" <<EOF
[package]
name = "build-cost-$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
lazytool-runtime = { path = "$ROOT/lazytool-runtime" }
$mcp
serde_json = "1"
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }

[workspace]
EOF
  cp "$ROOT/Cargo.lock" "$dir/Cargo.lock"
  local serve='println!("{}", registry.len());'
  case "$1" in
    stdio) serve='lazytool_mcp::McpServer::new(registry).serve_stdio().await?;' ;;
    http) serve='lazytool_mcp::McpServer::new(registry).serve_http("127.0.0.1:8080").await?;' ;;
  esac
  cat >"$dir/src/main.rs" <<EOF
use lazytool_runtime::{Registry, tool};

/// Adds two numbers.
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::from_inventory()?;
    $serve
    Ok(())
}
EOF
  echo "$dir"
}

# `cargo tree -e normal`'s distinct packages (the crate itself and lazytool's included).
tree_count() { cargo tree --offline -e normal --prefix none "$@" | sed 's/ (\*)$//; s/ (proc-macro)$//' | sort -u | wc -l; }

# Runs the cold build "$@" in a fresh target directory; prints `compiled seconds`.
timed_build() {
  local log="$WORK/$name.log" start end
  start=$(date +%s.%N)
  CARGO_TARGET_DIR="$WORK/$name-target" "$@" >"$log" 2>&1 || { tail -20 "$log" >&2; return 1; }
  end=$(date +%s.%N)
  echo "$(grep -c '^ *Compiling ' "$log") $(echo "$end - $start" | bc)"
}

echo "| path | crates in \`cargo tree -e normal\` | crates compiled | cold build | load before / after |"
echo "|---|---:|---:|---:|---|"
for name in $PATHS; do
  before=$(load)
  case "$name" in
    tool | stdio | http)
      features=""; [ "$name" = stdio ] && features=-; [ "$name" = http ] && features=server-http
      dir=$(user_crate "$name" $features)
      tree=$(cd "$dir" && tree_count)
      out=$(cd "$dir" && timed_build cargo build --offline) ;;
    gateway)
      tree=$(cd "$ROOT" && tree_count -p lazytool-gateway)
      out=$(cd "$ROOT" && timed_build cargo build --offline --locked -p lazytool-gateway) ;;
    release | dist)
      tree=$(cd "$ROOT" && tree_count -p lazytool-gateway)
      # `cargo install` builds the release profile unless told otherwise.
      profile=(--profile release); [ "$name" = dist ] && profile=(--profile dist)
      out=$(cd "$ROOT" && timed_build cargo install --offline --locked --path lazytool-gateway \
        "${profile[@]}" --root "$WORK/$name-root" --target-dir "$WORK/$name-target") ;;
    *) echo "unknown path: $name (expected tool, stdio, http, gateway, release or dist)" >&2; exit 2 ;;
  esac
  read -r compiled secs <<<"$out"
  # A cold target directory takes a gigabyte or more: gone once measured.
  rm -rf "$WORK/$name-target" "$WORK/$name-root"
  printf '| %s | %s | %s | %.0f s | %s / %s |\n' "$name" "$tree" "$compiled" "$secs" "$before" "$(load)"
done
