"""Random graphs on Pillow's own test images: the random-graph parity draw
(``gpu/random_graph_draw.py``) with each source a corpus file, opened by each
library, and on copies of them damaged by each seed. Every graph is exact, refused, or raises
where Pillow raises; for a file Pillow cannot load, the lazy graph raises where its pixels are
first needed (``tools/random_graphs.py --files``, with ``--damage`` or ``--structure`` for
damaged copies, runs the same over any range of seeds). Batches of them run through
executors too (``gpu/random_graph_batches.py``; ``--batch N`` runs more)."""

from __future__ import annotations

import collections
import contextlib
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from ..gpu.random_graph_batches import BatchSetting, batch_outcomes, file_members
from ..gpu.random_graph_damage import damaged, damaged_file_outcome
from ..gpu.random_graph_draw import file_outcome
from ..gpu.random_graph_structure import damaged_structure, units
from .conftest import RealCorpus, opened_files

pytestmark = pytest.mark.usefixtures("device")

#: Largest header (pixels) whose files are drawn.
MAX_PIXELS = 1 << 20
#: Graphs drawn, each on the file its seed picks.
GRAPHS = 160


#: The outcomes that agree with Pillow (a damaged copy Pillow cannot open is no case).
_AGREE = ("exact", "refused", "both raise", "not opened")


def _run_graphs(
    what: str, outcome_of: Callable[[int], tuple[str, str]]
) -> collections.Counter[str]:
    """The outcomes of :data:`GRAPHS` seeds (``outcome_of(seed)``: the outcome and the source
    file's name), printed; fails naming every graph that differs from Pillow."""
    outcomes: collections.Counter[str] = collections.Counter()
    differing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(GRAPHS):
            outcome, name = outcome_of(seed)
            agreed = outcome in _AGREE
            outcomes[outcome if agreed else "other"] += 1
            if not agreed:
                differing.append(f"seed {seed} ({name}): {outcome}")
    print(f"\nrandom graphs on {what}: {dict(outcomes)}")
    assert not differing, "\n".join(differing)
    return outcomes


def test_random_graphs_on_corpus_files_match_pillow(real_corpus: RealCorpus) -> None:
    files = opened_files(
        real_corpus.root, lambda image: image.size[0] * image.size[1] <= MAX_PIXELS
    )
    real_corpus.check_found(files, "files", pillow=900, program=200)

    def outcome_of(seed: int) -> tuple[str, str]:
        source = files[(seed * 7919) % len(files)]
        return file_outcome(source, seed), source.name

    outcomes = _run_graphs("corpus files", outcome_of)
    assert outcomes["exact"] > GRAPHS // 3


#: Largest file (bytes) damaged: small files keep each graph quick.
MAX_DAMAGED_BYTES = 256 << 10


def _damageable(real_corpus: RealCorpus) -> list[Path]:
    """The corpus files the damaged-file draws take (small headers and files)."""
    return [
        path
        for path in opened_files(
            real_corpus.root, lambda image: image.size[0] * image.size[1] <= MAX_PIXELS
        )
        if path.stat().st_size <= MAX_DAMAGED_BYTES
    ]


def test_random_graphs_on_damaged_corpus_files_match_pillow(
    real_corpus: RealCorpus, tmp_path: Path
) -> None:
    """The same draw on copies of the files damaged by each seed (``random_graph_damage``):
    cut, bit-flipped, overwritten or repeated bytes. Pillow opens, refuses or fails to load
    each; the lazy graph must agree wherever it does (``tools/random_graphs.py --files DIR
    --damage`` runs more seeds)."""
    files = _damageable(real_corpus)
    real_corpus.check_found(files, "files", pillow=800, program=150)

    def outcome_of(seed: int) -> tuple[str, str]:
        source = files[(seed * 7919) % len(files)]
        return damaged_file_outcome(source, seed, tmp_path), source.name

    outcomes = _run_graphs("damaged corpus files", outcome_of)
    assert outcomes["exact"] > GRAPHS // 8  # many damaged files still decode
    assert outcomes["both raise"] + outcomes["not opened"] > GRAPHS // 8


def test_random_graphs_on_corpus_files_of_damaged_structure_match_pillow(
    real_corpus: RealCorpus, tmp_path: Path
) -> None:
    """The same draw on copies of the PNG, WebP, AVIF, JPEG, GIF and TIFF files with one unit
    of their structure damaged by each seed (``random_graph_structure``): a chunk, box,
    segment or block dropped, repeated, swapped, of a wrong length or with odd payload bytes,
    or a TIFF directory entry (an Exif block's too) changed (``tools/random_graphs.py --files
    DIR --structure`` runs more seeds)."""
    files = [path for path in _damageable(real_corpus) if units(path.read_bytes())]
    real_corpus.check_found(files, "files", pillow=550, program=200)

    def outcome_of(seed: int) -> tuple[str, str]:
        source = files[(seed * 7919) % len(files)]
        return damaged_file_outcome(source, seed, tmp_path, structure=True), source.name

    outcomes = _run_graphs("corpus files of damaged structure", outcome_of)
    assert outcomes["exact"] > GRAPHS // 8
    assert outcomes["both raise"] + outcomes["not opened"] > GRAPHS // 8


#: Damaged files that differed from Pillow before a fix: (the source's path in Pillow's
#: corpus, the seed of its damage and graph), replayed on every run.
FOUND_DAMAGED = [
    # An ICNS icon whose header says RGBA and whose load gives RGB (its mask is lost): the
    # GPU's decode raised DecodeError telling the user not to change files; ICNS files are
    # loaded at open now, so the leaf says RGB as Pillow's loaded image does.
    ("pillow2.icns", 669398),
]


@pytest.mark.parametrize(
    ("name", "seed"), FOUND_DAMAGED, ids=[f"{n}-{s}" for n, s in FOUND_DAMAGED]
)
def test_damaged_files_found_before_match_pillow(
    name: str, seed: int, pillow_corpus: Path, tmp_path: Path
) -> None:
    (source,) = pillow_corpus.rglob(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome = damaged_file_outcome(source, seed, tmp_path)
    assert outcome in ("exact", "refused", "both raise"), outcome


#: The executors the batches of file graphs run through, one batch each.
BATCH_SETTINGS = [
    BatchSetting(max_jobs=8, max_in_flight=2, output="cpu", decode_threads=2),
    BatchSetting(max_jobs=64, max_in_flight=1, output="gpu", decode_threads=0),
    BatchSetting(max_jobs=2, max_in_flight=3, output="cpu", decode_threads=0),
    BatchSetting(max_jobs=16, max_in_flight=2, output="gpu", decode_threads=2),
]
#: Seeds drawn for each batch.
BATCH_SEEDS = 32
_DAMAGE = {"none": None, "bytes": damaged, "structure": damaged_structure}


@pytest.mark.parametrize("damage", list(_DAMAGE))
def test_random_graph_batches_on_corpus_files_match_pillow(
    real_corpus: RealCorpus, tmp_path: Path, damage: str
) -> None:
    """Graphs on corpus files (on copies damaged by each seed, or of damaged structure), some
    followed by the same graph on the file opened again, in batches through executors of four
    settings (``random_graph_batches``): files of several shapes in one submission, decodes
    on worker threads, resident outputs. Every job delivers Pillow's result or is refused on
    its own; graphs Pillow cannot load are left out (the draws above check them)."""
    files = _damageable(real_corpus)
    if damage == "structure":
        files = [path for path in files if units(path.read_bytes())]
    real_corpus.check_found(files, "files", pillow=550, program=150)
    damaging = _DAMAGE[damage]
    outcomes: collections.Counter[str] = collections.Counter()
    differing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for batch, setting in enumerate(BATCH_SETTINGS):
            with contextlib.ExitStack() as handles:
                members = []
                for seed in range(batch * BATCH_SEEDS, (batch + 1) * BATCH_SEEDS):
                    path = files[(seed * 7919) % len(files)]
                    if damaging is not None:
                        copy = tmp_path / f"damaged-{seed}{path.suffix}"
                        copy.write_bytes(damaging(path.read_bytes(), seed)[1])
                        path = copy
                    members += file_members(path, seed, handles)
                for member, outcome in zip(members, batch_outcomes(members, setting), strict=True):
                    outcomes[outcome if outcome in ("exact", "refused") else "other"] += 1
                    if outcome not in ("exact", "refused"):
                        differing.append(f"seed {member.seed} ({setting}): {outcome}")
    print(f"\nbatches of random graphs on corpus files ({damage} damage): {dict(outcomes)}")
    assert not differing, "\n".join(differing)
    # Many damaged copies are left out: Pillow cannot open or load them.
    assert outcomes["exact"] > len(BATCH_SETTINGS) * BATCH_SEEDS // (4 if damaging is None else 8)
