#!/usr/bin/env python3
"""One crate's line of a `cargo build --timings` report (see ../compile_time.sh).

    timings.py REPORT.html CRATE MODE

Prints the crate's time as cargo's report measured it (`UNIT_DATA`), and, for a crate that
writes metadata (a library), the part before it (parsing, expansion, analysis). The bench
crates are binaries: they write none, so their time is one figure.
"""

import json
import re
import sys


def main():
    report, crate, mode = sys.argv[1:4]
    html = open(report, encoding="utf-8").read()
    match = re.search(r"const UNIT_DATA = (\[.*?\]);", html, re.S)
    if not match:
        sys.exit(f"timings.py: no UNIT_DATA in {report}")
    units = [unit for unit in json.loads(match.group(1)) if unit["name"] == crate]
    if not units:
        sys.exit(f"timings.py: {crate} is not in {report}")
    unit = units[-1]
    line = f"timings     {mode:<11} {crate[len('bench-'):]:<16} {unit['duration']:6.2f} s"
    if unit.get("rmeta_time"):
        line += f" ({unit['rmeta_time']:.2f} s to metadata)"
    print(line)


if __name__ == "__main__":
    main()
