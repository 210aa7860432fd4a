#!/usr/bin/env python3
"""Writes the runtime's table of related nouns (lazytool-runtime/src/discovery/search/wordnet.tsv)
from WordNet 3.0 as Debian's package `wordnet-base` installs it (/usr/share/wordnet).

    apt-get install -y wordnet-base
    python3 bench/search/wordnet.py [WORDNET_DIR] > lazytool-runtime/src/discovery/search/wordnet.tsv

For each noun written as one plain word that the SemCor corpus tags at least once (the
words people use, not the names of species and chemicals), its most frequent sense: the
other one-word nouns of that synset (`taxi` -> cab, taxicab) and of the synsets it is a
kind of, its hypernyms (`taxi` -> car, auto). One line per noun, sorted:
`noun<TAB>related related ...`, after WordNet's licence as `#` lines, which the licence asks
to appear on every copy. bench/HISTORY.md ("Search", sixth round) measures the variants
(verbs, adjectives, two senses, two levels of hypernyms, untagged nouns).
"""

import sys
from pathlib import Path

LICENSE = """\
WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.

Permission to use, copy, modify and distribute this software and database and its
documentation for any purpose and without fee or royalty is hereby granted, provided that you
agree to comply with the following copyright notice and statements, including the
disclaimer, and that the same appear on ALL copies of the software, database and
documentation, including modifications that you make for internal use or for distribution.

THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION,
PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS FOR
ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION
WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.

The name of Princeton University or Princeton may not be used in advertising or publicity
pertaining to distribution of the software and/or database. Title to copyright in this
software, database and any associated documentation shall at all times remain with Princeton
University and LICENSEE agrees to preserve same.

Derived by bench/search/wordnet.py from WordNet 3.0 (Debian's wordnet-base): for each noun
SemCor tags, the one-word nouns of its most frequent sense and of that sense's hypernyms."""

HYPERNYM = ("@", "@i")


def plain(word):
    return word.isascii() and word.isalpha()


def synsets(path):
    """Synset offset -> (its words, its hypernyms' offsets), from data.noun."""
    found = {}
    for line in path.open(encoding="latin-1"):
        if line.startswith("  "):
            continue
        fields = line.split(" | ")[0].split()
        word_count = int(fields[3], 16)
        # A word may carry a syntactic marker: `galore(ip)`.
        words = [fields[4 + 2 * i].split("(")[0].lower() for i in range(word_count)]
        at = 4 + 2 * word_count
        hypernyms = []
        for k in range(int(fields[at])):
            symbol, offset, pos, _ = fields[at + 1 + 4 * k : at + 5 + 4 * k]
            if symbol in HYPERNYM and pos == "n":
                hypernyms.append(offset)
        found[fields[0]] = (words, hypernyms)
    return found


def main():
    wordnet = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet")
    nouns = synsets(wordnet / "data.noun")
    table = {}
    for line in (wordnet / "index.noun").open(encoding="latin-1"):
        if line.startswith("  "):
            continue
        fields = line.split()
        lemma = fields[0]
        pointer_count = int(fields[3])
        at = 4 + pointer_count
        tagged_senses = int(fields[at + 1])
        first_sense = fields[at + 2]
        if not plain(lemma) or tagged_senses == 0:
            continue
        words, hypernyms = nouns[first_sense]
        related = set(words)
        for hypernym in hypernyms:
            related.update(nouns[hypernym][0])
        related = sorted(word for word in related if plain(word) and word != lemma)
        if related:
            table[lemma] = related
    out = sys.stdout
    for line in LICENSE.splitlines():
        out.write(f"# {line}".rstrip() + "\n")
    for lemma in sorted(table):
        out.write(f"{lemma}\t{' '.join(table[lemma])}\n")


if __name__ == "__main__":
    main()
