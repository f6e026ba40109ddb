"""The executor lanes: ``GpuBatchExecutor.run`` on fresh graphs, CPU or resident output.

Lanes: ``eager`` (``queue=False``: one GPU submission per job), ``queued`` (CPU output, the
chosen ``max_jobs``/``max_in_flight``) and ``resident`` (``output="gpu"``; handles are released
as they arrive, nothing is downloaded). A window builds ``batch`` fresh graphs from
``from_pil`` leaves inside the timed region; CPU results are materialised to their bytes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image as PILImage

from pillow_gpu import Image
from pillow_gpu.bench._workloads import Workload, job_sources

__all__ = ["EXECUTOR_LANES", "ExecutorLane", "ExecutorSettings", "executor_class", "stats_dict"]

#: Executor lane names in report order.
EXECUTOR_LANES = ("eager", "queued", "resident")


def executor_class() -> Any:
    """``pillow_gpu.GpuBatchExecutor``; raises ImportError while it is not available."""
    import pillow_gpu

    found = getattr(pillow_gpu, "GpuBatchExecutor", None)
    if found is None:
        msg = (
            "pillow_gpu.GpuBatchExecutor is not available in this build; the executor lanes "
            "need it (the Pillow baselines and the ceiling lane run without it)"
        )
        raise ImportError(msg)
    return found


def stats_dict(stats: Any) -> dict[str, Any]:
    """The executor's ``stats`` as a plain dict (whatever record type it uses)."""
    if stats is None:
        return {}
    if hasattr(stats, "as_dict"):
        return dict(stats.as_dict())
    if dataclasses.is_dataclass(stats) and not isinstance(stats, type):
        return dataclasses.asdict(stats)
    if isinstance(stats, Mapping):
        return dict(stats)
    return {key: value for key, value in vars(stats).items() if not key.startswith("_")}


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutorSettings:
    """Constructor arguments of one lane's executor."""

    queue: bool = True
    max_jobs: int = 64
    max_in_flight: int = 2
    gpu_bytes: int = 1 << 30
    host_bytes: int = 1 << 30

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``GpuBatchExecutor``."""
        return dataclasses.asdict(self)


class ExecutorLane:
    """One executor (created once per case) and the windows that stream jobs through it."""

    def __init__(
        self,
        workload: Workload,
        mode: str,
        sources: Sequence[PILImage.Image],
        *,
        batch: int,
        settings: ExecutorSettings,
        output: str = "cpu",
    ) -> None:
        self.workload = workload
        self.mode = mode
        self.sources = sources
        self.batch = batch
        self.settings = settings
        self.output = output
        self.executor = executor_class()(**settings.kwargs())

    def _jobs(self) -> Iterator[tuple[int, Image.Image]]:
        for index in range(self.batch):
            leaves = [
                Image.from_pil(source) for source in job_sources(self.workload, self.sources, index)
            ]
            yield index, self.workload.lazy(self.mode, leaves)

    def jobs(self) -> Iterator[tuple[int, Image.Image]]:
        """One batch of fresh ``(input_key, graph)`` pairs."""
        return self._jobs()

    def run(
        self,
        consume: Callable[[int, Any], None],
        jobs: Iterator[tuple[int, Image.Image]] | None = None,
    ) -> int:
        """Stream one batch of fresh graphs (or ``jobs``); ``consume(key, image)`` each result."""
        delivered = 0
        source = self._jobs() if jobs is None else jobs
        with self.executor.run(source, output=self.output) as results:
            for result in results:
                consume(result.input_key, result.image)
                delivered += 1
                del result
        return delivered

    def window(self) -> Callable[[], int]:
        """A timed window: CPU results become bytes; resident handles are dropped at once."""

        def materialise(_key: int, image: Any) -> None:
            if self.output == "cpu":
                image.tobytes()

        return lambda: self.run(materialise)

    def images(self) -> dict[int, PILImage.Image]:
        """One batch as ``{input_key: PIL image}`` (resident outputs downloaded): for parity."""
        found: dict[int, PILImage.Image] = {}

        def keep(key: int, image: Any) -> None:
            found[key] = image.download() if self.output == "gpu" else image

        self.run(keep)
        return found

    def stats(self) -> dict[str, Any]:
        """The executor's counters."""
        return stats_dict(getattr(self.executor, "stats", None))

    def close(self) -> None:
        """Close the executor."""
        close = getattr(self.executor, "close", None)
        if close is not None:
            close()
