"""One GPU submission: several jobs' command buffers and terminal copies in one queue.submit.

CPU-output jobs copy their terminal bytes into one shared staging arena (ranges at multiples
of 256); the arena is mapped with a :class:`MapFence` once submitted, each result is copied
out of its own range when delivered, and the arena is unmapped and destroyed when its last
range has been consumed. GPU-output jobs copy into their own resident buffer instead; a
submission without CPU jobs fences on the first resident job's download workspace. All jobs
are recorded into one command buffer; if any job fails to record, the submission re-records
with one command buffer per job so only the failing jobs are dropped.
"""

from __future__ import annotations

import time
from typing import Any

from PIL import Image as PILImage

from pillow_gpu.errors import GpuError
from pillow_gpu.executor._credits import Charge
from pillow_gpu.executor._errors import BatchError, ExecutionError, for_job
from pillow_gpu.executor._fence import MapFence
from pillow_gpu.executor._job import Job
from pillow_gpu.executor._stats import Counters
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._layout import image_from_terminal

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
        self.jobs: list[Job] = []
        self.arena: Any = None
        self.fence: MapFence | None = None
        self._fence_buffer: Any = None
        self.complete = False
        self._cpu_left = 0
        self._arena_held = Charge()

    # -- launch -------------------------------------------------------------------------------
    def launch(self, jobs: list[Job], counters: Counters) -> list[tuple[Job, BatchError]]:
        """Allocate, encode and submit ``jobs``; return the jobs that failed and why.

        A failed job has had its plan released; the caller returns its credits.
        """
        import wgpu  # type: ignore[import-untyped]

        gpu = self._shared.device
        failed: list[tuple[Job, BatchError]] = []
        allocated: list[Job] = []
        for job in jobs:
            try:
                assert job.plan is not None
                job.plan.allocate(self._shared)
            except Exception as error:
                job.release_plan()
                failed.append((job, _job_error(job, error, "allocation")))
            else:
                allocated.append(job)
        cpu_jobs = [job for job in allocated if job.output == "cpu"]
        offset = 0
        for job in cpu_jobs:
            job.offset = offset
            offset += job.staging_nbytes
        copy_dst = wgpu.BufferUsage.COPY_DST
        if cpu_jobs:
            self.arena = gpu.create_buffer(size=offset, usage=wgpu.BufferUsage.MAP_READ | copy_dst)
        buffers = self._encode_together(allocated, has_cpu=bool(cpu_jobs))
        if buffers:
            self.jobs.extend(allocated)
        else:  # something failed to encode: one encoder per job isolates the failures
            self._fence_buffer = None
            for job in allocated:
                try:
                    encoder = gpu.create_command_encoder()
                    if job.output == "gpu":
                        self._create_resident(job)
                        assert job.plan is not None
                        job.plan.encode(encoder, job.resident, 0)
                        if self._fence_buffer is None and not cpu_jobs:
                            encoder.copy_buffer_to_buffer(job.resident, 0, job.workspace, 0, 4)
                            self._fence_buffer = job.workspace
                    else:
                        assert job.plan is not None
                        job.plan.encode(encoder, self.arena, job.offset)
                    buffers.append(encoder.finish())
                except Exception as error:
                    self._destroy_resident(job)
                    job.release_plan()
                    failed.append((job, _job_error(job, error, "encode")))
                else:
                    self.jobs.append(job)
        if not self.jobs:
            self._destroy_arena()
            return failed
        self._shared.queue.submit(buffers)
        self._cpu_left = sum(1 for job in self.jobs if job.output == "cpu")
        if self.arena is not None and self._cpu_left:
            self._fence_buffer = self.arena
        elif self._fence_buffer is None:  # the only CPU job failed to encode: fence a resident
            fence_job = next(job for job in self.jobs if job.output == "gpu")
            encoder = gpu.create_command_encoder()
            encoder.copy_buffer_to_buffer(fence_job.resident, 0, fence_job.workspace, 0, 4)
            self._shared.queue.submit([encoder.finish()])
            self._fence_buffer = fence_job.workspace
            self._destroy_arena()  # no submitted command buffer uses it
        self.fence = MapFence(self._fence_buffer)
        self._deadline = time.monotonic() + self._timeout
        counters.submissions += 1
        counters.largest_submission = max(counters.largest_submission, len(self.jobs))
        work = 0
        for job in self.jobs:
            assert job.plan is not None
            program = job.plan.program
            counters.dispatches += len(program.dispatches)
            work += program.work
            counters.upload_bytes += program.bytes_of("table") + program.bytes_of("params")
            counters.upload_bytes += sum(
                upload.node.size[0] * upload.node.size[1] * 4 for upload in job.plan.uploads
            )
        counters.shader_work += work
        counters.largest_submission_work = max(counters.largest_submission_work, work)
        return failed

    def _create_resident(self, job: Job) -> None:
        import wgpu

        if job.resident is None:
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
            for job in jobs:
                assert job.plan is not None
                if job.output == "gpu":
                    self._create_resident(job)
                    job.plan.encode(encoder, job.resident, 0)
                    fence_job = fence_job or job
                else:
                    job.plan.encode(encoder, self.arena, job.offset)
            if fence_job is not None and not has_cpu:
                encoder.copy_buffer_to_buffer(fence_job.resident, 0, fence_job.workspace, 0, 4)
                self._fence_buffer = fence_job.workspace
            return [encoder.finish()]
        except Exception:
            self._fence_buffer = None
            return []

    # -- completion ---------------------------------------------------------------------------
    def is_done(self) -> bool:
        """True when the submission's work has completed (without blocking)."""
        return self.complete or (self.fence is not None and self.fence.is_done())

    def finish(self) -> None:
        """Wait (up to the submission timeout) and retire every job's working buffers."""
        if self.complete:
            return
        assert self.fence is not None
        self.fence.wait(self._deadline)
        if self._fence_buffer is not self.arena:
            self._fence_buffer.unmap()
        for job in self.jobs:
            job.release_plan()
        self.complete = True

    # -- delivery -----------------------------------------------------------------------------
    def take_cpu(self, job: Job, *, build: bool) -> tuple[PILImage.Image | None, Charge]:
        """Copy ``job``'s range into its own image (if ``build``); return it and credits freed.

        The job's staging range stays charged until the arena's last range is consumed.
        """
        image = None
        if build:
            view = self.arena.read_mapped(job.offset, job.staging_nbytes, copy=False)
            image = image_from_terminal(job.mode, job.size, view)
        self._cpu_left -= 1
        self._arena_held = self._arena_held + job.staging_charge
        freed = job.retained - job.staging_charge
        if self._cpu_left == 0:
            freed = freed + self._arena_held
            self._arena_held = Charge()
            self._destroy_arena()
        return image, freed

    def take_resident(self, job: Job) -> tuple[Any, Any]:
        """Hand ``job``'s resident buffer and download workspace to a lease."""
        buffers = (job.resident, job.workspace)
        job.resident = job.workspace = None
        return buffers

    def drop_gpu(self, job: Job) -> Charge:
        """Discard an undelivered resident output; return the credits it held."""
        self._destroy_resident(job)
        return job.retained

    def abandon(self) -> None:
        """Forget buffers that may still be in use (after a timeout): never unmap/destroy them."""
        self.arena = None
        self._fence_buffer = None
        for job in self.jobs:  # drop references only: wgpu frees them once the device is done
            job.resident = job.workspace = None
            job.plan = None

    def _destroy_resident(self, job: Job) -> None:
        for buffer in (job.resident, job.workspace):
            if buffer is not None:
                buffer.destroy()
        job.resident = job.workspace = None

    def _destroy_arena(self) -> None:
        if self.arena is not None:
            if self.arena.map_state == "mapped":
                self.arena.unmap()
            self.arena.destroy()
            self.arena = None
