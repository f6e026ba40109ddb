"""pixtreme.infer.example: a small sample architecture for pixtreme-infer.

Two image-to-image networks whose exact output is known independently of any engine:

* ``upscale-x2``: a x2 bilinear upscaler (3x3 convolution holding the exact bilinear taps,
  then depth-to-space), served by the stateless :class:`UpscaleX2Factory`;
* ``recursive-filter``: the temporal filter ``y_t = a*x_t + (1-a)*y_{t-1}`` with reset, served
  by the temporal :class:`RecursiveFilterFactory`.

Both run on a CuPy backend or as TensorRT engines built and cached through tensoracle. The ONNX
export of each network carries the core's contract metadata; ``verification_cases`` is the hook
``pixtreme-infer verify example`` runs (its GPU and TensorRT evidence has not yet been gathered
on a GPU; see the README's Status). Importing this package needs no GPU, no TensorRT and no
onnxruntime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pixtreme.infer.example._errors import ClosedInstanceError, ExampleWeightsError
from pixtreme.infer.example._factories import (
    BACKENDS,
    HISTORY_BYTES_PER_PIXEL,
    RECURSIVE_FILTER_FAMILY,
    RGB_FLOAT32,
    SHAPE_PROFILE,
    SUPPORTED_PRECISIONS,
    UPSCALE_X2_FAMILY,
    RecursiveFilterFactory,
    UpscaleX2Factory,
)
from pixtreme.infer.example._networks import (
    NETWORKS,
    RECURSIVE_FILTER,
    UPSCALE_X2,
    NetworkSpec,
)
from pixtreme.infer.example._recipes import (
    RECIPE_WEIGHTS_SHA256,
    RECURSIVE_FILTER_RECIPE,
    UPSCALE_X2_RECIPE,
)
from pixtreme.infer.example._reference import (
    recursive_filter_reference,
    upscale_x2_reference,
)
from pixtreme.infer.example._weights import load_weights, weights_path, weights_sha256

if TYPE_CHECKING:
    from pixtreme.infer.verification import ArchitectureCases

__all__ = (
    "BACKENDS",
    "HISTORY_BYTES_PER_PIXEL",
    "NETWORKS",
    "RECIPE_WEIGHTS_SHA256",
    "RECURSIVE_FILTER",
    "RECURSIVE_FILTER_FAMILY",
    "RECURSIVE_FILTER_RECIPE",
    "RGB_FLOAT32",
    "SHAPE_PROFILE",
    "SUPPORTED_PRECISIONS",
    "UPSCALE_X2",
    "UPSCALE_X2_FAMILY",
    "UPSCALE_X2_RECIPE",
    "ClosedInstanceError",
    "ExampleWeightsError",
    "NetworkSpec",
    "RecursiveFilterFactory",
    "UpscaleX2Factory",
    "load_weights",
    "recursive_filter_reference",
    "upscale_x2_reference",
    "verification_cases",
    "weights_path",
    "weights_sha256",
)


def verification_cases() -> ArchitectureCases:
    """The verification hook ``pixtreme-infer verify example`` calls (see the core's
    docs/architecture-hook.md); builds the suites without gathering evidence."""
    from pixtreme.infer.example._verification import verification_cases as cases

    return cases()
