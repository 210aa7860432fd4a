"""One Markdown table row per ranking of a set, with 95% bootstrap intervals (issue 52):

    python3 bench/search/table.py SET_DIR TITLE=RANKINGS.jsonl...

SET_DIR holds expected.json (bench/search/sets.py); each RANKINGS.jsonl has one
`{"ranking": [names]}` line per question, in order (what `tool_search --queries` writes).
Prints `| TITLE | R@1 | R@3 | MRR@10 |`, each as `value (low-high)`: the 2.5th and 97.5th
percentiles over 1,000 resamples of the questions with replacement (seeded, so a rerun
prints the same). The resamples are shared by the rows, so rows compare on the same draws.
"""

import json
import random
import sys
from pathlib import Path

RESAMPLES = 1000


def per_question(expected, path: Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) != len(expected):
        sys.exit(f"{path}: {len(lines)} rankings for {len(expected)} questions")
    values = []
    for line, wanted in zip(lines, expected):
        ranking = json.loads(line)["ranking"]
        rank = next((i for i, name in enumerate(ranking[:10]) if name in set(wanted)), None)
        values.append(
            (
                1.0 if rank == 0 else 0.0,
                1.0 if rank is not None and rank < 3 else 0.0,
                0.0 if rank is None else 1 / (rank + 1),
            )
        )
    return values


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    set_dir = Path(sys.argv[1])
    expected = json.loads((set_dir / "expected.json").read_text(encoding="utf-8"))
    n = len(expected)
    draws = random.Random(52)
    samples = [[draws.randrange(n) for _ in range(n)] for _ in range(RESAMPLES)]
    for spec in sys.argv[2:]:
        title, path = spec.split("=", 1)
        values = per_question(expected, Path(path))
        cells = []
        for metric in range(3):
            column = [value[metric] for value in values]
            means = sorted(sum(column[i] for i in sample) / n for sample in samples)
            low, high = means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]
            cells.append(f"{sum(column) / n:.3f} ({low:.3f}-{high:.3f})")
        print(f"| {title} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
