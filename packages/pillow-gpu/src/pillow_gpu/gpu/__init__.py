"""GPU evaluation of lazy pillow-gpu graphs through wgpu (synchronous, one graph at a time)."""

from __future__ import annotations

from typing import Any

from PIL import Image as PILImage

from pillow_gpu.errors import DeviceError
from pillow_gpu.gpu._device import SharedDevice, get_device
from pillow_gpu.gpu._mapped import read_view
from pillow_gpu.gpu._plan import Plan
from pillow_gpu.gpu._planner import plan_graph

__all__ = ["Plan", "adapter_info", "evaluate", "plan_graph"]


def adapter_info() -> dict[str, Any]:
    """The shared device's adapter description (``device``, ``vendor``, ``adapter_type``,
    ``backend_type``, ...), creating the device on first use."""
    return dict(get_device().adapter_info)


def evaluate(image: Any) -> PILImage.Image:
    """Evaluate ``image`` on the GPU and return a new ``PIL.Image.Image``.

    Admission happens first (no decode or allocation for a rejected graph). The result is
    cached on the graph's root, so a completed graph is never replayed.
    """
    import wgpu  # type: ignore[import-untyped]

    root = getattr(image, "node", image)
    cached = root.cache.get()
    if cached is not None:
        return cached.copy()
    shared = get_device()
    plan = plan_graph(root, limits=shared.limits)
    try:
        result = _run(shared, plan)
    except wgpu.GPUError as error:
        raise DeviceError(
            "the device rejected or failed the work of this graph",
            observed=f"{type(error).__name__}: {error}",
            fix="report the graph; the GPU path has no CPU fallback (use to_pil())",
            stage="execution",
        ) from error
    finally:
        plan.release()
    return root.cache.put(result).copy()


def _run(shared: SharedDevice, plan: Plan) -> PILImage.Image:
    import wgpu

    plan.allocate(shared)
    staging = shared.device.create_buffer(
        size=plan.staging_nbytes, usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST
    )
    try:
        encoder = shared.device.create_command_encoder()
        plan.encode(encoder, staging, 0)
        shared.queue.submit([encoder.finish()])
        staging.map_sync(wgpu.MapMode.READ)
        try:
            return plan.build(read_view(staging, 0, plan.staging_nbytes))
        finally:
            staging.unmap()
    finally:
        staging.destroy()
