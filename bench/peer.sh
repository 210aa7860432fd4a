#!/usr/bin/env bash
# The peer benchmark of MCP over streamable HTTP (issue 23, item 6): the same `add(a, b)` tool
# served by lazytool, rmcp, the TypeScript SDK and the Python SDK, the ceiling `hyper` (a
# bare hyper server answering the stateless call with lazytool's bytes, no MCP: issue 36) and
# the floor of MCP in rmcp's types, `floor` (the same bare server reading and answering the
# stateless call through rmcp's model types, no guard, session or handler), driven by one load
# generator (bench/peer/src/bin/peer_load) in interleaved rounds; prints one table, and each
# server's requests/s as a share of the ceiling's in the same rounds.
#
#   bash bench/peer.sh                       # from the workspace root: 3 rounds of 2 s runs (~5 min)
#   bash bench/peer.sh --long                # 5 rounds of 10 s runs (~20 min)
#   bash bench/peer.sh --rounds N --seconds S --warmup S --clients "1 8 64"
#   bash bench/peer.sh --lazytool NAME=PATH  # also a lazytool_add built elsewhere (another
#                                            # branch), as server NAME in the same rounds
#   bash bench/peer.sh --only "lazytool rmcp"  # only these servers (hyper, floor, lazytool, the
#                                              # --lazytool builds, rmcp, typescript, python)
#   bash bench/peer.sh --pin                 # servers on CPU 0, the load generator on CPU 1
#                                            # (taskset): neither waits for the other's core
#
# Builds bench/peer (its own workspace, the workspace's Cargo.lock versions, lazytool from this
# checkout) in release into target/bench-peer, installs the pinned TypeScript SDK into
# target/bench-peer/node (npm ci) and the pinned Python SDK into target/bench-peer/venv. Every
# server binds 127.0.0.1 on a free port and is stopped when the script ends, however it ends.
# Records (one JSON line per run) go to target/bench-peer/results-TIME.jsonl.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEER="$ROOT/bench/peer"
OUT="$ROOT/target/bench-peer"
ROUNDS=3
SECONDS_PER_RUN=2
WARMUP=0.5
CLIENTS="1 8 64"
OTHER_LAZYTOOLS=()
ONLY=""
SERVER_PIN=()
LOAD_PIN=()

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }
while (($#)); do
    case "$1" in
        --rounds|--seconds|--warmup|--clients|--lazytool|--only)
            (($# >= 2)) || { echo "peer.sh: $1 needs a value" >&2; exit 2; } ;;
    esac
    case "$1" in
        --long) ROUNDS=5 SECONDS_PER_RUN=10 WARMUP=1 ;;
        --rounds) ROUNDS="$2"; shift ;;
        --seconds) SECONDS_PER_RUN="$2"; shift ;;
        --warmup) WARMUP="$2"; shift ;;
        --clients) CLIENTS="$2"; shift ;;
        --only) ONLY="$2"; shift ;;
        --pin) SERVER_PIN=(taskset -c 0) LOAD_PIN=(taskset -c 1) ;;
        --lazytool)
            [[ "$2" == ?*=?* ]] || { echo "peer.sh: --lazytool wants NAME=PATH, got \`$2\`" >&2; exit 2; }
            OTHER_LAZYTOOLS+=("$2"); shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "peer.sh: unknown argument \`$1\`" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

mkdir -p "$OUT"
# wanted NAME: whether server NAME runs (every one unless --only names them).
wanted() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }

echo "== building (release) and installing the SDKs" >&2
cp "$ROOT/Cargo.lock" "$PEER/Cargo.lock"
CARGO_TARGET_DIR="$OUT" cargo build --release --quiet --manifest-path "$PEER/Cargo.toml"
BIN="$OUT/release"

NODE_DIR="$OUT/node"
if wanted typescript; then
    mkdir -p "$NODE_DIR"
    if ! cmp -s "$PEER/package-lock.json" "$NODE_DIR/package-lock.json" || [ ! -d "$NODE_DIR/node_modules" ]; then
        cp "$PEER/package.json" "$PEER/package-lock.json" "$NODE_DIR/"
        (cd "$NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error >&2)
    fi
    # Node resolves the SDK from the script's own directory.
    cp "$PEER/ts_server.mjs" "$NODE_DIR/"
fi

VENV="$OUT/venv"
if wanted python && ! cmp -s "$PEER/requirements.txt" "$VENV/requirements.txt"; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$PEER/requirements.txt" >&2
    cp "$PEER/requirements.txt" "$VENV/requirements.txt"
fi

PIDS=()
stop_servers() {
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
trap stop_servers EXIT
trap 'exit 130' INT TERM

# start NAME COMMAND...: runs a server, waits for its `listening URL` line; sets URL and PID.
start() {
    local name="$1" log="$OUT/$1.log"
    shift
    : >"$log" # before the server's shell opens it, so that the wait below can read it at once
    "${SERVER_PIN[@]}" "$@" >"$log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
    for _ in $(seq 300); do
        URL="$(sed -n 's/^listening \(http:[^ ]*\)$/\1/p' "$log" | head -n 1)"
        [ -n "$URL" ] && return 0
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "peer.sh: $name did not start; its log ($log):" >&2
    cat "$log" >&2
    exit 1
}

# RUNS: "server flow url pid" per line, in the order each round runs them.
RUNS=""
if wanted hyper; then
    # Only the stateless call: the ceiling has no sessions to open.
    start hyper "$BIN/hyper_add"
    RUNS+="hyper stateless $URL $PID"$'\n'
fi
if wanted floor; then
    # Only the stateless call, as the ceiling: MCP in rmcp's types on the bare server.
    start floor "$BIN/floor_add"
    RUNS+="floor stateless $URL $PID"$'\n'
fi
if wanted lazytool; then
    start lazytool "$BIN/lazytool_add"
    RUNS+="lazytool stateful $URL $PID"$'\n'"lazytool stateless $URL $PID"$'\n'
fi
for other in "${OTHER_LAZYTOOLS[@]}"; do
    wanted "${other%%=*}" || continue
    start "${other%%=*}" "${other#*=}"
    RUNS+="${other%%=*} stateful $URL $PID"$'\n'"${other%%=*} stateless $URL $PID"$'\n'
done
if wanted rmcp; then
    start rmcp "$BIN/rmcp_add"
    RUNS+="rmcp stateful $URL $PID"$'\n'"rmcp stateless $URL $PID"$'\n'
fi
if wanted typescript; then
    start ts node "$NODE_DIR/ts_server.mjs"
    RUNS+="typescript stateful $URL $PID"$'\n'
    start ts-stateless node "$NODE_DIR/ts_server.mjs" --stateless
    RUNS+="typescript sessionless $URL $PID"$'\n'
fi
if wanted python; then
    start python "$VENV/bin/python" "$PEER/python_server.py"
    RUNS+="python stateful $URL $PID"$'\n'"python stateless $URL $PID"$'\n'
fi
[ -n "$RUNS" ] || { echo "peer.sh: --only \`$ONLY\` names no server" >&2; exit 2; }

RESULTS="$OUT/results-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
: >"$RESULTS"
echo "== $ROUNDS round(s) x clients {$CLIENTS} x $(grep -c . <<<"$RUNS") server modes, ${SECONDS_PER_RUN} s each after ${WARMUP} s of warm-up" >&2
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
    for clients in $CLIENTS; do
        while read -r server flow url pid; do
            [ -n "$server" ] || continue
            echo "   round $round, $clients client(s): $server $flow" >&2
            "${LOAD_PIN[@]}" "$BIN/peer_load" run --url "$url" --server "$server" --flow "$flow" --clients "$clients" \
                --seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" --round "$round" --pid "$pid" >>"$RESULTS"
        done <<<"$RUNS"
    done
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

LAZYTOOL_BUILD="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$ROOT" status --porcelain -- lazytool-runtime lazytool-mcp lazytool-macros 2>/dev/null)" ]; then
    LAZYTOOL_BUILD+=" (with uncommitted changes)"
fi
echo
"$BIN/peer_load" table "$RESULTS"
echo
VERSIONS="lazytool built from $LAZYTOOL_BUILD"
if wanted hyper; then
    VERSIONS+="; hyper $(sed -n '/^name = "hyper"$/{n;s/^version = "\(.*\)"$/\1/p;}' "$PEER/Cargo.lock")"
fi
if wanted typescript; then
    VERSIONS+="; $(node --version) $(grep -m1 '"version"' "$NODE_DIR/node_modules/@modelcontextprotocol/sdk/package.json" | tr -d ' ,"' | sed 's/version:/@modelcontextprotocol\/sdk /')"
fi
if wanted python; then
    VERSIONS+="; $("$VENV/bin/python" --version) mcp $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"
fi
echo "$VERSIONS"
PINNED=""
[ ${#SERVER_PIN[@]} -eq 0 ] || PINNED=" (servers pinned to CPU 0, the load generator to CPU 1)"
echo "load average (1, 5, 15 min) before: $LOAD_BEFORE, after: $LOAD_AFTER; $(nproc) CPUs$PINNED; records: $RESULTS"
