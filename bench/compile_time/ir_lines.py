#!/usr/bin/env python3
"""Lines of LLVM IR per function, grouped like `cargo llvm-lines` (without installing it).

    ir_lines.py FILE.ll [TOP]

Prints the total, then the TOP groups by lines. Function names are demangled with c++filt
(legacy Rust mangling) and stripped of their hash; closures and `{{constant}}` scopes are
kept so that the generated `__call`/`__input_schema` fns of `#[tool]` are told apart.
"""

import collections
import re
import subprocess
import sys

path = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
functions = []  # (symbol, lines)
symbol, count = None, 0
for line in open(path, errors="replace"):
    if line.startswith("define "):
        match = re.search(r'@("?[^"(]+"?)\(', line)
        symbol, count = (match.group(1).strip('"') if match else "?"), 1
    elif symbol is not None:
        count += 1
        if line.startswith("}"):
            functions.append((symbol, count))
            symbol = None

names = subprocess.run(
    ["c++filt"], input="\n".join(s for s, _ in functions), capture_output=True, text=True
).stdout.splitlines()


def group(name):
    name = re.sub(r"::h[0-9a-f]{16}$", "", name)
    name = re.sub(r"<__T\d+(,__T\d+)*>", "<..>", name)  # the arities of `__Arguments`
    name = re.sub(r"\d{3}", "NNN", name)  # tool numbers: one group per generated item kind
    name = re.sub(r"(SearchIssues|LabelPullRequest|GetRecord|ListFiles|CreateBranch)NNN", "Tool", name)
    return name


lines = collections.Counter()
copies = collections.Counter()
for (_, n), name in zip(functions, names):
    lines[group(name)] += n
    copies[group(name)] += 1
total = sum(lines.values())
print(f"{total} lines of IR in {len(functions)} functions ({path})")
for name, n in lines.most_common(top):
    print(f"{n:8} {100 * n / total:5.1f}% {copies[name]:5}  {name}")
