"""Fits and checks the default fusion of search by words and meaning (issue 52) on what
`tool_search --explain` writes: per question, both rankings 30 deep with their scores.

    python3 bench/search/fusion_fit.py fit SETS_DIR FITTED_SET...    # prints INTERCEPT and MODEL
    python3 bench/search/fusion_fit.py check SETS_DIR SET...         # the Rust fusion's ranking = ours?

SETS_DIR/SET holds expected.json (bench/search/sets.py) and explain.jsonl (`tool_search
--explain`, any fusion: the rankings do not depend on it). The fusion is the one of
lazytool-runtime/src/discovery/embedding/fusion.rs, written again here: each ranking's scores
scaled to 0..1 (the words' by the best, the cosines between the nearest and the last read)
and added with weights 1 - w and w, where w = 1 / (1 + e^-(b + sum of c_i x_i)) over the
signals of leaning.rs that MODEL names; then the first of the ranking leaned toward (w >= 0.5:
the dense one) is moved up to the third place if it fell below (fusion.rs's keep_leaned_first).
`fit` searches b and c for the best mean over the fitted sets of (R@1 + R@3) / 2, less a
penalty for each set where the hybrid falls more than a point below the better of its two parts
(the issue's target): each question's hits are computed once for w = 0, 0.05, ..., 1, and
a coarse grid and 1,000 seeded random starts are refined by coordinate descent from the
best eight. It prints
them as JSON (SETS_DIR/model.json, what `check` reads) for fusion.rs's INTERCEPT and MODEL.
"""

import json
import math
import random
import sys
from pathlib import Path

STARTS = 1000
# The signals the default's model weighs (fusion.rs's MODEL, in order).
SIGNALS = ["dense_gap", "dense_best", "dense_last", "query_words"]


def load(set_dir: Path):
    expected = json.loads((set_dir / "expected.json").read_text(encoding="utf-8"))
    rows = []
    for line, wanted in zip((set_dir / "explain.jsonl").read_text(encoding="utf-8").splitlines(), expected):
        row = json.loads(line)
        if row.get("words_only"):
            # No query vector (a question longer than MAX_QUERY_BYTES): every fusion ranks by words.
            row.update(lexical=[[name, 1.0 / (1 + at)] for at, name in enumerate(row["ranking"])], dense=[])
        rows.append(
            {
                "lexical": row["lexical"],
                "dense": row["dense"],
                "signals": signals(row["query"], row["lexical"], row["dense"]),
                "found": bool(row["lexical"]) and row["lexical"][0][1] > 0,
                "wanted": set(wanted),
                "ranking": row["ranking"],
            }
        )
    return rows


def signals(query, lexical, dense):
    """The signals of MODEL, as leaning.rs's `Signals::of(..).with_query(query)` computes them."""
    unit = lambda value: min(1.0, max(0.0, value))
    if len(dense) >= 2 and dense[0][1] > dense[-1][1]:
        gap = unit((dense[0][1] - dense[1][1]) / (dense[0][1] - dense[-1][1]))
    else:
        gap = 0.0
    best = unit(dense[0][1]) if dense else 0.0
    last = unit(dense[-1][1]) if dense else 0.0
    words = unit(math.log2(1 + len(query.split())) / 8)
    return [gap, best, last, words]


KEPT_PLACES = 3


def fuse(lexical, dense, weight, limit=10, keep=True):
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
    # fusion.rs's keep_leaned_first: the first of the ranking leaned toward stays in the first three.
    if keep:
        first = dense[0][0] if weight >= 0.5 and dense else lexical[0][0] if weight < 0.5 and best > 0 else None
        if first is not None and names.index(first) >= KEPT_PLACES:
            names.remove(first)
            names.insert(KEPT_PLACES - 1, first)
    return names[:limit]


def weight_of(row, intercept, coefficients):
    if not row["found"]:
        return 1.0
    logit = intercept + sum(c * x for c, x in zip(coefficients, row["signals"]))
    return 1 / (1 + math.exp(-max(-60.0, min(60.0, logit))))


def rank_of(ranking, wanted):
    return next((i for i, name in enumerate(ranking[:10]) if name in wanted), None)


def recall(rows, rankings, k):
    return sum(1 for row, ranking in zip(rows, rankings) if (r := rank_of(ranking, row["wanted"])) is not None and r < k) / len(rows)


def parts(rows):
    words = [[name for name, _ in row["lexical"]] for row in rows]
    meaning = [fuse(row["lexical"], row["dense"], 1.0, keep=False) for row in rows]
    return max(recall(rows, words, 1), recall(rows, meaning, 1)), max(recall(rows, words, 3), recall(rows, meaning, 3))


GRID = [at / 20 for at in range(21)]


def hits_by_weight(rows):
    """Per question, whether the fused ranking hits at 1 and at 3 for each weight of GRID."""
    table = []
    for row in rows:
        hits = []
        for weight in GRID:
            rank = rank_of(fuse(row["lexical"], row["dense"], weight), row["wanted"])
            hits.append((rank == 0, rank is not None and rank < 3))
        table.append(hits)
    return table


def recalls(rows, table, intercept, coefficients):
    at1 = at3 = 0
    for row, hits in zip(rows, table):
        hit = hits[round(weight_of(row, intercept, coefficients) * 20)]
        at1 += hit[0]
        at3 += hit[1]
    return at1 / len(rows), at3 / len(rows)


def objective(sets, intercept, coefficients):
    """The mean over sets of (R@1 + R@3) / 2, less twice each point below the better part
    minus one point (the issue's target)."""
    total = 0.0
    for rows, table, (best1, best3) in sets:
        r1, r3 = recalls(rows, table, intercept, coefficients)
        total += (r1 + r3) / 2
        total -= 2 * max(0.0, best1 - 0.01 - r1) + 2 * max(0.0, best3 - 0.01 - r3)
    return total / len(sets)


def fit(sets_dir: Path, names):
    sets = []
    for name in names:
        rows = load(sets_dir / name)
        sets.append((rows, hits_by_weight(rows), parts(rows)))
    # Random starts (seeded), then coordinate descent from the best few.
    draws = random.Random(52)
    starts = [(0.0, [0.0] * len(SIGNALS))]
    # A coarse grid (intercept 0; gap 0..3, nearest -4..4, last -8..0, query words -4..2) ...
    for gap in range(4):
        for best in range(-4, 5):
            for last in range(-8, 1):
                for words in (-4, -2, 0, 2):
                    starts.append((0.0, [float(gap), float(best), float(last), float(words)]))
    # ... and seeded random starts.
    for _ in range(STARTS):
        starts.append((draws.uniform(-4, 4), [draws.uniform(-6, 6) for _ in SIGNALS]))
    scored = sorted(starts, key=lambda start: -objective(sets, *start))[:8]
    best_score, best = -1e9, None
    for intercept, coefficients in scored:
        score = objective(sets, intercept, coefficients)
        for step in (1.0, 0.5, 0.25, 0.125):
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
                        trial = objective(sets, trial_b, trial_c)
                        if trial > score + 1e-9:
                            score, intercept, coefficients, improved = trial, trial_b, trial_c, True
        print(f"start: objective {score:.4f}, b {intercept:.3f}, c {[round(c, 3) for c in coefficients]}", file=sys.stderr)
        if score > best_score:
            best_score, best = score, (intercept, coefficients)
    intercept, coefficients = best
    print(json.dumps({"intercept": round(intercept, 3), "coefficients": [round(c, 3) for c in coefficients]}))
    for name, (rows, table, (best1, best3)) in zip(names, sets):
        r1, r3 = recalls(rows, table, intercept, coefficients)
        print(f"{name}: R@1 {r1:.3f} R@3 {r3:.3f} (better part {best1:.3f} / {best3:.3f})", file=sys.stderr)


def check(sets_dir: Path, names, intercept, coefficients):
    for name in names:
        rows = load(sets_dir / name)
        same = sum(
            1
            for row in rows
            if fuse(row["lexical"], row["dense"], weight_of(row, intercept, coefficients)) == row["ranking"]
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
