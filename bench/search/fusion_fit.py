"""Fits and checks the default fusion of search by words and meaning (issue 52) on what
`tool_search --explain` writes: per question, both rankings 30 deep with their scores.

    python3 bench/search/fusion_fit.py fit SETS_DIR FITTED_SET...    # prints INTERCEPT and MODEL
    python3 bench/search/fusion_fit.py check SETS_DIR SET...         # the Rust fusion's ranking = ours?

SETS_DIR/SET holds expected.json (bench/search/sets.py) and explain.jsonl (`tool_search
--explain`, any fusion: the rankings do not depend on it). The fusion is the one of
lazytool-runtime/src/discovery/embedding/fusion.rs, written again here: each ranking's scores
scaled to 0..1 (the words' by the best, the cosines between the nearest and the last read)
and added with weights 1 - w and w, where w = 1 / (1 + e^-(b + sum of c_i x_i)) over the
signals of leaning.rs. `fit` searches b and c by coordinate descent for the best mean over the
fitted sets of (R@1 + R@3) / 2, less a penalty for each set where the hybrid falls more than a
point below the better of its two parts (the issue's target), and prints them for fusion.rs.
"""

import json
import math
import sys
from pathlib import Path

SIGNALS = ["lexical_gap", "dense_gap", "agreement", "dense_best", "alike", "lexical_found"]


def load(set_dir: Path):
    expected = json.loads((set_dir / "expected.json").read_text(encoding="utf-8"))
    rows = []
    for line, wanted in zip((set_dir / "explain.jsonl").read_text(encoding="utf-8").splitlines(), expected):
        row = json.loads(line)
        if row.get("words_only"):
            # No query vector (a question longer than MAX_QUERY_BYTES): every fusion ranks by words.
            row.update(lexical=[[name, 1.0 / (1 + at)] for at, name in enumerate(row["ranking"])], dense=[])
            row["signals"] = {name: 0.0 for name in SIGNALS}
            row["signals"]["lexical_found"] = 1.0 if row["ranking"] else 0.0
        rows.append(
            {
                "lexical": row["lexical"],
                "dense": row["dense"],
                "signals": [row["signals"][name] for name in SIGNALS],
                "wanted": set(wanted),
                "ranking": row["ranking"],
            }
        )
    return rows


def fuse(lexical, dense, weight, limit=10):
    fused = {}
    order = {}
    best = lexical[0][1] if lexical else 0.0
    if best > 0:
        for rank, (name, score) in enumerate(lexical):
            fused[name] = (1 - weight) * score / best
            order[name] = rank
    if dense:
        top, bottom = dense[0][1], dense[-1][1]
        spread = top - bottom
        for name, cosine in dense:
            scaled = (cosine - bottom) / spread if spread > 0 else 1.0
            fused[name] = fused.get(name, 0.0) + weight * scaled
    names = sorted(fused, key=lambda name: (-fused[name], order.get(name, 1 << 30), name))
    return names[:limit]


def weight_of(signals, intercept, coefficients):
    if signals[SIGNALS.index("lexical_found")] == 0:
        return 1.0
    logit = intercept + sum(c * x for c, x in zip(coefficients, signals))
    return 1 / (1 + math.exp(-max(-60.0, min(60.0, logit))))


def rank_of(ranking, wanted):
    return next((i for i, name in enumerate(ranking[:10]) if name in wanted), None)


def recall(rows, rankings, k):
    return sum(1 for row, ranking in zip(rows, rankings) if (r := rank_of(ranking, row["wanted"])) is not None and r < k) / len(rows)


def measure(rows, intercept, coefficients):
    rankings = [fuse(row["lexical"], row["dense"], weight_of(row["signals"], intercept, coefficients)) for row in rows]
    return recall(rows, rankings, 1), recall(rows, rankings, 3)


def parts(rows):
    words = [[name for name, _ in row["lexical"]] for row in rows]
    meaning = [fuse(row["lexical"], row["dense"], 1.0) for row in rows]
    return max(recall(rows, words, 1), recall(rows, meaning, 1)), max(recall(rows, words, 3), recall(rows, meaning, 3))


def objective(sets, intercept, coefficients):
    total = 0.0
    for rows, (best1, best3) in sets:
        r1, r3 = measure(rows, intercept, coefficients)
        total += (r1 + r3) / 2
        total -= 2 * max(0.0, best1 - 0.01 - r1) + 2 * max(0.0, best3 - 0.01 - r3)
    return total / len(sets)


def fit(sets_dir: Path, names):
    sets = []
    for name in names:
        rows = load(sets_dir / name)
        sets.append((rows, parts(rows)))
    intercept, coefficients = 0.0, [0.0] * len(SIGNALS)
    best = objective(sets, intercept, coefficients)
    for step in (2.0, 1.0, 0.5, 0.25):
        improved = True
        while improved:
            improved = False
            for at in range(len(SIGNALS) + 1):
                for sign in (1, -1):
                    trial_b, trial_c = intercept, list(coefficients)
                    if at == len(SIGNALS):
                        trial_b += sign * step
                    else:
                        trial_c[at] += sign * step
                    score = objective(sets, trial_b, trial_c)
                    if score > best + 1e-9:
                        best, intercept, coefficients, improved = score, trial_b, trial_c, True
        print(f"step {step}: objective {best:.4f}, b {intercept}, c {coefficients}", file=sys.stderr)
    print(f"INTERCEPT = {intercept}")
    for name, coefficient in zip(SIGNALS, coefficients):
        print(f"{name} = {coefficient}")
    for name, (rows, (best1, best3)) in zip(names, sets):
        r1, r3 = measure(rows, intercept, coefficients)
        print(f"{name}: R@1 {r1:.3f} R@3 {r3:.3f} (better part {best1:.3f} / {best3:.3f})")


def check(sets_dir: Path, names, intercept, coefficients):
    for name in names:
        rows = load(sets_dir / name)
        same = sum(
            1
            for row in rows
            if fuse(row["lexical"], row["dense"], weight_of(row["signals"], intercept, coefficients)) == row["ranking"]
        )
        print(f"{name}: {same} of {len(rows)} rankings as the Rust fusion's")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "fit":
        fit(Path(sys.argv[2]), sys.argv[3:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "check":
        model = json.loads(Path(sys.argv[2], "model.json").read_text(encoding="utf-8"))
        check(Path(sys.argv[2]), sys.argv[3:], model["intercept"], model["coefficients"])
    else:
        sys.exit(__doc__)
