"""The reference lane: hand-written WGSL kernels, not lowered through our planner.

It shows what a good kernel costs on the adapter. Kernels (``reference_*.wgsl`` beside this
module) work on Pillow's stored bytes packed in u32 words: invert fused with a 3x3 median
(19-exchange selection network), a word-wide ImageChops.invert (four L pixels per word) and the
six box passes of GaussianBlur with Pillow's box-blur arithmetic. Buffers, bind groups and
parameters are made once per case, each buffer holding every image of a chunk (256-byte
aligned); a window writes each job's stored bytes, records each pass as one dispatch for the
whole chunk (workgroup z is the image, so the chunk costs one dispatch per pass whatever its
size), submits once (per ``slots`` jobs) and copies the result bytes out. Its output is checked
against Pillow like every other lane.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image as PILImage

from pillow_gpu.bench._stored import (
    SlotBatch,
    from_stored,
    padded,
    slot_stride,
    stored_bytes,
    stored_nbytes,
)
from pillow_gpu.bench._workloads import Workload, job_sources

__all__ = ["ReferenceLane", "ReferenceUnavailable", "box_blur_weights", "gaussian_box_radius"]

_KERNELS = Path(__file__).with_name


class ReferenceUnavailable(Exception):
    """The reference lane has no kernel for this workload, mode or size (reported as n/a)."""


@dataclass(frozen=True, slots=True)
class _Pass:
    shader: str
    entry: str
    params: bytes
    groups: tuple[int, int]


def gaussian_box_radius(radius: float, passes: int = 3) -> float:
    """Pillow's box radius for GaussianBlur(radius) with ``passes`` box passes (float32)."""
    f32 = np.float32
    sigma2 = f32(radius) * f32(radius) / f32(passes)
    root = f32(math.sqrt(12.0 * float(sigma2) + 1.0))
    lower = f32(math.floor((float(root) - 1.0) / 2.0))
    a = (f32(2) * lower + f32(1)) * (lower * (lower + f32(1)) - f32(3) * sigma2)
    a = a / (f32(6) * (sigma2 - (lower + f32(1)) * (lower + f32(1))))
    return float(lower + a)


def box_blur_weights(box_radius: float) -> tuple[int, int, int]:
    """(integer radius, ww, fw) of one box pass of float radius ``box_radius``."""
    f32 = np.float32
    whole = int(box_radius)
    ww = int(f32(16777216) / (f32(box_radius) * f32(2) + f32(1)))
    fw = (16777216 - (2 * whole + 1) * ww) // 2
    return whole, ww, fw


def _groups(columns: int, rows: int) -> tuple[int, int]:
    return -(-columns // 64), rows


def _passes(name: str, mode: str, width: int, height: int, image_words: int) -> list[_Pass]:
    """The kernels of a chunk (its images ``image_words`` apart in every buffer), or
    :class:`ReferenceUnavailable` with the reason."""
    if name not in ("invert_median3", "chops_invert", "gaussian_blur2"):
        raise ReferenceUnavailable(f"no reference kernel for workload {name}")
    if mode not in ("L", "RGB", "RGBA"):
        raise ReferenceUnavailable(f"no reference kernel for mode {mode}")
    packed_l = mode == "L"
    if packed_l and width % 4 and name != "chops_invert":
        raise ReferenceUnavailable("the L kernels pack four pixels per word: width % 4 must be 0")
    words = width // 4 if packed_l else width
    if name == "invert_median3":
        entry = "median_l4" if packed_l else "median_words"
        params = struct.pack("<4I", words, height, image_words, 0)
        return [_Pass("reference_median3", entry, params, _groups(words, height))]
    if name == "chops_invert":
        total = padded(stored_nbytes(mode, (width, height))) // 4
        row = min(total, 64 * 1024)
        params = struct.pack("<4I", total, row, image_words, 0)
        return [_Pass("reference_invert", "invert_words", params, _groups(row, -(-total // row)))]
    # gaussian_blur2: three horizontal box passes, then three vertical ones.
    whole, ww, fw = box_blur_weights(gaussian_box_radius(2.0))
    params = struct.pack("<8I", words, height, whole, ww, fw, width, image_words, 0)
    horizontal = "box_h_l4" if packed_l else "box_h_words"
    groups = _groups(words, height)
    return [_Pass("reference_boxblur", horizontal, params, groups)] * 3 + [
        _Pass("reference_boxblur", "box_v_words", params, groups)
    ] * 3


class ReferenceLane:
    """Preallocated reference-kernel execution of one case (see the module docstring)."""

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

        self.workload, self.mode, self.batch = workload, mode, batch
        self.size = sources[0].size
        nbytes = stored_nbytes(mode, self.size)
        image_words = slot_stride(nbytes) // 4  # SlotBatch's stride of a stacked buffer
        passes = _passes(workload.name, mode, *self.size, image_words)
        self._stored = {id(image): _padded_bytes(image) for image in sources}
        self._sources = sources
        self._runner = SlotBatch(
            buffers={"a": nbytes, "b": nbytes},
            inputs=[("a", 0)],
            result="b" if len(passes) % 2 else "a",
            result_nbytes=nbytes,
            batch=batch,
            byte_budget=byte_budget,
            stacked=True,
        )
        device = self._runner.shared.device
        modules: dict[str, Any] = {}
        pipelines: dict[tuple[str, str], Any] = {}
        for step in passes:
            if step.shader not in modules:
                code = _KERNELS(step.shader + ".wgsl").read_text(encoding="utf-8")
                modules[step.shader] = device.create_shader_module(label=step.shader, code=code)
            key = (step.shader, step.entry)
            if key not in pipelines:
                pipelines[key] = device.create_compute_pipeline(
                    layout="auto",
                    compute={"module": modules[step.shader], "entry_point": step.entry},
                )
        usage = wgpu.BufferUsage.UNIFORM
        self._uniforms = [
            device.create_buffer_with_data(data=step.params, usage=usage) for step in passes
        ]
        self._pipelines = [pipelines[(step.shader, step.entry)] for step in passes]
        self._groups = [step.groups for step in passes]
        # Pass k reads buffer a (k even) or b (k odd) and writes the other one.
        self._bind_groups = [
            [
                device.create_bind_group(
                    layout=pipeline.get_bind_group_layout(0),
                    entries=[
                        {"binding": 0, "resource": {"buffer": uniform}},
                        {"binding": 1, "resource": {"buffer": slot["a" if k % 2 == 0 else "b"]}},
                        {"binding": 2, "resource": {"buffer": slot["b" if k % 2 == 0 else "a"]}},
                    ],
                )
                for k, (pipeline, uniform) in enumerate(
                    zip(self._pipelines, self._uniforms, strict=True)
                )
            ]
            for slot in self._runner.buffers
        ]
        self.slots = self._runner.slots
        self.submits_per_window = self._runner.submits_per_window
        self.dispatches_per_chunk = len(passes)

    def _record(self, compute: Any, count: int) -> None:
        """Each pass once over the chunk's first ``count`` images (workgroup z)."""
        for pipeline, group, (x, y) in zip(
            self._pipelines, self._bind_groups[0], self._groups, strict=True
        ):
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(x, y, count)

    def _inputs(self, index: int) -> list[bytes]:
        (source,) = job_sources(self.workload, self._sources, index)
        return [self._stored[id(source)]]

    def run(self) -> list[bytes]:
        """Every job's result as Pillow's stored bytes."""
        return self._runner.run(self._inputs, self._record)

    def window(self) -> Callable[[], int]:
        """A timed window: upload, dispatch and read back the whole batch."""
        return lambda: len(self.run())

    def images(self) -> list[PILImage.Image]:
        """Run the batch and build each output image (for the parity check)."""
        return [from_stored(self.mode, self.size, data) for data in self.run()]

    def close(self) -> None:
        """Destroy the buffers."""
        self._runner.close()
        for uniform in self._uniforms:
            uniform.destroy()


def _padded_bytes(image: PILImage.Image) -> bytes:
    data = stored_bytes(image)
    return data + bytes(padded(len(data)) - len(data))
