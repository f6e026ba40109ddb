"""The ceiling lane: the planner's WGSL kernels dispatched directly through wgpu.

The planner lowers the case's graph outside the timed window, once per job of a chunk (every
job of a case has the same program: same chain, mode and size), and the chunk's plans are
allocated together once, stacked as the executor stacks a submission's same-shaped jobs
(:mod:`pillow_gpu.gpu._stack`), plus one staging buffer. A timed window then only uploads each
job's precomputed source words into its lane, records the chunk with the executor's
``encode_together`` (one compute pass, stacked dispatches, coalesced terminal copies), submits
once, maps, and copies the terminal bytes out. There is no planning, no credits and no per-job
Python object beyond that. A batch larger than ``slots`` (bounded by a byte budget) runs as
several such submissions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PIL import Image as PILImage

from pillow_gpu import Image
from pillow_gpu.bench._workloads import Workload, job_sources
from pillow_gpu.gpu._device import get_device
from pillow_gpu.gpu._layout import upload_bytes
from pillow_gpu.gpu._planner import plan_graph
from pillow_gpu.gpu._stack import allocate_together, encode_together, lane_buffer

__all__ = ["CeilingLane"]


class CeilingLane:
    """Preallocated direct-wgpu execution of one case's jobs (see the module docstring)."""

    def __init__(
        self,
        workload: Workload,
        mode: str,
        sources: Sequence[PILImage.Image],
        *,
        batch: int,
        byte_budget: int,
    ) -> None:
        import wgpu  # type: ignore[import-untyped]

        self._shared = shared = get_device()
        self.workload = workload
        self.batch = batch
        leaves = [Image.from_pil(source) for source in job_sources(workload, sources, 0)]
        graph = workload.lazy(mode, leaves)
        self.plan = plan_graph(graph, limits=shared.limits)
        # Which job input feeds each upload of the program.
        positions = {id(leaf.node): k for k, leaf in enumerate(leaves)}
        self._upload_inputs = [
            (upload.buffer, positions[id(upload.node)]) for upload in self.plan.uploads
        ]
        self._words = {id(source): upload_bytes(source) for source in sources}
        self._sources = sources
        per_job = self.plan.gpu_bytes
        self.slots = max(1, min(batch, byte_budget // max(1, per_job)))
        self.submits_per_window = -(-batch // self.slots)
        self._plans = [self.plan] + [
            plan_graph(graph, limits=shared.limits) for _ in range(self.slots - 1)
        ]
        failed = allocate_together(self._plans, shared)
        if failed:
            raise failed[0][1]
        self._stride = self.plan.staging_nbytes
        self._staging = shared.device.create_buffer(
            size=self._stride * self.slots,
            usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST,
        )

    def run(self) -> list[bytes]:
        """Run every job of the batch; return each job's terminal bytes (in job order)."""
        import wgpu

        shared = self._shared
        queue = shared.queue
        nbytes = self.plan.terminal_nbytes
        outputs: list[bytes] = []
        for first in range(0, self.batch, self.slots):
            jobs = range(first, min(first + self.slots, self.batch))
            for plan, index in zip(self._plans, jobs, strict=False):
                inputs = job_sources(self.workload, self._sources, index)
                for buffer, position in self._upload_inputs:
                    target, offset = lane_buffer(plan, buffer)
                    queue.write_buffer(target, offset, self._words[id(inputs[position])])
            encoder = shared.device.create_command_encoder()
            encode_together(
                encoder,
                [
                    (plan, self._staging, position * self._stride)
                    for position, (plan, _) in enumerate(zip(self._plans, jobs, strict=False))
                ],
            )
            queue.submit([encoder.finish()])
            self._staging.map_sync(wgpu.MapMode.READ)
            try:
                mapped = self._staging.read_mapped(0, self._stride * len(jobs), copy=False)
                outputs.extend(
                    bytes(mapped[k * self._stride : k * self._stride + nbytes])
                    for k in range(len(jobs))
                )
            finally:
                self._staging.unmap()
        return outputs

    def window(self) -> Callable[[], int]:
        """A timed window: upload, dispatch and read back the whole batch."""
        return lambda: len(self.run())

    def images(self) -> list[PILImage.Image]:
        """Run the batch and build each output image (for the parity check)."""
        return [self.plan.build(data) for data in self.run()]

    def close(self) -> None:
        """Give the preallocated buffers back to the device's pool; destroy the staging."""
        for plan in self._plans:
            plan.release()
        self._staging.destroy()
