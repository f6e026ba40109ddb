"""The lanes that place ours against the world: pyvips, pillow-rs, the reference kernels and the
transfer bound. Each returns ``(parity status, window or None, lane object or None)``.

Status words: ``exact`` (byte for byte equal to Pillow), ``MISMATCH n bytes (...)`` (pillow-rs
is still timed and the status stays in every table; the reference lane is not timed then, it
exists to be exact), ``n/a: why`` (no reference kernel), ``unavailable: why`` (pillow-rs could
not run here or refused the chain), ``not installed`` (pyvips), ``no parity (libvips kernels)``
and ``no kernel (round trip exact)`` (transfer).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image as PILImage

from pillow_gpu.bench._pillow_rs import PillowRsLane, PillowRsUnavailable, mismatch
from pillow_gpu.bench._pyvips import NO_PARITY, PyvipsUnavailable, pyvips_window
from pillow_gpu.bench._reference import ReferenceLane, ReferenceUnavailable
from pillow_gpu.bench._transfer import TransferLane
from pillow_gpu.bench._workloads import Workload

__all__ = [
    "WORLD_LANES",
    "PillowRsSetup",
    "add_world_ratios",
    "lane_details",
    "prepare_world_lane",
]

#: The lanes of this module, in report order.
WORLD_LANES = ("pyvips", "pillow_rs", "reference", "transfer")
#: Lanes whose throughput is compared with the world lanes.
_OURS = ("ceiling", "eager", "queued", "resident")

Prepared = tuple[str, Callable[[], int] | None, Any]


@dataclass(frozen=True, slots=True)
class PillowRsSetup:
    """Where the pillow-rs lane runs: the venv's interpreter, or why it cannot."""

    python: Path | None
    why: str = ""


def prepare_world_lane(
    name: str,
    *,
    workload: Workload,
    mode: str,
    sources: Sequence[PILImage.Image],
    reference: Sequence[PILImage.Image],
    batch: int,
    executor: dict[str, Any],
    pillow_rs: PillowRsSetup,
) -> Prepared:
    """Build lane ``name`` for one case and check it (see the module docstring)."""
    budget = int(executor["gpu_bytes"])
    if name == "pyvips":
        try:
            return NO_PARITY, pyvips_window(workload, mode, sources, batch), None
        except PyvipsUnavailable as error:
            return str(error), None, None
    if name == "pillow_rs":
        if pillow_rs.python is None:
            return f"unavailable: {pillow_rs.why}", None, None
        try:
            peer = PillowRsLane(
                workload, mode, sources, batch=batch, executor=executor, python=pillow_rs.python
            )
        except PillowRsUnavailable as error:
            return f"unavailable: {error}", None, None
        try:
            status = peer.check(reference)
        except PillowRsUnavailable as error:
            peer.close()
            return f"unavailable: {error}", None, None
        except BaseException:
            peer.close()
            raise
        return status, peer.window(), peer
    if name == "reference":
        try:
            lane = ReferenceLane(workload, mode, sources, batch=batch, byte_budget=budget)
        except ReferenceUnavailable as error:
            return f"n/a: {error}", None, None
        try:
            status = mismatch([image.tobytes() for image in lane.images()], reference)
        except BaseException:
            lane.close()
            raise
        return status, lane.window() if status == "exact" else None, lane
    if name == "transfer":
        moved = TransferLane(workload, sources, reference, batch=batch, byte_budget=budget)
        try:
            status = moved.check()
        except BaseException:
            moved.close()
            raise
        return status, moved.window() if not status.startswith("MISMATCH") else None, moved
    msg = f"unknown world lane {name!r}; known: {', '.join(WORLD_LANES)}"
    raise ValueError(msg)


def lane_details(lane: Any) -> dict[str, Any]:
    """What a world lane adds to its JSON record beyond the timings."""
    if isinstance(lane, PillowRsLane):
        return {
            "pillow_rs_version": lane.version,
            "worker_windows_s": [round(value, 6) for value in lane.worker_seconds],
            "executor_stats": lane.stats(),
        }
    if isinstance(lane, ReferenceLane):
        return {
            "dispatches_per_chunk": lane.dispatches_per_chunk,
            "submits_per_window": lane.submits_per_window,
        }
    if isinstance(lane, TransferLane):
        return {
            "upload_bytes_per_image": lane.upload_bytes_per_image,
            "download_bytes_per_image": lane.download_bytes_per_image,
            "submits_per_window": lane.submits_per_window,
        }
    return {}


def paired_ratio(ours: Sequence[float], theirs: Sequence[float]) -> float | None:
    """The median over rounds of our throughput over theirs in the same round.

    ``ours`` and ``theirs`` are window seconds of two lanes timed in the same interleaved
    rounds (round ``r`` of each a few windows apart), so drift of the machine between rounds
    cancels in each round's ratio; None unless both have the same number of windows.
    """
    if not ours or len(ours) != len(theirs) or min(ours) <= 0:
        return None
    return statistics.median(other / mine for mine, other in zip(ours, theirs, strict=True))


def add_world_ratios(lanes: dict[str, dict[str, Any]]) -> None:
    """Add ``vs_pillow_rs``, ``vs_reference`` and ``share_of_transfer`` to our lanes, and the
    per-round ``vs_pillow_rs_paired`` and ``vs_reference_paired`` (:func:`paired_ratio`)."""

    def rate(name: str) -> float | None:
        value = lanes.get(name, {}).get("images_per_s")
        return value if isinstance(value, float) and value > 0 else None

    def windows(name: str) -> list[float]:
        return list(lanes.get(name, {}).get("windows_s", []))

    peer, kernel, bound = rate("pillow_rs"), rate("reference"), rate("transfer")
    for name in _OURS:
        value = rate(name)
        if value is None:
            continue
        lane = lanes[name]
        lane["vs_pillow_rs"] = value / peer if peer else None
        lane["vs_reference"] = value / kernel if kernel else None
        lane["share_of_transfer"] = value / bound if bound else None
        mine = windows(name)
        lane["vs_pillow_rs_paired"] = paired_ratio(mine, windows("pillow_rs")) if peer else None
        lane["vs_reference_paired"] = paired_ratio(mine, windows("reference")) if kernel else None
    transfer = lanes.get("transfer", {})
    if bound and "upload_bytes_per_image" in transfer:
        moved = transfer["upload_bytes_per_image"] + transfer["download_bytes_per_image"]
        transfer["moved_mb_per_s"] = bound * moved / 1e6
