"""Joint fit of lazytool's search constants on what its search weighs (issue 26, fifth round).

Coordinate ascent on a linear combination of the features the scorer already computes
(Metzler and Croft 2007, "Linear feature-based models for information retrieval"), directly
maximising R@1 + R@3 + R@5 of the BFCL live questions, with random restarts and 5-fold
cross-validation on the live questions; the held-out questions and the GitHub requests are
only scored.

    bash bench/search.sh features target/bench-search/features.jsonl
    target/bench-search/venv/bin/pip install numpy
    target/bench-search/venv/bin/python bench/search/fit.py target/bench-search/features.jsonl

The features file (`bench/search/src/features.rs`) holds, per question, the terms searched
(weight, whether only a synonym, inverse document frequency per field and of the whole tool)
and each candidate tool's term frequencies per field, field lengths, family, whether the
question names it, and how many of the question's words it matches (as written, or only
through a synonym). From these the script recomputes the whole ranking of
`lazytool-runtime/src/discovery/search/` for any setting of its constants: per-field BM25
(field weights, k1 and b per field), the coverage factor (power, credit of a synonym-only
word), synonym weight, the named-tool rule, family decay, and the reordering of the best few
by per-field score and BM25F (depth, share, BM25F's k1 and field weights); and one signal the
scorer lacks, name coverage (`namecov`, 0 today). With today's constants it reproduces the
bench's figures (checked at start: the `today` line). One evaluation of all 2,627 questions
takes about 30 ms.

`--keys` chooses the constants fitted (names as in TODAY), `--github-floor 123 98` refuses
settings that rank fewer GitHub requests in the top three or first, `--restarts N` sets the
random starts (3), `--folds 0` skips the cross-validation. The output ends with the
cross-validated figures (each fold ranked with the setting fitted on the other folds) beside
the in-sample ones, and the setting fitted on all live questions. The fifth round's kept fit:
`--github-floor 123 98 --keys w0,w2,w3,w4,k0,k2,k3,k4,b0,b2,b3,b4`.
"""

import argparse
import json
import random
import sys
import time

import numpy as np

FIELDS = 5  # name, tags, description, parameter names, parameter text
TOP = 10

# Today's constants (lazytool-runtime/src/discovery/search/weights.rs, whose unit test fails
# when these differ). The fifth round's fits started from 289ef41's, which differ in K1 (3 in
# every field) and B (0.75 in every field).
TODAY = {
    "w0": 3.0, "w1": 3.0, "w2": 1.2, "w3": 1.0, "w4": 0.5,   # FIELD_WEIGHTS
    "k0": 20.0, "k2": 3.0, "k3": 8.0, "k4": 3.0,             # K1, per field (tags: 3)
    "b0": 0.75, "b2": 0.75, "b3": 1.0, "b4": 0.75,           # B, per field (tags: 0.75)
    "power": 1.6,        # COVERAGE_POWER
    "credit": 0.5,       # a synonym-only word in the coverage (SYNONYM_WEIGHT)
    "synonym": 0.5,      # SYNONYM_WEIGHT on scores (fuzzy matches scale with it)
    "named": 1.0,        # the named-tool rule: score + named × (best + 1)
    "decay": 0.5,        # FAMILY_DECAY
    "depth": 3,          # RERANK_DEPTH
    "share": 0.4,        # WHOLE_SHARE
    "whole_k1": 8.0,     # WHOLE_K1
    "v0": 3.0, "v2": 1.2, "v3": 1.0, "v4": 0.5,              # BM25F's field weights
    "namecov": 0.0,      # a cheap signal the scorer lacks: score × (1 + namecov × share of
                         # the name's terms the query matches)
}

# The values coordinate ascent tries for each constant.
GRID = {
    "w0": [1, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6],
    "w2": [0.6, 0.8, 1.0, 1.2, 1.4, 1.7, 2.0, 2.5],
    "w3": [0.4, 0.6, 0.8, 1.0, 1.2, 1.5, 2.0],
    "w4": [0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0],
    "k0": [0.8, 1.2, 2, 3, 5, 8, 12, 20, 40],
    "k2": [0.8, 1.2, 2, 3, 5, 8],
    "k3": [0.8, 1.2, 2, 3, 5, 8, 12],
    "k4": [0.8, 1.2, 2, 3, 5, 8],
    "b0": [0.0, 0.3, 0.5, 0.75, 0.9, 1.0],
    "b2": [0.3, 0.5, 0.75, 0.9, 1.0],
    "b3": [0.3, 0.5, 0.75, 0.9, 1.0],
    "b4": [0.3, 0.5, 0.75, 0.9, 1.0],
    "power": [1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.3, 2.6, 3.0],
    "credit": [0.0, 0.25, 0.5, 0.75, 1.0],
    "synonym": [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0],
    "named": [0.0, 0.05, 0.1, 0.25, 0.5, 1.0],
    "decay": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0],
    "depth": [1, 2, 3, 4, 5],
    "share": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
    "whole_k1": [1.2, 2, 3, 5, 8, 12, 20],
    "v0": [0.5, 1, 2, 3, 4, 6],
    "v2": [0.6, 1.0, 1.2, 1.5, 2.0],
    "v3": [0.5, 1.0, 1.5, 2.0],
    "v4": [0.25, 0.5, 0.75, 1.0],
    "namecov": [0.0, 0.1, 0.25, 0.5, 1.0],
}


class Data:
    """The features of every question, flattened into arrays."""

    def __init__(self, path):
        splits, words, averages = [], [], []
        cand_query, cand_hit, cand_family, cand_named, cand_lengths = [], [], [], [], []
        cand_words, cand_synonym_words = [], []
        row_cand, row_weight, row_synonym, row_idf, row_whole_idf, row_tf = [], [], [], [], [], []
        with open(path) as lines:
            for q, line in enumerate(lines):
                item = json.loads(line)
                splits.append(item["split"])
                words.append(max(item["words"], 1))
                averages.append(item["average"])
                terms = item["terms"]
                for hit, family, named, lengths, w, s, _score, _whole, frequencies in item["candidates"]:
                    c = len(cand_query)
                    cand_query.append(q)
                    cand_hit.append(hit)
                    cand_family.append(family)
                    cand_named.append(named)
                    cand_lengths.append(lengths)
                    cand_words.append(w)
                    cand_synonym_words.append(s)
                    for term, tf in frequencies:
                        weight, synonym, idf, whole_idf = terms[term]
                        row_cand.append(c)
                        row_weight.append(weight)
                        row_synonym.append(synonym)
                        row_idf.append(idf)
                        row_whole_idf.append(whole_idf)
                        row_tf.append(tf)
        self.splits = np.array(splits)
        self.words = np.array(words, dtype=np.float64)
        averages = np.array(averages, dtype=np.float64)
        self.cand_query = np.array(cand_query)
        self.cand_hit = np.array(cand_hit, dtype=bool)
        self.cand_named = np.array(cand_named, dtype=bool)
        lengths = np.array(cand_lengths, dtype=np.float64)
        self.cand_words = np.array(cand_words, dtype=np.float64)
        self.cand_synonym_words = np.array(cand_synonym_words, dtype=np.float64)
        self.row_cand = np.array(row_cand)
        self.row_weight = np.array(row_weight, dtype=np.float64)
        self.row_synonym = np.array(row_synonym, dtype=bool)
        self.row_idf = np.array(row_idf, dtype=np.float64)
        self.row_whole_idf = np.array(row_whole_idf, dtype=np.float64)
        self.row_tf = np.array(row_tf, dtype=np.float64)
        # The share of each candidate's name terms the query matches (as written).
        in_name = (self.row_tf[:, 0] > 0) & ~self.row_synonym
        name_terms = np.bincount(self.row_cand, weights=in_name.astype(np.float64), minlength=len(cand_query))
        self.name_share = np.minimum(name_terms / np.maximum(lengths[:, 0], 1.0), 1.0)
        # Each row's field length over the average, for length normalisation.
        ratio = lengths / np.maximum(averages[self.cand_query], 1e-9)
        self.row_ratio = ratio[self.row_cand]
        self.queries = len(splits)
        self.candidates = len(cand_query)
        # Padded layout: query × slot.
        counts = np.bincount(self.cand_query, minlength=self.queries)
        self.slots = int(counts.max())
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        self.cand_slot = np.arange(self.candidates) - starts[self.cand_query]
        self.valid = np.zeros((self.queries, self.slots), dtype=bool)
        self.valid[self.cand_query, self.cand_slot] = True
        self.hit = np.zeros((self.queries, self.slots), dtype=bool)
        self.hit[self.cand_query, self.cand_slot] = self.cand_hit
        self.named = np.zeros((self.queries, self.slots), dtype=bool)
        self.named[self.cand_query, self.cand_slot] = self.cand_named
        self.family = np.full((self.queries, self.slots), -1, dtype=np.int64)
        self.family[self.cand_query, self.cand_slot] = cand_family
        # Pairs of candidates of one family in one query (for the family decay).
        key = self.cand_query.astype(np.int64) * (1 << 32) + np.array(cand_family, dtype=np.int64)
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        pairs_i, pairs_j = [], []
        start = 0
        for end in np.concatenate([np.nonzero(np.diff(sorted_key))[0] + 1, [len(order)]]):
            members = order[start:end]
            if len(members) > 1:
                for i in members:
                    for j in members:
                        if i != j:
                            pairs_i.append(i)
                            pairs_j.append(j)
            start = end
        self.pairs_i = np.array(pairs_i, dtype=np.int64)
        self.pairs_j = np.array(pairs_j, dtype=np.int64)
        self.cache = {}

    def field_sums(self, field, k1, b):
        """Per candidate: the field's BM25 sums (before field weight), of terms written in the
        query and of synonym-only terms (before the synonym scaling)."""
        key = ("field", field, k1, b)
        if key not in self.cache:
            tf = self.row_tf[:, field]
            norm = 1.0 - b + b * self.row_ratio[:, field]
            saturation = np.where(tf > 0, tf * (k1 + 1.0) / np.where(tf > 0, tf + k1 * norm, 1.0), 0.0)
            value = self.row_weight * self.row_idf[:, field] * saturation
            original = np.bincount(self.row_cand, weights=np.where(self.row_synonym, 0.0, value), minlength=self.candidates)
            synonym = np.bincount(self.row_cand, weights=np.where(self.row_synonym, value, 0.0), minlength=self.candidates)
            self.cache[key] = (original, synonym)
        return self.cache[key]

    def normalised(self, field, b):
        """Each row's frequency in `field` over the field's length normalisation."""
        key = ("norm", field, b)
        if key not in self.cache:
            tf = self.row_tf[:, field]
            norm = 1.0 - b + b * self.row_ratio[:, field]
            self.cache[key] = np.where(tf > 0, tf / np.where(tf > 0, norm, 1.0), 0.0)
        return self.cache[key]

    def whole_sums(self, p):
        """Per candidate: BM25F sums of written and synonym-only terms."""
        key = ("whole", p["whole_k1"], p["v0"], p["w1"], p["v2"], p["v3"], p["v4"],
               p["b0"], p["b2"], p["b3"], p["b4"])
        if key not in self.cache:
            if len(self.cache) > 400:
                self.cache = {k: v for k, v in self.cache.items() if k[0] != "whole"}
            weights = [p["v0"], p["w1"], p["v2"], p["v3"], p["v4"]]
            bs = [p["b0"], 0.75, p["b2"], p["b3"], p["b4"]]
            frequency = np.zeros(len(self.row_cand))
            for field in range(FIELDS):
                frequency += weights[field] * self.normalised(field, bs[field])
            k1 = p["whole_k1"]
            value = self.row_weight * self.row_whole_idf * frequency * (k1 + 1.0) / (frequency + k1)
            original = np.bincount(self.row_cand, weights=np.where(self.row_synonym, 0.0, value), minlength=self.candidates)
            synonym = np.bincount(self.row_cand, weights=np.where(self.row_synonym, value, 0.0), minlength=self.candidates)
            self.cache[key] = (original, synonym)
        return self.cache[key]

    def ranks(self, p):
        """The rank (0-based, TOP when none in the top ten) of each question's first hit."""
        ks = [p["k0"], 3.0, p["k2"], p["k3"], p["k4"]]
        bs = [p["b0"], 0.75, p["b2"], p["b3"], p["b4"]]
        weights = [p["w0"], p["w1"], p["w2"], p["w3"], p["w4"]]
        synonym_scale = p["synonym"] / 0.5
        score = np.zeros(self.candidates)
        for field in range(FIELDS):
            original, synonym = self.field_sums(field, ks[field], bs[field])
            score += weights[field] * (original + synonym_scale * synonym)
        original, synonym = self.whole_sums(p)
        whole = original + synonym_scale * synonym
        words = self.words[self.cand_query]
        matched = self.cand_words + p["credit"] * self.cand_synonym_words
        coverage = np.minimum(matched / words, 1.0) ** p["power"]
        score *= coverage * (1.0 + p["namecov"] * self.name_share)
        whole *= coverage
        S = np.full((self.queries, self.slots), -np.inf)
        S[self.cand_query, self.cand_slot] = score
        # Only positive scores are candidates, but named tools always are.
        S[(S <= 0) & ~self.named] = -np.inf
        best = np.max(np.where(np.isfinite(S), S, 0.0), axis=1, initial=0.0)
        named_score = np.where(self.named, np.maximum(S, 0.0) + p["named"] * (best[:, None] + 1.0), S)
        S = np.where(self.named, named_score, S)
        # Family decay, by each candidate's own score.
        flat = S[self.cand_query, self.cand_slot]
        i, j = self.pairs_i, self.pairs_j
        before = (flat[j] > flat[i]) | ((flat[j] == flat[i]) & (j < i))
        earlier = np.bincount(i, weights=before.astype(np.float64), minlength=self.candidates)
        decayed = flat * p["decay"] ** earlier
        D = np.full((self.queries, self.slots), -np.inf)
        D[self.cand_query, self.cand_slot] = decayed
        D[~np.isfinite(S)] = -np.inf
        top = min(TOP, self.slots)
        part = np.argpartition(-D, top - 1, axis=1)[:, :top]
        order = np.take_along_axis(part, np.argsort(-np.take_along_axis(D, part, axis=1), axis=1, kind="stable"), axis=1)
        rows = np.arange(self.queries)[:, None]
        d = D[rows, order]
        finite = np.isfinite(d)
        hit = self.hit[rows, order] & finite
        named = self.named[rows, order]
        W = np.zeros((self.queries, self.slots))
        W[self.cand_query, self.cand_slot] = whole
        w = W[rows, order]
        family = self.family[rows, order]
        same = (family[:, :, None] == family[:, None, :]) & np.tril(np.ones((top, top), dtype=bool), -1)[None]
        w = w * p["decay"] ** same.sum(axis=2)
        depth = int(p["depth"])
        if depth > 1 and p["share"] > 0:
            moving = finite[:, :depth] & ~named[:, :depth]
            sd = np.where(moving, d[:, :depth], 0.0)
            wd = np.where(moving, w[:, :depth], 0.0)
            best_s = np.maximum(sd.max(axis=1, keepdims=True), 1e-30)
            best_w = np.maximum(wd.max(axis=1, keepdims=True), 1e-30)
            combined = (1 - p["share"]) * sd / best_s + p["share"] * wd / best_w
            # Named tools keep their places (and so do empty slots); the others take the
            # remaining places in the order of the combined score.
            slots = np.argsort(np.where(moving, 0, 1) * depth + np.arange(depth), axis=1, kind="stable")
            movers = np.argsort(np.where(moving, -combined, np.inf), axis=1, kind="stable")
            hit = hit.copy()
            top_hits = hit[:, :depth].copy()
            hit[rows, slots] = np.take_along_axis(top_hits, movers, axis=1)
        first = np.where(hit.any(axis=1), hit.argmax(axis=1), TOP)
        return first


def figures(first, mask):
    first = first[mask]
    n = len(first)
    return {
        "r1": np.sum(first < 1) / n,
        "r3": np.sum(first < 3) / n,
        "r5": np.sum(first < 5) / n,
        "mrr": np.sum(np.where(first < TOP, 1.0 / (first + 1), 0.0)) / n,
        "top3": int(np.sum(first < 3)),
        "n": n,
    }


def objective(first, mask):
    first = first[mask]
    return float(np.sum(first < 1) + np.sum(first < 3) + np.sum(first < 5)) / len(first)


def show(name, data, p, out=sys.stdout):
    first = data.ranks(p)
    live = figures(first, data.splits == "live")
    held = figures(first, data.splits == "held_out")
    gh = figures(first, data.splits == "github")
    print(f"{name}: live {live['r1']:.3f}/{live['r3']:.3f}/{live['r5']:.3f} (MRR {live['mrr']:.3f}); "
          f"held out {held['r1']:.3f}/{held['r3']:.3f}/{held['r5']:.3f}; "
          f"GitHub top-3 {gh['top3']} (R@1 {gh['r1']:.3f})", file=out, flush=True)
    return live, held, gh


def ascend(data, mask, start, keys, rng, passes=4, github_floor=None):
    """Coordinate ascent from `start` over `keys`, in random order each pass, maximising the
    objective on the questions `mask`; with `github_floor` (top three, first), settings that
    rank fewer GitHub requests in the top three or first are refused."""
    github = data.splits == "github"

    def value(p):
        first = data.ranks(p)
        penalty = 0.0
        if github_floor is not None:
            # A soft floor, so that an ascent from a start below it climbs to it: each GitHub
            # request short costs more than all but the largest live gains.
            gh = first[github]
            penalty = 0.05 * (max(github_floor[0] - np.sum(gh < 3), 0) + max(github_floor[1] - np.sum(gh < 1), 0))
        return objective(first, mask) - penalty

    p = dict(start)
    best = value(p)
    for _ in range(passes):
        improved = False
        order = list(keys)
        rng.shuffle(order)
        for key in order:
            for candidate in GRID[key]:
                if candidate == p[key]:
                    continue
                trial = dict(p, **{key: candidate})
                v = value(trial)
                if v > best + 1e-12:
                    best, p, improved = v, trial, True
        if not improved:
            break
    return p, best


def fit(data, mask, keys, rng, restarts, github_floor):
    """The best of coordinate ascent from today's setting and from `restarts` random ones."""
    results = [ascend(data, mask, TODAY, keys, rng, github_floor=github_floor)]
    print(f"  ascent from today: {results[-1][1]:.4f}", flush=True)
    for _ in range(restarts):
        # A random neighbour of today's setting: each constant moved one or two steps
        # along its grid, or left, so that the start still passes the GitHub floor often.
        start = dict(TODAY)
        for key in keys:
            grid = GRID[key]
            at = min(range(len(grid)), key=lambda i: abs(grid[i] - TODAY[key]))
            start[key] = grid[min(max(at + rng.choice([-2, -1, 0, 0, 1, 2]), 0), len(grid) - 1)]
        results.append(ascend(data, mask, start, keys, rng, github_floor=github_floor))
        print(f"  ascent from a random start: {results[-1][1]:.4f}", flush=True)
    return max(results, key=lambda result: result[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("features")
    parser.add_argument("--restarts", type=int, default=3, help="random starts besides today's")
    parser.add_argument("--keys", default=",".join(key for key in GRID if key != "namecov"),
                        help="the constants fitted (default: all but namecov, the fifth round's 24)")
    parser.add_argument("--github-floor", type=int, nargs=2, default=None, metavar=("TOP3", "FIRST"),
                        help="refuse settings that rank fewer GitHub requests in the top three or first")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    keys = [key for key in args.keys.split(",") if key]
    rng = random.Random(args.seed)
    started = time.time()
    data = Data(args.features)
    print(f"{data.queries} questions, {data.candidates} candidates, {len(data.row_cand)} term rows, "
          f"loaded in {time.time() - started:.1f} s", flush=True)
    started = time.time()
    show("today", data, TODAY)
    print(f"(one evaluation: {(time.time() - started) * 1000:.0f} ms, cold)", flush=True)
    restarts = args.restarts
    live = data.splits == "live"

    best, value = fit(data, live, keys, rng, restarts, args.github_floor)
    print(f"\nin-sample fit on all live questions (objective {value:.4f}, today "
          f"{objective(data.ranks(TODAY), live):.4f}):")
    print({key: best[key] for key in keys if best[key] != TODAY[key]})
    show("fitted", data, best)

    if args.folds < 2:
        print("fitted setting:", json.dumps(best))
        return
    # Cross-validation: the live questions in `folds` random folds.
    live_ids = np.nonzero(live)[0]
    shuffled = live_ids.copy()
    np.random.default_rng(args.seed).shuffle(shuffled)
    fold_of = np.empty(data.queries, dtype=np.int64)
    fold_of[:] = -1
    fold_of[shuffled] = np.arange(len(shuffled)) % args.folds
    today_first = data.ranks(TODAY)
    cv_first = np.full(data.queries, TOP)
    for fold in range(args.folds):
        train = live & (fold_of != fold)
        test = live & (fold_of == fold)
        p, _ = fit(data, train, keys, rng, restarts, args.github_floor)
        first = data.ranks(p)
        cv_first[test] = first[test]
        t, f = figures(today_first, test), figures(first, test)
        print(f"fold {fold}: today {t['r1']:.3f}/{t['r3']:.3f}/{t['r5']:.3f}, "
              f"fitted on the rest {f['r1']:.3f}/{f['r3']:.3f}/{f['r5']:.3f}; "
              f"{ {key: p[key] for key in keys if p[key] != TODAY[key]} }", flush=True)
    cv = figures(cv_first, live)
    t = figures(today_first, live)
    print(f"\ncross-validated live: {cv['r1']:.3f}/{cv['r3']:.3f}/{cv['r5']:.3f} (MRR {cv['mrr']:.3f}); "
          f"today {t['r1']:.3f}/{t['r3']:.3f}/{t['r5']:.3f} (MRR {t['mrr']:.3f})")
    print(f"total {time.time() - started:.0f} s")
    print("fitted setting:", json.dumps(best))


if __name__ == "__main__":
    main()
