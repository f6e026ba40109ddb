"""One admitted job: its plan, identity, metadata snapshot and credit reservations."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from pillow_gpu.executor._credits import new_charge
from pillow_gpu.executor._metadata import InfoSnapshot
from pillow_gpu.gpu._plan import Plan

__all__ = ["Job"]


class Job:
    """A planned graph on its way through the executor (pending, in flight, ready).

    ``admitted`` is reserved at admission; once the job's submission completes, everything
    beyond ``retained`` is returned (working buffers and decode/upload temporaries). CPU jobs
    retain their staging range (which stays charged until the whole arena is consumed), the
    CPU pixel copy and the metadata; GPU jobs retain the resident buffer, its download
    workspace (GPU and host) and the metadata, which the :class:`GpuImage` lease takes over.

    ``charged``, ``credited`` and ``result`` make admission and delivery safe to retry after an
    interrupt: they record (in the same uninterruptible step) that the admission charge was
    taken, that the delivery credits were returned and which result is being delivered.
    """

    __slots__ = (
        "admitted",
        "charged",
        "credited",
        "decoding",
        "info",
        "input_key",
        "job_id",
        "mode",
        "offset",
        "output",
        "output_nbytes",
        "palette",
        "plan",
        "resident",
        "result",
        "retained",
        "size",
        "staging_charge",
        "staging_nbytes",
        "terminal_nbytes",
        "workspace",
    )

    def __init__(
        self,
        *,
        job_id: int,
        input_key: str | int | None,
        plan: Plan,
        info: InfoSnapshot,
        output: str,
    ) -> None:
        self.job_id = job_id
        self.input_key = input_key
        self.plan: Plan | None = plan
        self.info = info
        self.output = output
        self.mode = plan.mode
        self.palette = plan.palette  # a P output's palette (gpu.lowering.indexed)
        self.size = plan.size
        self.terminal_nbytes = plan.terminal_nbytes
        self.staging_nbytes = plan.staging_nbytes
        self.output_nbytes = plan.output_nbytes
        self.offset = 0
        self.resident: Any = None
        self.workspace: Any = None
        self.charged = False
        self.credited = False
        self.result: Any = None
        #: Decodes of the job's files started at admission (:mod:`executor._prefetch`).
        self.decoding: Sequence[Future[None]] = ()
        staging = self.staging_nbytes
        slack = staging - self.terminal_nbytes
        host = plan.host_bytes + info.nbytes + slack
        retained_host = staging + self.output_nbytes + info.nbytes
        # (GPU bytes, host bytes, jobs), built as tuples: a job builds two per admission.
        if output == "gpu":
            self.admitted = new_charge((plan.gpu_bytes + staging, host, 1))
            self.retained = new_charge((2 * staging, retained_host, 1))
        else:
            self.admitted = new_charge((plan.gpu_bytes, host, 1))
            self.retained = new_charge((staging, retained_host, 1))
        #: The part of ``retained`` that is this job's staging range (GPU and mapped host).
        self.staging_charge = new_charge((staging, staging, 0))
        if not self.admitted.covers(self.retained):  # pragma: no cover - planner invariant
            msg = f"job {job_id}: retained {self.retained} exceeds admitted {self.admitted}"
            raise AssertionError(msg)

    def release_plan(self) -> None:
        """Destroy the plan's working buffers and drop the graph (idempotent)."""
        if self.plan is not None:
            self.plan.release()
            self.plan = None
