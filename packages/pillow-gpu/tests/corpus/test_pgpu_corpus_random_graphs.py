"""Random graphs on Pillow's own test images: the random-graph parity draw
(``gpu/random_graph_draw.py``) with each source a corpus file, opened by each
library. Every graph is exact, refused, or raises where Pillow raises; for a file Pillow cannot
load, the lazy graph raises where its pixels are first needed (``tools/random_graphs.py
--files`` runs the same over any range of seeds)."""

from __future__ import annotations

import collections
import warnings

import pytest

from ..gpu.random_graph_draw import file_outcome
from .conftest import RealCorpus, opened_files

pytestmark = pytest.mark.usefixtures("device")

#: Largest header (pixels) whose files are drawn.
MAX_PIXELS = 1 << 20
#: Graphs drawn, each on the file its seed picks.
GRAPHS = 160


def test_random_graphs_on_corpus_files_match_pillow(real_corpus: RealCorpus) -> None:
    files = opened_files(
        real_corpus.root, lambda image: image.size[0] * image.size[1] <= MAX_PIXELS
    )
    real_corpus.check_found(files, "files", pillow=900, program=200)
    outcomes: collections.Counter[str] = collections.Counter()
    differing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(GRAPHS):
            outcome = file_outcome(files[(seed * 7919) % len(files)], seed)
            outcomes[outcome if outcome in ("exact", "refused", "both raise") else "other"] += 1
            if outcome not in ("exact", "refused", "both raise"):
                differing.append(f"seed {seed}: {outcome}")
    print(f"\nrandom graphs on corpus files: {dict(outcomes)}")
    assert not differing, "\n".join(differing)
    assert outcomes["exact"] > GRAPHS // 3
