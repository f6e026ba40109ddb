"""CuPy backend: the same two networks as CUDA kernels that write into caller-owned storage.

Every ``enqueue_*`` call launches on the current CuPy stream, allocates nothing and never waits
on the host, so it is safe inside CUDA stream capture (kernels compile at the first call, which
the graph session's warm-up performs before capturing). Arrays are HWC float32, C-contiguous.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ._errors import parameter_error
from ._weights import Tensors

if TYPE_CHECKING:
    import cupy

_UPSCALE_SOURCE: Final = r"""
extern "C" __global__ void upscale_x2(
    const float* __restrict__ x, const float* __restrict__ weight,
    const float* __restrict__ bias, float* __restrict__ y, const int height, const int width)
{
    const long long total = 4LL * height * width * 3;
    const long long index = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= total) return;
    const int channel = (int)(index % 3);
    const long long pixel = index / 3;
    const int out_x = (int)(pixel % (2 * width));
    const int out_y = (int)(pixel / (2 * width));
    const int row = out_y >> 1, column = out_x >> 1;
    // Depth-to-space (CRD): output channel c at phase (dy, dx) is conv channel c*4 + dy*2 + dx.
    const int phase = channel * 4 + (out_y & 1) * 2 + (out_x & 1);
    float sum = bias[phase];
    for (int ky = 0; ky < 3; ++ky) {
        const int sy = min(max(row + ky - 1, 0), height - 1);
        for (int kx = 0; kx < 3; ++kx) {
            const int sx = min(max(column + kx - 1, 0), width - 1);
            const float* source = x + ((long long)sy * width + sx) * 3;
            for (int c = 0; c < 3; ++c) {
                sum += weight[((phase * 3 + c) * 3 + ky) * 3 + kx] * source[c];
            }
        }
    }
    y[index] = sum;
}
"""

_BLOCK: Final = 256


def _cupy() -> Any:
    import cupy

    return cupy


def _finish_uploads(cp: Any) -> None:
    """Wait once, at open, for the weight uploads and history fill on the opening stream.

    ``cupy.asarray`` of host data and ``zeros`` are asynchronous on the current stream; calls
    may come from another stream, which would otherwise race with them. Requests never wait.
    """
    cp.cuda.get_current_stream().synchronize()


def _check_hwc(array: cupy.ndarray, *, name: str, shape: tuple[int, ...]) -> None:
    if tuple(array.shape) != shape or str(array.dtype) != "float32" or not array.flags.c_contiguous:
        raise parameter_error(
            why=f"{name} must be a C-contiguous float32 CuPy array of the opened shape",
            what=f"shape {tuple(array.shape)!r}, dtype {array.dtype}, "
            f"c_contiguous={array.flags.c_contiguous}",
            how=f"pass a contiguous float32 array shaped {shape!r}",
        )


class CupyUpscaleX2:
    """The x2 upscaler: 3x3 convolution with the shipped weights, then depth-to-space."""

    def __init__(self, tensors: Tensors, *, input_hw: tuple[int, int]) -> None:
        cp = _cupy()
        self.input_hw = input_hw
        self._weight = cp.asarray(tensors["conv.weight"].ravel())
        self._bias = cp.asarray(tensors["conv.bias"])
        self._kernel = cp.RawKernel(_UPSCALE_SOURCE, "upscale_x2")
        _finish_uploads(cp)

    @property
    def output_hw(self) -> tuple[int, int]:
        """Output height and width."""
        return (2 * self.input_hw[0], 2 * self.input_hw[1])

    def enqueue(self, source: cupy.ndarray, destination: cupy.ndarray) -> None:
        """Write the upscaled ``source`` (H, W, 3) into ``destination`` (2H, 2W, 3)."""
        height, width = self.input_hw
        _check_hwc(source, name="source", shape=(height, width, 3))
        _check_hwc(destination, name="destination", shape=(*self.output_hw, 3))
        cp = _cupy()
        total = destination.size
        self._kernel(
            ((total + _BLOCK - 1) // _BLOCK,),
            (_BLOCK,),
            (source, self._weight, self._bias, destination, cp.int32(height), cp.int32(width)),
        )

    def close(self) -> None:
        """Drop the GPU weights (no synchronization; finish outstanding work first)."""
        self._weight = self._bias = None


class CupyRecursiveFilter:
    """The recursive filter with its GPU history ``y_{t-1}``; reset copies the frame."""

    def __init__(self, tensors: Tensors, *, input_hw: tuple[int, int]) -> None:
        cp = _cupy()
        self.input_hw = input_hw
        self._alpha = cp.asarray(tensors["blend.alpha"])
        self.history = cp.zeros((*input_hw, 3), dtype=cp.float32)
        self._blend = cp.ElementwiseKernel(
            "float32 x, float32 alpha",
            "float32 history, float32 y",
            "history = alpha * x + (1.0f - alpha) * history; y = history",
            "pixtreme_example_recursive_blend",
        )
        self._restart = cp.ElementwiseKernel(
            "float32 x",
            "float32 history, float32 y",
            "history = x; y = x",
            "pixtreme_example_recursive_restart",
        )
        _finish_uploads(cp)

    def enqueue(self, source: cupy.ndarray, destination: cupy.ndarray, *, restart: bool) -> None:
        """Filter ``source`` into ``destination`` and the history; ``restart`` forgets the past."""
        shape = (*self.input_hw, 3)
        _check_hwc(source, name="source", shape=shape)
        _check_hwc(destination, name="destination", shape=shape)
        if restart:
            self._restart(source, self.history, destination)
        else:
            self._blend(source, self._alpha, self.history, destination)

    def close(self) -> None:
        """Drop the GPU history and weights (no synchronization)."""
        self._alpha = self.history = None
