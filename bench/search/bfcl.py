"""Builds the search benchmark's catalog and questions from BFCL v4's single-turn sets.

    python3 bench/search/bfcl.py BFCL_DATA_DIR OUT_DIR

BFCL_DATA_DIR is the `bfcl_eval/data` folder of the wheel `bfcl-eval`; OUT_DIR receives
`catalog.json` (MCP `tools/list` shape: every function the sets offer, as one catalog) and
`questions.jsonl` (one question a line: `set`, `split`, `query`, `expected`) and
`families.json` (catalog name → cleaned name).

- A function name is cleaned to `^[a-zA-Z0-9_-]{1,64}$` (other characters become `_`).
- One name offered with several different descriptions is kept once per description:
  `NAME`, `NAME_v2`, `NAME_v3`, ...
- The query is the question's last user message; `expected` holds the cleaned names of the
  functions its ground truth calls. Scoring is by name: a tool found counts as its cleaned
  name (`families.json` maps each catalog name to it, so `NAME_v2` counts as `NAME`), and a
  hit is any expected name in the top k.
- Split: the four `live_*` sets are `live` (tuning); the other single-turn sets with
  function-name ground truth are `held_out`.
"""

import json
import re
import sys
from pathlib import Path

LIVE = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"]
HELD_OUT = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
]

# BFCL's parameter types that are not JSON Schema's.
TYPES = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "list": "array",
    "int": "integer",
    "str": "string",
    "bool": "boolean",
}
JSON_TYPES = {"object", "number", "array", "integer", "string", "boolean", "null"}


def clean_name(name: str) -> str:
    cleaned = re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64]
    return cleaned or "_"


def json_schema(schema):
    """BFCL's parameter schema as JSON Schema: its own types mapped, unknown ones dropped."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            mapped = TYPES.get(value, value)
            if mapped in JSON_TYPES:
                converted["type"] = mapped
        elif key == "properties" and isinstance(value, dict):
            converted[key] = {name: json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            converted[key] = json_schema(value)
        elif key == "required" and isinstance(value, list):
            converted[key] = value
        elif key in ("description", "enum", "default", "title"):
            converted[key] = value
    if "type" not in converted and "properties" in converted:
        converted["type"] = "object"
    return converted


def read_lines(path: Path):
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def last_user_message(question) -> str:
    messages = [message for turn in question for message in turn]
    users = [message["content"] for message in messages if message.get("role") == "user"]
    return users[-1] if users else ""


def main(data: Path, out: Path) -> None:
    tools = []  # in order of first appearance
    families = {}  # catalog name -> clean name
    by_key = {}  # (clean name, description) -> catalog name
    versions = {}  # clean name -> how many descriptions seen
    taken = set()  # catalog names given out

    def catalog_name(function) -> str:
        name = clean_name(function["name"])
        description = function.get("description", "")
        key = (name, description)
        if key not in by_key:
            count = versions.get(name, 0)
            unique = name
            while unique in taken:
                count += 1
                suffix = f"_v{count + 1}"
                unique = name[: 64 - len(suffix)] + suffix
            versions[name] = count
            taken.add(unique)
            families[unique] = name
            by_key[key] = unique
            tools.append(
                {
                    "name": unique,
                    "description": description,
                    "inputSchema": json_schema(function.get("parameters", {})),
                }
            )
        return by_key[key]

    questions = []
    counts = {}
    for split, sets in (("live", LIVE), ("held_out", HELD_OUT)):
        for name in sets:
            entries = read_lines(data / f"BFCL_v4_{name}.json")
            answers = {
                answer["id"]: answer
                for answer in read_lines(data / "possible_answer" / f"BFCL_v4_{name}.json")
            }
            for entry in entries:
                offered = {}
                for function in entry["function"]:
                    catalog_name(function)
                    offered.setdefault(function["name"], clean_name(function["name"]))
                expected = []
                for call in answers[entry["id"]]["ground_truth"]:
                    for called in call:
                        found = offered.get(called)
                        if found is None:
                            raise SystemExit(f"{entry['id']}: {called} is not offered")
                        if found not in expected:
                            expected.append(found)
                questions.append(
                    {
                        "id": entry["id"],
                        "set": name,
                        "split": split,
                        "query": last_user_message(entry["question"]),
                        "expected": expected,
                    }
                )
                counts[name] = counts.get(name, 0) + 1

    out.mkdir(parents=True, exist_ok=True)
    (out / "catalog.json").write_text(json.dumps({"tools": tools}), encoding="utf-8")
    (out / "families.json").write_text(json.dumps(families), encoding="utf-8")
    with (out / "questions.jsonl").open("w", encoding="utf-8") as lines:
        for question in questions:
            lines.write(json.dumps(question, ensure_ascii=False) + "\n")
    summary = ", ".join(f"{name} {count}" for name, count in counts.items())
    print(f"bfcl: {len(tools)} tools, {len(questions)} questions ({summary})")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: bfcl.py BFCL_DATA_DIR OUT_DIR")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
