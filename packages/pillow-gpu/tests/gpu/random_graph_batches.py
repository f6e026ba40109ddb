"""Batches of random graphs through ``GpuBatchExecutor`` against live Pillow.

One graph at a time (``random_graph_draw.outcome``) never meets what the executor adds:
jobs of several shapes in one submission, jobs of one shape sharing a stacked allocation and
a program from the plan cache while their leaves differ, staging and readback arenas reused
between submissions, files decoded on worker threads, resident outputs, and failures
delivered in their job's place. Here a batch is the graphs a run of seeds draws (on generated
sources, or on files, damaged or not), each followed now and then by a *sibling*: the same
steps over other pixels (another source seed), or the same file opened again; and now and
then a graph also runs after its first step (a copy: a job sharing nodes with another, after
which Pillow's source is loaded), or is completed there first (with Pillow or on the GPU). The
batch runs through an executor whose settings (``max_jobs``, ``max_in_flight``, CPU or GPU
outputs, decode threads, credits, queued or eager submission) the batch's first seed draws,
and every job must deliver Pillow's result (bytes, palette, ``info``) or be refused on its
own (``BatchUnsupported``/``BatchLimit``).
Graphs that Pillow or the recording refuse are left out: the single-graph draw checks those.

``test_pgpu_parity_random_modes.py`` runs a few batches in the suite;
``tools/random_graphs.py --batch N`` runs any range of seeds in batches of N.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor
from pillow_gpu.errors import Limit, Unsupported
from pillow_gpu.executor import BatchFailure, BatchLimit, BatchUnsupported
from pillow_gpu.gpu import evaluate

from .random_graph_draw import Midway, difference, drawn, drawn_file, loaded_run, steps_of

__all__ = [
    "BatchSetting",
    "Member",
    "batch_outcomes",
    "batch_setting",
    "file_members",
    "generated_members",
]

#: One graph in this many is followed by a sibling of the same shape.
SIBLING_EVERY = 3
#: One graph in this many also runs after its first step (a copy), sharing its nodes; as
#: many others are completed there first, with Pillow (``load()``) or on the GPU
#: (``gpu.evaluate``), so their jobs start from a completed node.
MIDWAY_EVERY = 4
#: One file graph in this many is followed by another graph on the handles it started from.
BRANCH_EVERY = 5
#: Seeds of siblings' sources are drawn past this (generated sources).
_SIBLING_SEEDS = 1 << 40
#: Seeds of branches' steps are drawn past this.
_BRANCH_SEEDS = 1 << 41


@dataclass(frozen=True)
class Member:
    """One job of a batch: what it is, Pillow's result and the lazy graph."""

    seed: int
    what: str
    expected: PILImage.Image
    lazy: Any


@dataclass(frozen=True)
class BatchSetting:
    """The executor a batch runs through."""

    max_jobs: int
    max_in_flight: int
    output: str
    decode_threads: int
    credit_bytes: int = 1 << 30  # gpu_bytes and host_bytes
    queue: bool = True

    def __str__(self) -> str:
        return (
            f"{self.max_jobs}x{self.max_in_flight}-{self.output}-decode{self.decode_threads}"
            f"-credits{self.credit_bytes >> 20}MiB{'' if self.queue else '-eager'}"
        )


def batch_setting(seed: int) -> BatchSetting:
    """The executor settings ``seed`` draws (small and large submissions, one or several in
    flight, CPU or GPU outputs, decodes on the driving thread or on workers, ample or tight
    credits, now and then each job submitted at once)."""
    rng = random.Random(seed ^ 0x5EED)
    return BatchSetting(
        max_jobs=rng.choice([1, 2, 4, 8, 16, 64]),
        max_in_flight=rng.choice([1, 2, 3]),
        output=rng.choice(["cpu", "cpu", "gpu"]),
        decode_threads=rng.choice([0, 0, 2]),
        credit_bytes=rng.choice([1 << 30, 1 << 30, 64 << 20, 8 << 20]),
        queue=rng.random() < 0.9,
    )


def _midway(seed: int, prefixes: list[tuple[str, PILImage.Image, Any]]) -> Midway | None:
    """What the graph ``seed`` draws does after its first step (:data:`MIDWAY_EVERY`)."""
    if seed % MIDWAY_EVERY == 1:

        def copy(expected: PILImage.Image, lazy: Any) -> None:
            prefixes.append(
                (f"after the first step of seed {seed} (copied)", expected.copy(), lazy.copy())
            )

        return copy
    if seed % MIDWAY_EVERY != 3:
        return None
    if seed % (2 * MIDWAY_EVERY) == 3:

        def load(expected: PILImage.Image, lazy: Any) -> None:
            expected.load()
            lazy.load()

        return load

    def complete(expected: PILImage.Image, lazy: Any) -> None:
        expected.load()
        with contextlib.suppress(Unsupported, Limit):  # the job then starts from the leaf
            evaluate(lazy)

    return complete


def generated_members(seed: int, *, large: bool = False) -> list[Member]:
    """The graph ``seed`` draws on a generated source (with what it does after its first
    step, :func:`_midway`: a copy there runs as a job too), and one in :data:`SIBLING_EVERY`
    followed by the same steps over another source of the same mode and size; none where
    Pillow or the recording refuses a step."""
    prefixes: list[tuple[str, PILImage.Image, Any]] = []
    found = drawn(seed, large=large, midway=_midway(seed, prefixes))
    if found is None:
        return []
    members = [Member(seed, *found), *(Member(seed, *prefix) for prefix in prefixes)]
    if seed % SIBLING_EVERY == 0:
        sibling = drawn(seed, large=large, source_seed=_SIBLING_SEEDS + seed)
        if sibling is not None:
            what, expected, lazy = sibling
            members.append(Member(seed, f"{what} (sibling)", expected, lazy))
    return members


def file_members(path: Path, seed: int, handles: ExitStack) -> list[Member]:
    """The graph ``seed`` draws on the file at ``path`` (with what it does after its first
    step, :func:`_midway`), and (one in :data:`SIBLING_EVERY`) the same steps on the file
    opened again; their opened handles join ``handles``."""
    members = []
    for copy in range(2 if seed % SIBLING_EVERY == 0 else 1):
        prefixes: list[tuple[str, PILImage.Image, Any]] = []
        found = drawn_file(path, seed, _midway(seed, prefixes))
        if found is None:
            break
        what, expected, lazy, opened = found
        for handle in opened:
            handles.callback(handle.close)
        members.append(Member(seed, f"{what}{' (again)' if copy else ''}", expected, lazy))
        members += [Member(seed, *prefix) for prefix in prefixes]
        if not copy and seed % BRANCH_EVERY == 2 and expected is not opened[0]:
            members += _branch(seed, *opened)
    return members


def _branch(seed: int, opened: PILImage.Image, lazy_opened: Any) -> list[Member]:
    """Other steps (another seed's, no seek) on the opened handles a graph started from, as
    a user makes several images of one opened file: Pillow's has loaded by now."""
    steps = [step for step in steps_of(seed + _BRANCH_SEEDS) if step[0] != "seek"]
    what = f"another branch of seed {seed}: {steps}"
    ran = loaded_run(opened, lazy_opened, steps, what)
    if ran is None or ran[0] is opened:
        return []
    return [Member(seed, what, *ran)]


def _failure(error: BaseException, member: Member) -> str:
    if isinstance(error, (BatchUnsupported, BatchLimit)):
        return "refused"
    return f"{type(error).__name__} ({error}) delivered: {member.what}"


def batch_outcomes(
    members: list[Member],
    setting: BatchSetting,
    make: Callable[..., GpuBatchExecutor] = GpuBatchExecutor,
) -> list[str]:
    """Each member's outcome through one executor of ``setting``: 'exact', 'refused', or what
    differs (a result that is not Pillow's, a failure of another kind, a job never
    delivered)."""
    outcomes: list[str | None] = [None] * len(members)
    with make(
        queue=setting.queue,
        gpu_bytes=setting.credit_bytes,
        host_bytes=setting.credit_bytes,
        max_jobs=setting.max_jobs,
        max_in_flight=setting.max_in_flight,
        decode_threads=setting.decode_threads,
    ) as executor:
        jobs = ((index, member.lazy) for index, member in enumerate(members))
        with executor.run(jobs, errors="deliver", output=setting.output) as results:
            for result in results:
                member = members[result.input_key]
                if isinstance(result, BatchFailure):
                    outcomes[result.input_key] = _failure(result.error, member)
                    continue
                image = result.image.download() if setting.output == "gpu" else result.image
                outcomes[result.input_key] = difference(image, member.expected, member.what)
                del result, image  # a resident output's buffers go back at once
    return [
        "never delivered: " + member.what if outcome is None else outcome
        for outcome, member in zip(outcomes, members, strict=True)
    ]
