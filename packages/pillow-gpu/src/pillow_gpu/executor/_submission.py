"""One GPU submission: several jobs' command buffers and terminal copies in one queue.submit.

CPU-output jobs copy their terminal bytes into one shared staging arena (ranges at multiples
of 256); the arena is mapped with a :class:`MapFence` once submitted, each result is copied
out of its own range when delivered, and the arena is unmapped and handed to the device's
pool of idle allocations (``gpu._slots``) when its last range has been consumed. GPU-output
jobs copy into their own resident buffer instead; a submission without CPU jobs fences on the
first resident job's download workspace. All jobs are recorded into one command buffer; if any
job fails to record, the submission re-records with one command buffer per job so only the
failing jobs are dropped.

Interrupts: :meth:`Submission.launch` can be interrupted (KeyboardInterrupt while a leaf is
decoded, for example) at any point before ``queue.submit``; ``submitted`` then stays False
and :meth:`rollback` frees what was allocated so that the executor can plan the jobs again.
The submit and everything after it run with SIGINT deferred, so ``submitted`` is True exactly
when the work was handed to the queue (for other interrupts it may be False although the
queue took the work; the rollback is still safe, because destroying buffers after a submit is
legal and a re-planned job's reused buffers are cleared before use).
"""

from __future__ import annotations

import time
from typing import Any

from PIL import Image as PILImage

from pillow_gpu.errors import GpuError
from pillow_gpu.executor._credits import Charge
from pillow_gpu.executor._errors import BatchError, ExecutionError, for_job
from pillow_gpu.executor._fence import MapFence
from pillow_gpu.executor._interrupts import deferred_sigint
from pillow_gpu.executor._job import Job
from pillow_gpu.executor._stats import Counters
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._layout import image_from_terminal
from pillow_gpu.gpu._mapped import read_view
from pillow_gpu.gpu._plan import Plan
from pillow_gpu.gpu._slots import Slot
from pillow_gpu.gpu._stack import allocate_together, encode_together
from pillow_gpu.gpu._upload_belt import UploadBatch

__all__ = ["MAX_SUBMISSION_OPS", "Submission"]

#: Most compute dispatches one submission records (the spec's per-submission operation bound).
MAX_SUBMISSION_OPS = 256


def _job_error(job: Job, error: BaseException, stage: str) -> BatchError:
    if isinstance(error, GpuError):
        return for_job(error, job.job_id, job.input_key)
    return ExecutionError(
        f"the job failed while being prepared for the GPU ({stage})",
        observed=f"{type(error).__name__}: {error}",
        fix="check the job's source file and graph; other jobs were not affected",
        stage=stage,
        job_id=job.job_id,
        input_key=job.input_key,
    )


class Submission:
    """Jobs submitted together, their staging arena, and the fence that marks completion."""

    def __init__(self, shared: SharedDevice, *, timeout: float) -> None:
        self._shared = shared
        self._timeout = timeout
        #: The jobs handed to :meth:`launch` (set by the executor before it calls launch).
        self.group: list[Job] = []
        #: Jobs of ``group`` that failed to allocate or encode, with their errors.
        self.failed: list[tuple[Job, BatchError]] = []
        #: Jobs of ``group`` that were submitted.
        self.jobs: list[Job] = []
        self.submitted = False
        self.arena: Any = None
        self._mapped: memoryview | None = None  # the mapped arena, read on first delivery
        self.fence: MapFence | None = None
        self._fence_buffer: Any = None
        self.complete = False
        #: The last CPU job: its delivery returns the whole arena's charge and frees the arena.
        self.last_cpu: Job | None = None
        self.arena_charge = Charge()
        self._deadline = 0.0
        self._encoded: tuple[list[Job], list[Any]] = ([], [])
        #: The launch's small uploads, staged for a copy submitted before its jobs' work.
        self._uploads = UploadBatch(shared.device, shared.queue, shared.staging)
        self._dispatch_calls = 0
        #: Set on completion: the credits it returns and the (submission, job) ready pairs.
        self.completion_freed = Charge()
        self.ready: list[tuple[Submission, Job]] = []
        self.credited = False
        self.retired = False

    # -- launch -------------------------------------------------------------------------------
    def launch(self) -> None:
        """Allocate and encode ``group``; failed jobs go to ``failed``; then :meth:`submit`.

        Consecutive same-shaped jobs share a stacked allocation (:mod:`pillow_gpu.gpu._stack`).

        A failed job has had its plan released; the caller returns its credits.
        """
        import wgpu  # type: ignore[import-untyped]

        gpu = self._shared.device
        failed = self.failed
        allocated: list[Job] = []
        plans = []
        for job in self.group:
            assert job.plan is not None
            plans.append(job.plan)
        allocation = allocate_together(plans, self._shared, self._uploads)
        errors = {id(plan): error for plan, error in allocation}
        for job in self.group:
            error = errors.get(id(job.plan))
            if error is not None:
                failed.append((job, _job_error(job, error, "allocation")))
                job.release_plan()
            else:
                allocated.append(job)
        cpu_jobs = [job for job in allocated if job.output == "cpu"]
        offset = 0
        for job in cpu_jobs:
            job.offset = offset
            offset += job.staging_nbytes
        copy_dst = wgpu.BufferUsage.COPY_DST
        if cpu_jobs:
            pooled = self._shared.slots.take(("arena", offset))
            self.arena = (
                pooled.buffers[0]
                if pooled is not None
                else gpu.create_buffer(size=offset, usage=wgpu.BufferUsage.MAP_READ | copy_dst)
            )
        buffers = self._encode_together(allocated, has_cpu=bool(cpu_jobs))
        jobs: list[Job] = []
        if buffers:
            jobs.extend(allocated)
        else:  # something failed to encode: one encoder per job isolates the failures
            self._fence_buffer = None
            for job in allocated:
                try:
                    encoder = gpu.create_command_encoder()
                    if job.output == "gpu":
                        self._create_resident(job)
                        assert job.plan is not None
                        self._dispatch_calls += job.plan.encode(encoder, job.resident, 0)
                        if self._fence_buffer is None and not cpu_jobs:
                            encoder.copy_buffer_to_buffer(job.resident, 0, job.workspace, 0, 4)
                            self._fence_buffer = job.workspace
                    else:
                        assert job.plan is not None
                        self._dispatch_calls += job.plan.encode(encoder, self.arena, job.offset)
                    buffers.append(encoder.finish())
                except Exception as error:
                    failed.append((job, _job_error(job, error, "encode")))
                    self._destroy_resident(job)
                    job.release_plan()
                else:
                    jobs.append(job)
        if not jobs:
            self._destroy_arena()
            self._uploads.discard()
        # The staged uploads' copies go first: every job's dispatches read them.
        self._encoded = (jobs, [*self._uploads.command_buffers(), *buffers] if jobs else [])

    def submit(self, counters: Counters) -> None:
        """Submit what :meth:`launch` encoded (the caller defers SIGINT around this call).

        ``submitted`` becomes True right after ``queue.submit`` returns.
        """
        jobs, buffers = self._encoded
        self._encoded = ([], [])
        if not jobs:
            return
        self._shared.queue.submit(buffers)
        self.jobs = jobs
        self.submitted = True
        self._uploads.submitted()
        self._arm(counters)

    def _arm(self, counters: Counters) -> None:
        """Map the fence buffer and count the submission (right after ``queue.submit``)."""
        gpu = self._shared.device
        cpu_jobs = [job for job in self.jobs if job.output == "cpu"]
        if cpu_jobs:
            self.last_cpu = cpu_jobs[-1]
            staging = sum(job.staging_nbytes for job in cpu_jobs)  # each job's staging_charge
            self.arena_charge = self.arena_charge + Charge(staging, staging)
        if self.arena is not None and cpu_jobs:
            self._fence_buffer = self.arena
        elif self._fence_buffer is None:  # the only CPU job failed to encode: fence a resident
            fence_job = next(job for job in self.jobs if job.output == "gpu")
            encoder = gpu.create_command_encoder()
            encoder.copy_buffer_to_buffer(fence_job.resident, 0, fence_job.workspace, 0, 4)
            self._shared.queue.submit([encoder.finish()])
            self._fence_buffer = fence_job.workspace
            self._destroy_arena()  # no submitted command buffer uses it
        self.fence = MapFence(self._fence_buffer, gpu)
        self._deadline = time.monotonic() + self._timeout
        counters.submissions += 1
        counters.dispatch_calls += self._dispatch_calls
        counters.largest_submission = max(counters.largest_submission, len(self.jobs))
        work = 0
        # Jobs of one stored program have one shape, so equal counts: each program once.
        counts: dict[int, tuple[int, int, int]] = {}
        gpu_freed = host_freed = jobs_freed = 0
        for job in self.jobs:
            plan = job.plan
            assert plan is not None
            count = counts.get(id(plan.program))
            if count is None:
                program = plan.program
                uploaded = sum(upload.nbytes for upload in plan.uploads)
                count = len(program.dispatches), program.work, program.constant_nbytes + uploaded
                counts[id(program)] = count
            counters.dispatches += count[0]
            work += count[1]
            counters.upload_bytes += count[2]
            plan.drop_graph()  # the graph is freed now; its results and credits come later
            admitted, retained = job.admitted, job.retained
            gpu_freed += admitted[0] - retained[0]
            host_freed += admitted[1] - retained[1]
            jobs_freed += admitted[2] - retained[2]
        counters.shader_work += work
        counters.largest_submission_work = max(counters.largest_submission_work, work)
        self.completion_freed = Charge(gpu_freed, host_freed, jobs_freed)
        self.ready = [(self, job) for job in self.jobs]

    def rollback(self) -> list[Job]:
        """Undo an unsubmitted launch: free its buffers; return the jobs to plan again.

        Their plans are released (working buffers go back to the device's pool); failed jobs
        stay in ``failed``.
        """
        failed = {id(job) for job, _ in self.failed}
        restore = [job for job in self.group if id(job) not in failed]
        for job in self.group:
            self._destroy_resident(job)
        self._destroy_arena()
        self._uploads.discard()
        self._fence_buffer = None
        return restore

    def _create_resident(self, job: Job) -> None:
        import wgpu

        if job.resident is None:
            pair = self._shared.resident_pool.take(job.staging_nbytes)
            if pair is not None:  # a dropped output's idle buffers (gpu._resident_pool)
                job.resident, job.workspace = pair
                return
            gpu, copy_dst = self._shared.device, wgpu.BufferUsage.COPY_DST
            job.resident = gpu.create_buffer(
                size=job.staging_nbytes, usage=wgpu.BufferUsage.COPY_SRC | copy_dst
            )
            job.workspace = gpu.create_buffer(
                size=job.staging_nbytes, usage=wgpu.BufferUsage.MAP_READ | copy_dst
            )

    def _encode_together(self, jobs: list[Job], *, has_cpu: bool) -> list[Any]:
        """Record every job into one command buffer; ``[]`` if any step raised."""
        if not jobs:
            return []
        try:
            encoder = self._shared.device.create_command_encoder()
            fence_job: Job | None = None
            targets: list[tuple[Plan, Any, int]] = []
            for job in jobs:
                assert job.plan is not None
                if job.output == "gpu":
                    self._create_resident(job)
                    targets.append((job.plan, job.resident, 0))
                    fence_job = fence_job or job
                else:
                    targets.append((job.plan, self.arena, job.offset))
            calls = encode_together(encoder, targets)
            if fence_job is not None and not has_cpu:
                encoder.copy_buffer_to_buffer(fence_job.resident, 0, fence_job.workspace, 0, 4)
                self._fence_buffer = fence_job.workspace
            buffers = [encoder.finish()]
            self._dispatch_calls = calls
            return buffers
        except Exception:
            self._fence_buffer = None
            return []

    # -- completion ---------------------------------------------------------------------------
    def is_done(self) -> bool:
        """True when the submission's work has completed (without blocking)."""
        return self.complete or (self.fence is not None and self.fence.is_done())

    def finish(self) -> None:
        """Wait (up to the submission timeout) and retire every job's working buffers.

        Safe to call again after an interrupt.
        """
        if self.complete:
            return
        assert self.fence is not None
        self.fence.wait(self._deadline, jobs=len(self.jobs), timeout=self._timeout)
        fence_buffer = self._fence_buffer
        if fence_buffer is not self.arena:
            with deferred_sigint():  # see _destroy_arena
                if fence_buffer.map_state == "mapped":
                    fence_buffer.unmap()
        for job in self.jobs:
            job.release_plan()
        self.complete = True

    # -- delivery -----------------------------------------------------------------------------
    def build_cpu(self, job: Job) -> PILImage.Image:
        """Copy ``job``'s range of the mapped arena into a new image (no state changes)."""
        mapped = self._mapped
        if mapped is None:  # the whole arena at once: one view, sliced per job
            mapped = self._mapped = read_view(self.arena)
        view = mapped[job.offset : job.offset + job.staging_nbytes]
        return image_from_terminal(job.mode, job.size, view, job.palette)

    def cpu_freed(self, job: Job) -> Charge:
        """Credits a CPU job's delivery returns: all but its staging range, and for the last
        CPU job the staging of the whole arena (which stays charged until then)."""
        freed = job.retained - job.staging_charge
        if job is self.last_cpu:
            freed = freed + self.arena_charge
        return freed

    def after_cpu(self, job: Job) -> None:
        """Free the arena once its last CPU job was delivered (idempotent)."""
        if job is self.last_cpu:
            self._destroy_arena()

    def take_resident(self, job: Job) -> tuple[Any, Any]:
        """Hand ``job``'s resident buffer and download workspace to a lease."""
        buffers = (job.resident, job.workspace)
        job.resident = job.workspace = None
        return buffers

    def drop_gpu(self, job: Job) -> None:
        """Discard an undelivered resident output."""
        self._destroy_resident(job)

    def destroy_arena(self) -> None:
        """Discard the arena of undelivered CPU outputs (cancellation)."""
        self._destroy_arena()

    def abandon(self) -> None:
        """Forget buffers that may still be in use (after a timeout): never unmap/destroy them."""
        self.arena = None
        self._mapped = None
        self._fence_buffer = None
        for job in (
            *self.jobs,
            *self.group,
        ):  # drop references only: wgpu frees them once the device is done
            job.resident = job.workspace = None
            job.plan = None

    def _destroy_resident(self, job: Job) -> None:
        for buffer in (job.resident, job.workspace):
            if buffer is not None:
                buffer.destroy()
        job.resident = job.workspace = None

    def _destroy_arena(self) -> None:
        # The arena is forgotten first: if an interrupt cuts the unmap short (wgpu-native
        # unmapped, wgpu-py not yet told), a retry must not unmap again; a forgotten arena is
        # released by wgpu-py's finalizer. An arena unmapped cleanly goes to the device's pool
        # of idle allocations (like a plan's slot), so the next submission of the same size
        # reuses it instead of creating and destroying a mapped buffer (destroying one waits
        # for wgpu's poll thread, which blocks on the submission in flight).
        arena = self.arena
        self.arena = None
        self._mapped = None  # wgpu releases the view itself when it unmaps
        if arena is not None:
            state = arena.map_state
            if state == "mapped":
                arena.unmap()
            # A map still resolving is never lent out; an arena above a quarter of the pool
            # would evict the working slots the next submission needs.
            if state == "pending" or arena.size > self._shared.slots.max_bytes // 4:
                arena.destroy()
                return
            idle = Slot(buffers=[arena], resources=[], bind_groups=[], clear=(), nbytes=arena.size)
            self._shared.slots.give(("arena", arena.size), idle)
