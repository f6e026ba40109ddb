"""The process-wide wgpu device, its limits, and the compute pipeline cache.

One adapter/device pair is created on first use and shared by every plan in the process.
Pipelines are compiled once per shader (llvmpipe compiles at first dispatch, 0.1-0.2 s each).
"""

from __future__ import annotations

import ctypes
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from pillow_gpu.errors import DeviceError
from pillow_gpu.gpu._cffi_types import parse_wgpu_types
from pillow_gpu.gpu._program import parse_specialized
from pillow_gpu.gpu._resident_pool import ResidentPool
from pillow_gpu.gpu._slots import SlotPool
from pillow_gpu.gpu._upload_belt import StagingPool

__all__ = [
    "DeviceLimits",
    "SharedDevice",
    "forked_device_error",
    "get_device",
    "shader_source",
]

_KERNELS_PACKAGE = "pillow_gpu.gpu.kernels"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceLimits:
    """The granted device limits the planner checks every graph against.

    ``max_loop_steps`` is the adapter's bound on the loop iterations one shader invocation runs
    (all its loops together), None where none is known (hardware adapters).
    """

    max_storage_buffer_binding_size: int
    max_buffer_size: int
    max_compute_workgroups_per_dimension: int
    max_uniform_buffer_binding_size: int
    max_loop_steps: int | None = None

    @classmethod
    def from_device(cls, limits: Any, adapter_info: Any = None) -> DeviceLimits:
        """Read the hyphenated wgpu limit keys of a device (and its adapter's loop bound)."""
        return cls(
            max_storage_buffer_binding_size=int(limits["max-storage-buffer-binding-size"]),
            max_buffer_size=int(limits["max-buffer-size"]),
            max_compute_workgroups_per_dimension=int(
                limits["max-compute-workgroups-per-dimension"]
            ),
            max_uniform_buffer_binding_size=int(limits["max-uniform-buffer-binding-size"]),
            max_loop_steps=LLVMPIPE_LOOP_STEPS if is_llvmpipe(adapter_info) else None,
        )


#: Loop iterations llvmpipe (Mesa's lavapipe) runs per shader invocation, counted over all of
#: the invocation's loops together: once they are spent, every loop exits at its next test.
#: Measured on Mesa 22.3.6 (LLVM 15): a loop of 100,000 steps ran 65,535, and loops after a
#: 40,000-step one ran 25,534 steps between them. A longer kernel loop would silently skip
#: work, so the planner refuses such dispatches there.
LLVMPIPE_LOOP_STEPS = 65_535


def is_llvmpipe(adapter_info: Any) -> bool:
    """True for Mesa's llvmpipe (lavapipe) adapter, by its vendor or device name."""
    if not adapter_info:
        return False
    names = (str(adapter_info.get("vendor", "")), str(adapter_info.get("device", "")))
    return any("llvmpipe" in name.lower() for name in names)


_INCLUDE = "//!include "


@cache
def shader_source(name: str) -> str:
    """Return the WGSL source of kernel ``name`` (``kernels/<name>.wgsl``), read once.

    A line ``//!include FILE`` is replaced by ``kernels/FILE``, itself expanded the same way
    (WGSL has no includes; the lane-aware kernels share ``stacked.wgsli`` and the rank kernels
    their sample loads and stores this way). A file is spliced in once per kernel.
    """
    return _expanded(f"{name}.wgsl", set())


def _expanded(file: str, seen: set[str]) -> str:
    seen.add(file)
    text = resources.files(_KERNELS_PACKAGE).joinpath(file).read_text("utf-8")
    parts = []
    for line in text.splitlines(keepends=True):
        included = line.removeprefix(_INCLUDE).strip() if line.startswith(_INCLUDE) else None
        if included is None:
            parts.append(line)
        elif included not in seen:
            parts.append(_expanded(included, seen))
    return "".join(parts)


class SharedDevice:
    """A wgpu device with its queue, limits and a per-shader pipeline cache."""

    def __init__(self, device: Any, adapter_info: Any) -> None:
        self.device = device
        self.queue = device.queue
        self.adapter_info = dict(adapter_info)
        self.limits = DeviceLimits.from_device(device.limits, self.adapter_info)
        self._pipelines: dict[str, Any] = {}
        self._modules: dict[str, Any] = {}
        self._layouts: dict[str, Any] = {}
        self._residents: dict[str, Any] = {}
        #: Released plans' allocations, lent to later plans of the same shape.
        self.slots = SlotPool()
        #: Idle buffer pairs of dropped resident outputs, for later resident jobs.
        self.resident_pool = ResidentPool()
        #: Staging buffers of submitted uploads, mapped again for later submissions.
        self.staging = StagingPool()
        #: Buffers created by plans on this device (tests check admission allocates none).
        self.buffers_created = 0
        #: The pid of the process that created the device, in a process forked from it
        #: after it was created (where no GPU call can complete); None in its own process.
        self.forked_from: int | None = None
        self._lock = threading.Lock()

    def pipeline(self, name: str) -> Any:
        """Return the compute pipeline of kernel ``name`` (entry point ``main``), cached.

        ``name`` is a kernel, or a kernel specialised by its WGSL ``override`` constants as
        :func:`~pillow_gpu.gpu._program.specialized` spells it (``"rank?PACKING=2"``): each
        specialisation is its own pipeline, compiled with the constants folded in.
        """
        found = self._pipelines.get(name)  # lock-free hit: entries are only ever added
        if found is not None:
            return found
        with self._lock:
            found = self._pipelines.get(name)
            if found is None:
                kernel, constants = parse_specialized(name)
                module = self._modules.get(kernel)
                if module is None:
                    module = self.device.create_shader_module(
                        label=kernel, code=shader_source(kernel)
                    )
                    self._modules[kernel] = module
                stage: dict[str, Any] = {"module": module, "entry_point": "main"}
                if constants:
                    stage["constants"] = constants
                found = self.device.create_compute_pipeline(
                    label=name, layout="auto", compute=stage
                )
                self._pipelines[name] = found
            return found

    def resident(self, name: str, build: Callable[[], bytes]) -> Any:
        """Return the resident read-only storage buffer ``name`` (``build()``'s bytes), cached.

        Created on first use and kept for the device's lifetime, like the pipelines; plans
        bind it without owning it (see docs/executor.md).
        """
        found = self._residents.get(name)  # lock-free hit: entries are only ever added
        if found is not None:
            return found
        with self._lock:
            found = self._residents.get(name)
            if found is None:
                data = build()
                limit = self.limits.max_storage_buffer_binding_size
                if len(data) > limit:
                    raise DeviceError(
                        f"the resident table {name!r} exceeds this device's storage binding size",
                        observed=f"{len(data)} bytes; limit {limit}",
                        fix="use a device with a larger max-storage-buffer-binding-size "
                        "(WebGPU guarantees 128 MiB) or evaluate with to_pil()",
                        stage="allocation",
                    )
                found = self.device.create_buffer_with_data(data=data, usage="STORAGE")
                self._residents[name] = found
            return found

    @property
    def resident_bytes(self) -> int:
        """Bytes of the resident tables created on this device so far."""
        return sum(int(buffer.size) for buffer in list(self._residents.values()))

    def bind_group_layout(self, name: str) -> Any:
        """Return the group-0 bind group layout of kernel ``name``'s pipeline, cached."""
        found = self._layouts.get(name)
        if found is None:
            found = self.pipeline(name).get_bind_group_layout(0)
            with self._lock:
                found = self._layouts.setdefault(name, found)
        return found


_shared: SharedDevice | None = None
_shared_lock = threading.Lock()


def _quiet_runtime_dir() -> None:
    # wgpu-native prints "XDG_RUNTIME_DIR is invalid or not set" without a usable directory.
    current = os.environ.get("XDG_RUNTIME_DIR")
    if not current or not os.path.isdir(current):
        os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="pillow-gpu-runtime-")


#: Limits asked of the device at the adapter's own values instead of WebGPU's defaults (a
#: 128 MiB storage binding holds 2**25 words: a 33 MP image). With the adapter's, an 8192 x
#: 8192 image (the planner's bound: 256 MiB of words) binds wherever the adapter allows it.
_BUFFER_LIMITS = ("max-storage-buffer-binding-size", "max-buffer-size")


def _buffer_limits(adapter_limits: Any) -> dict[str, int]:
    return {name: int(adapter_limits[name]) for name in _BUFFER_LIMITS if name in adapter_limits}


def _request_device(adapter: Any) -> Any:
    """The adapter's device with its own buffer limits; with WebGPU's defaults where a driver
    refuses those or grants less (wgpu-py 0.31 truncates a binding size past 32 bits to its
    low word: 2**40 is granted as 0). The planner checks every graph against what it got."""
    wanted = _buffer_limits(adapter.limits)
    try:
        device = adapter.request_device_sync(label="pillow-gpu", required_limits=wanted)
    except RuntimeError:
        return adapter.request_device_sync(label="pillow-gpu")
    if all(int(device.limits[name]) >= value for name, value in wanted.items()):
        return device
    return adapter.request_device_sync(label="pillow-gpu")


def forked_device_error[E: DeviceError](shared: SharedDevice, what: str, error: type[E]) -> E:
    """The ``error`` (a :class:`DeviceError` or a subclass) for ``what`` in a process forked
    after ``shared`` was created."""
    return error(
        f"{what} needs the GPU device of process {shared.forked_from}, and this process was "
        "forked from it after the device was created: wgpu's threads and locks stayed in that "
        "process, so no GPU call can complete here (it would wait forever)",
        observed=f"process {os.getpid()}; the device was created by process "
        f"{shared.forked_from}, which this one was forked from",
        fix="start worker processes with multiprocessing's 'spawn' or 'forkserver' method "
        "(multiprocessing.get_context('spawn')), or make the first GPU call only in the "
        "workers; CPU work (Pillow, to_pil(), save()) runs in a forked process as usual",
        stage="device",
    )


def _after_fork_in_child() -> None:
    """Mark a device created before this process was forked as its parent's, and keep it.

    Nothing of it is ever released here: releasing the device waits on the parent's locks
    (with plain wgpu-py, a forked process that exits normally hangs in that release). The
    module's lock is made anew: a thread of the parent may have held it at the fork.
    """
    global _shared_lock  # noqa: PLW0603 - only the forking thread exists here
    _shared_lock = threading.Lock()
    shared = _shared
    if shared is None or shared.forked_from is not None:
        return  # no device, or already a parent's (a fork of a forked process)
    shared.forked_from = os.getppid()
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(shared))


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


def get_device() -> SharedDevice:
    """Return the process-wide device, creating it on first use.

    In a process forked after its parent created the device, raise :class:`DeviceError`
    (no GPU call can complete there).
    """
    global _shared  # noqa: PLW0603 - one device per process by design
    with _shared_lock:
        if _shared is not None and _shared.forked_from is not None:  # before any wgpu call
            raise forked_device_error(_shared, "this call", DeviceError)
        if _shared is None:
            _quiet_runtime_dir()
            import wgpu  # type: ignore[import-untyped]

            parse_wgpu_types()  # one parse instead of one per C type while the device starts
            try:
                adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
                device = _request_device(adapter)
            except RuntimeError as error:
                raise DeviceError(
                    "no wgpu adapter/device could be created",
                    observed=f"{type(error).__name__}: {error}",
                    fix="install a Vulkan/Metal/D3D12 driver (on Linux without a GPU: "
                    "mesa-vulkan-drivers for lavapipe)",
                    stage="device",
                ) from error
            _shared = SharedDevice(device, adapter.info)
        return _shared
