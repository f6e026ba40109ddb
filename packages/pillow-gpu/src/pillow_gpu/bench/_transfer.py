"""The transfer-bound lane: the bytes a workload moves, uploaded and read back, with no kernel.

Per job it writes Pillow's stored bytes of every input (L one byte per pixel, RGB/RGBA four)
into a device buffer and copies the first ``result`` bytes (the stored size of the output)
back through one staging buffer: one submit and one map per window (per ``slots`` jobs), as in
the reference lane. Nothing is computed, so its img/s is the physical limit of the
host-adapter path for this workload; an executor lane's ``share_of_transfer`` is its throughput
over this one. The check is a round trip: the bytes read back must equal the bytes written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PIL import Image as PILImage

from pillow_gpu.bench._stored import SlotBatch, padded, stored_bytes, stored_nbytes
from pillow_gpu.bench._workloads import Workload, job_sources

__all__ = ["TransferLane"]


class TransferLane:
    """Upload and download of one case's bytes per job (see the module docstring)."""

    def __init__(
        self,
        workload: Workload,
        sources: Sequence[PILImage.Image],
        reference: Sequence[PILImage.Image],
        *,
        batch: int,
        byte_budget: int,
    ) -> None:
        self.workload, self.batch = workload, batch
        self._sources = sources
        self._stored = {id(image): stored_bytes(image) for image in sources}
        inputs = job_sources(workload, sources, 0)
        offsets, total = [], 0
        for image in inputs:
            offsets.append(("moved", total))
            total += padded(len(self._stored[id(image)]))
        result = reference[0]
        self.upload_bytes_per_image = sum(len(self._stored[id(image)]) for image in inputs)
        self.download_bytes_per_image = stored_nbytes(result.mode, result.size)
        self._runner = SlotBatch(
            buffers={"moved": max(total, self.download_bytes_per_image)},
            inputs=offsets,
            result="moved",
            result_nbytes=self.download_bytes_per_image,
            batch=batch,
            byte_budget=byte_budget,
        )
        self.slots = self._runner.slots
        self.submits_per_window = self._runner.submits_per_window

    def _inputs(self, index: int) -> list[bytes]:
        data = []
        for image in job_sources(self.workload, self._sources, index):
            stored = self._stored[id(image)]
            data.append(stored + bytes(padded(len(stored)) - len(stored)))
        return data

    def run(self) -> list[bytes]:
        """Move every job's bytes up and its result's worth back; return what came back."""
        return self._runner.run(self._inputs, None)

    def window(self) -> Callable[[], int]:
        """A timed window: the whole batch's uploads, one submit, the readback."""
        return lambda: len(self.run())

    def check(self) -> str:
        """Run once and compare what came back with what went up (the lane's parity)."""
        bad = 0
        for index, data in enumerate(self.run()):
            sent = b"".join(self._inputs(index))
            if data != sent[: len(data)]:
                bad += 1
        if bad:
            return f"MISMATCH: {bad} of {self.batch} round trips changed bytes"
        return "no kernel (round trip exact)"

    def close(self) -> None:
        """Destroy the buffers."""
        self._runner.close()
