"""Turns a BERT sentence encoder exported to ONNX into the directory `LocalEmbedder::open`
reads (config.json, model.safetensors; the tokenizer is copied by the caller):

    python bench/search/onnx_bert.py MODEL.onnx OUT_DIR

Needs the PyPI packages `onnx` and `safetensors` (with numpy). The export keeps each layer's
biases, LayerNorms and embeddings under their PyTorch names (after a prefix such as
`model.0.auto_model.`), but its linear weights as anonymous `MatMul` inputs, [in, out]; each
is named here after the bias its product is added to, and transposed to PyTorch's [out, in].
Used by bench/search/install-model.sh for paraphrase-MiniLM-L3-v2 (issue 52's second model).
"""

import json
import sys
from pathlib import Path

import numpy
import onnx
from onnx import numpy_helper
from safetensors.numpy import save_file

PREFIX = "auto_model."


def main(model_path: Path, out: Path) -> None:
    model = onnx.load(str(model_path))
    graph = model.graph
    initializers = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    # Which node reads each value, to follow a MatMul's product to the Add of its bias.
    readers = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    tensors = {}
    for name, value in initializers.items():
        if PREFIX in name:
            tensors[name.split(PREFIX, 1)[1]] = value
    for node in graph.node:
        if node.op_type != "MatMul":
            continue
        weight = next((name for name in node.input if name in initializers), None)
        if weight is None:
            continue
        adds = [reader for reader in readers.get(node.output[0], []) if reader.op_type == "Add"]
        bias = next((name for add in adds for name in add.input if PREFIX in name and name.endswith(".bias")), None)
        if bias is None:
            sys.exit(f"{model_path}: MatMul {node.name} is added to no named bias")
        key = bias.split(PREFIX, 1)[1][: -len(".bias")] + ".weight"
        tensors[key] = numpy.ascontiguousarray(initializers[weight].T)
    layers = 1 + max(int(key.split(".")[2]) for key in tensors if key.startswith("encoder.layer."))
    hidden = tensors["embeddings.word_embeddings.weight"].shape[1]
    config = {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": tensors["embeddings.word_embeddings.weight"].shape[0],
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": 12,
        "intermediate_size": tensors["encoder.layer.0.intermediate.dense.weight"].shape[0],
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": tensors["embeddings.position_embeddings.weight"].shape[0],
        "type_vocab_size": tensors["embeddings.token_type_embeddings.weight"].shape[0],
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-12,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
    }
    expected = 5 + 16 * layers
    if len(tensors) != expected:
        sys.exit(f"{model_path}: {len(tensors)} tensors found, not the {expected} of a {layers}-layer BERT")
    out.mkdir(parents=True, exist_ok=True)
    save_file({key: value.astype(numpy.float32) for key, value in tensors.items()}, str(out / "model.safetensors"))
    (out / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
