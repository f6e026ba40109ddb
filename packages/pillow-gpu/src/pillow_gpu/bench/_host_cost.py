"""Per-job host cost of an executor lane, measured in a separate, untimed batch.

Method: after a case's timed windows, one more batch runs through the same executor with timing
wrappers (``time.perf_counter`` around each call) temporarily installed on the host steps the
executor calls: building the job graphs (``from_pil`` leaves + the chain, in our job iterator),
planning (``plan_cached`` or ``plan_graph``, whichever ``pillow_gpu.executor._executor``
calls; the result names it), allocation (``allocate_together``: a submission's jobs decoded,
stacked and uploaded; ``Plan.allocate`` where the executor allocates job by job),
``encode_together`` (a submission's jobs recorded into one command encoder; ``Plan.encode``
where the executor records job by job) and ``Submission.build_cpu`` (the CPU result image).
The whole batch's wall time and the driving thread's CPU time (``time.thread_time``:
lavapipe's worker threads are not counted) are recorded too. Every figure is divided by the
batch size. The wrappers add a few microseconds per call, and the timed windows never run
with them installed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["STEPS", "measure_host_cost"]

#: The wrapped steps: (report name, module path, attribute paths: the first one present).
STEPS = (
    ("plan", "pillow_gpu.executor._executor", ("plan_cached", "plan_graph")),
    ("allocate", "pillow_gpu.executor._submission", ("allocate_together", "Plan.allocate")),
    ("encode", "pillow_gpu.executor._submission", ("encode_together", "Plan.encode")),
    ("build_result", "pillow_gpu.executor._submission", ("Submission.build_cpu",)),
)


def _timed(function: Callable[..., Any], totals: dict[str, float], name: str) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            totals[name] += time.perf_counter() - started

    return wrapper


def _find(module: Any, attributes: tuple[str, ...]) -> tuple[Any, str, Any]:
    """(owner, attribute name, function) of the first of ``attributes`` that exists."""
    for attribute in attributes:
        owner: Any = module
        *parents, leaf = attribute.split(".")
        for parent in parents:
            owner = getattr(owner, parent, None)
        found = getattr(owner, leaf, None) if owner is not None else None
        if found is not None:
            return owner, leaf, found
    return None, "", None


@contextmanager
def _hooks(totals: dict[str, float], missing: list[str], used: dict[str, str]) -> Iterator[None]:
    import importlib

    undo: list[tuple[Any, str, Any]] = []
    try:
        for name, module_path, attributes in STEPS:
            owner, leaf, original = _find(importlib.import_module(module_path), attributes)
            if original is None:
                missing.append(f"{module_path}.{'|'.join(attributes)}")
                continue
            used[name] = leaf
            totals[name] = 0.0
            setattr(owner, leaf, _timed(original, totals, name))
            undo.append((owner, leaf, original))
        yield
    finally:
        for owner, leaf, original in reversed(undo):
            setattr(owner, leaf, original)


def measure_host_cost(lane: Any) -> dict[str, Any]:
    """Run one untimed batch of ``lane`` (an ExecutorLane) and return microseconds per job."""
    totals: dict[str, float] = {"graph_build": 0.0}
    missing: list[str] = []
    used: dict[str, str] = {}

    def timed_jobs() -> Iterator[Any]:
        source = lane.jobs()
        while True:
            started = time.perf_counter()
            try:
                item = next(source)
            except StopIteration:
                return
            finally:
                totals["graph_build"] += time.perf_counter() - started
            yield item

    def materialise(_key: int, image: Any) -> None:
        if lane.output == "cpu":
            image.tobytes()

    with _hooks(totals, missing, used):
        wall, cpu = time.perf_counter(), time.thread_time()
        delivered = lane.run(materialise, timed_jobs())
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    per_job = max(1, delivered)
    result: dict[str, Any] = {
        "method": "perf_counter wrappers on the host steps, one untimed batch (see _host_cost)",
        "jobs": delivered,
        "plan_function": used.get("plan", ""),
        "wall_us_per_job": 1e6 * wall / per_job,
        "driver_thread_cpu_us_per_job": 1e6 * cpu / per_job,
    }
    result.update({f"{name}_us_per_job": 1e6 * value / per_job for name, value in totals.items()})
    steps = sum(totals.values())
    result["host_steps_us_per_job"] = 1e6 * steps / per_job
    if missing:
        result["not_measured"] = missing
    return result
