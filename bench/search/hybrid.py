"""Search by meaning as well as by words (issue 40): lexical, dense alone and hybrid rankings,
scored at R@1/R@3/R@5/MRR@10 on BFCL v4's live questions and on MetaTool.

    python3 bench/search/hybrid.py prepare BFCL_OUT METATOOL_DIR OUT
    python3 bench/search/hybrid.py score OUT/SET RANKINGS.jsonl [TITLE]
    python3 bench/search/hybrid.py rrf A.jsonl B.jsonl > FUSED.jsonl

`prepare` writes, for each set (`bfcl-live`, `metatool`), OUT/SET/catalog.json (MCP
`tools/list` shape), OUT/SET/queries.jsonl (`{"query"}` lines, what `tool_search --queries`
reads) and OUT/SET/expected.json (per query, the names that count as a hit). BFCL_OUT is
what bench/search/bfcl.py writes (its `live` split; a hit is any function its ground truth
calls, `NAME_v2` counting as `NAME`); METATOOL_DIR holds MetaTool's `plugin_des.json` and
`all_clean_data.csv` (names cleaned as BFCL's are), of which every 10th question is kept (2,062 of 20,614: the bench
embeds each question once per ranking). `score` prints one Markdown row; `rrf` fuses two
rankings by reciprocal rank fusion with equal weights (k = 60, each ranking 10 deep), the
baseline the issue measured.
`bash bench/search.sh hybrid` runs all of it (see BENCHMARKS.md, "Search by meaning").
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


def prepare(bfcl: Path, metatool: Path, out: Path) -> None:
    catalog = json.loads((bfcl / "catalog.json").read_text(encoding="utf-8"))["tools"]
    families = json.loads((bfcl / "families.json").read_text(encoding="utf-8"))
    queries, expected = [], []
    for line in (bfcl / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        question = json.loads(line)
        if question["split"] != "live":
            continue
        wanted = set(question["expected"])
        queries.append(question["query"])
        expected.append(sorted(name for name in families if families[name] in wanted))
    write_set(out / "bfcl-live", catalog, queries, expected)

    descriptions = json.loads((metatool / "plugin_des.json").read_text(encoding="utf-8"))
    catalog = [
        {"name": clean(name), "description": description, "inputSchema": {"type": "object"}}
        for name, description in descriptions.items()
    ]
    with open(metatool / "all_clean_data.csv", encoding="utf-8", newline="") as rows:
        rows = list(csv.DictReader(rows))[::METATOOL_EVERY]
    write_set(
        out / "metatool",
        catalog,
        [row["Query"] for row in rows],
        [[clean(row["Tool"])] for row in rows],
    )


def score(set_dir: Path, rankings: Path, title: str) -> None:
    expected = json.loads((set_dir / "expected.json").read_text(encoding="utf-8"))
    lines = rankings.read_text(encoding="utf-8").splitlines()
    if len(lines) != len(expected):
        sys.exit(f"{rankings}: {len(lines)} rankings for {len(expected)} questions")
    at = {1: 0, 3: 0, 5: 0}
    reciprocal = 0.0
    for line, wanted in zip(lines, expected):
        ranking = json.loads(line)["ranking"]
        rank = next((i for i, name in enumerate(ranking[:10]) if name in wanted), None)
        if rank is not None:
            reciprocal += 1 / (rank + 1)
            for k in at:
                at[k] += rank < k
    n = len(expected)
    print(f"| {title} | {at[1] / n:.3f} | {at[3] / n:.3f} | {at[5] / n:.3f} | {reciprocal / n:.3f} |")


def rrf(first: Path, second: Path) -> None:
    for a, b in zip(
        first.read_text(encoding="utf-8").splitlines(),
        second.read_text(encoding="utf-8").splitlines(),
    ):
        a, b = json.loads(a), json.loads(b)
        scores = {}
        for ranking in (a["ranking"], b["ranking"]):
            for rank, name in enumerate(ranking):
                scores[name] = scores.get(name, 0.0) + 1 / (60 + rank + 1)
        order = sorted(scores, key=lambda name: -scores[name])[:10]
        print(json.dumps({"query": a["query"], "ranking": order}))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "prepare":
        prepare(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "rrf":
        rrf(Path(sys.argv[2]), Path(sys.argv[3]))
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "score":
        score(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] if len(sys.argv) == 5 else sys.argv[3])
    else:
        sys.exit(__doc__)
