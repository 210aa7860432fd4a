#!/usr/bin/env python3
"""Runs the `assemble_stream` example on recorded provider streams and compares its output
with their expected calls. On demand, not in CI: the recordings are not part of this
repository.

    python3 examples/core/check_stream_cases.py CASES_DIR

CASES_DIR (a directory of recordings, wherever you keep them) holds
`NAME.jsonl` streams, one event payload per line, each with `NAME.expected.json`:
`{"provider", "outcome": "ok" | "error", "calls": [{"id", "name", "arguments", "alt_ids"?}]}`.
An expected `id` of null accepts any id. For an "error" outcome the example must exit non-zero
with a message on stderr, after printing exactly the expected calls. Every case is also cut
after each of its events: the example must then print a prefix of the expected calls, and
exit non-zero unless the cut stream still holds all of them (an error case cut before its
error can be a valid stream).
"""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(binary, provider, lines):
    process = subprocess.run(
        [binary, provider],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        check=False,
    )
    calls = [json.loads(line) for line in process.stdout.splitlines() if line.strip()]
    return process.returncode, calls, process.stderr.strip()


def same_call(got, want):
    if got.get("name") != want["name"] or got.get("arguments") != want["arguments"]:
        return False
    return want["id"] is None or got.get("id") in [want["id"], *want.get("alt_ids", [])]


def is_prefix(got, want):
    return len(got) <= len(want) and all(map(same_call, got, want))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_stream_cases.py CASES_DIR (a directory of NAME.jsonl recordings with NAME.expected.json)")
    cases = pathlib.Path(sys.argv[1])
    if not cases.is_dir():
        sys.exit(f"{cases} is not a directory")
    subprocess.run(
        ["cargo", "build", "--quiet", "--example", "assemble_stream"], cwd=ROOT, check=True
    )
    binary = ROOT / "target/debug/examples/assemble_stream"
    matched, failures, cuts = 0, [], 0
    for stream in sorted(cases.glob("*.jsonl")):
        expected = json.loads(stream.with_suffix(".expected.json").read_text())
        lines = [line for line in stream.read_text().splitlines() if line.strip()]
        status, calls, stderr = run(binary, expected["provider"], lines)
        ok = len(calls) == len(expected["calls"]) and is_prefix(calls, expected["calls"])
        ok = ok and ((status != 0 and stderr) if expected["outcome"] == "error" else status == 0)
        if ok:
            matched += 1
        else:
            failures.append(f"{stream.name}: exit {status}, calls {calls}, stderr {stderr!r}")
        for cut in range(len(lines)):
            cuts += 1
            status, calls, stderr = run(binary, expected["provider"], lines[:cut])
            # Cut before its error, an error case may be a valid stream of the calls before it.
            complete = len(calls) == len(expected["calls"])
            if not is_prefix(calls, expected["calls"]) or (status == 0 and not complete):
                failures.append(f"{stream.name} cut after {cut} events: exit {status}, calls {calls}")
    total = len(list(cases.glob("*.jsonl")))
    print(f"{matched}/{total} cases match; {cuts} cut streams checked")
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
