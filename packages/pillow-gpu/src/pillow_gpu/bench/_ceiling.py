"""The ceiling lane: the planner's WGSL kernels dispatched directly through wgpu.

The planner lowers one job's graph once, outside the timed window. Every job of a case has the
same program (same chain, mode and size), so the lane preallocates ``slots`` copies of its
buffers and bind groups plus one staging buffer. A timed window then only uploads each job's
precomputed source words, records every dispatch of the chunk into one compute pass, copies each
terminal into staging, submits once, maps, and copies the terminal bytes out. There is no
planning, no credits and no per-job Python object beyond that. A batch larger than ``slots``
(bounded by a byte budget) runs as several such submissions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image as PILImage

from pillow_gpu import Image
from pillow_gpu.bench._workloads import Workload, job_sources
from pillow_gpu.gpu._device import SharedDevice, get_device
from pillow_gpu.gpu._layout import upload_bytes
from pillow_gpu.gpu._plan import STAGING_ALIGNMENT, Plan
from pillow_gpu.gpu._planner import plan_graph

__all__ = ["CeilingLane"]


class _Slot:
    """One job's preallocated buffers and bind groups."""

    def __init__(self, shared: SharedDevice, plan: Plan) -> None:
        import wgpu  # type: ignore[import-untyped]

        gpu = shared.device
        storage = wgpu.BufferUsage.STORAGE
        self.buffers: list[Any] = []
        for spec in plan.program.buffers:
            if spec.role == "params":
                buffer = gpu.create_buffer_with_data(data=spec.data, usage=wgpu.BufferUsage.UNIFORM)
            elif spec.role == "table":
                buffer = gpu.create_buffer_with_data(data=spec.data, usage=storage)
            else:
                usage = storage | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
                buffer = gpu.create_buffer(size=spec.nbytes, usage=usage)
            self.buffers.append(buffer)
        self.bind_groups = [
            gpu.create_bind_group(
                layout=shared.pipeline(dispatch.pipeline).get_bind_group_layout(0),
                entries=[
                    {"binding": slot, "resource": {"buffer": self.buffers[index]}}
                    for slot, index in enumerate((dispatch.params, *dispatch.bindings))
                ],
            )
            for dispatch in plan.program.dispatches
        ]

    def destroy(self) -> None:
        for buffer in self.buffers:
            buffer.destroy()


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
        import wgpu

        self._shared = shared = get_device()
        self.workload = workload
        self.batch = batch
        leaves = [Image.from_pil(source) for source in job_sources(workload, sources, 0)]
        self.plan = plan_graph(workload.lazy(mode, leaves), limits=shared.limits)
        # Which job input feeds each upload of the program.
        positions = {id(leaf.node): k for k, leaf in enumerate(leaves)}
        self._upload_inputs = [
            (upload.buffer, positions[id(upload.node)]) for upload in self.plan.uploads
        ]
        self._words = {id(source): upload_bytes(source) for source in sources}
        self._sources = sources
        stride = self.plan.staging_nbytes
        per_job = self.plan.gpu_bytes
        self.slots = max(1, min(batch, byte_budget // max(1, per_job)))
        self.submits_per_window = -(-batch // self.slots)
        self._slots = [_Slot(shared, self.plan) for _ in range(self.slots)]
        self._stride = -(-stride // STAGING_ALIGNMENT) * STAGING_ALIGNMENT
        self._staging = shared.device.create_buffer(
            size=self._stride * self.slots,
            usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST,
        )

    def run(self) -> list[bytes]:
        """Run every job of the batch; return each job's terminal bytes (in job order)."""
        import wgpu

        shared = self._shared
        queue = shared.queue
        dispatches = self.plan.program.dispatches
        pipelines = [shared.pipeline(dispatch.pipeline) for dispatch in dispatches]
        nbytes = self.plan.terminal_nbytes
        outputs: list[bytes] = []
        for first in range(0, self.batch, self.slots):
            jobs = range(first, min(first + self.slots, self.batch))
            for slot, index in zip(self._slots, jobs, strict=False):
                inputs = job_sources(self.workload, self._sources, index)
                for buffer, position in self._upload_inputs:
                    queue.write_buffer(slot.buffers[buffer], 0, self._words[id(inputs[position])])
            encoder = shared.device.create_command_encoder()
            compute = encoder.begin_compute_pass()
            for slot, _ in zip(self._slots, jobs, strict=False):
                for dispatch, pipeline, group in zip(
                    dispatches, pipelines, slot.bind_groups, strict=True
                ):
                    compute.set_pipeline(pipeline)
                    compute.set_bind_group(0, group)
                    compute.dispatch_workgroups(dispatch.groups[0], dispatch.groups[1], 1)
            compute.end()
            for position, (slot, _) in enumerate(zip(self._slots, jobs, strict=False)):
                encoder.copy_buffer_to_buffer(
                    slot.buffers[self.plan.terminal],
                    0,
                    self._staging,
                    position * self._stride,
                    nbytes,
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
        """Destroy the preallocated buffers."""
        for slot in self._slots:
            slot.destroy()
        self._staging.destroy()
