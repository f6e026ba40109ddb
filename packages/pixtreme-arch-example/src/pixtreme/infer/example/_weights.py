"""Weights of the sample networks: deterministic generation, the shipped safetensors files,
loading with shape checks, and their digests."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

import numpy as np
import numpy.typing as npt
from safetensors.numpy import load, save

from ._errors import weights_error
from ._networks import (
    BILINEAR_X2_TAPS,
    NETWORKS,
    RECURSIVE_FILTER,
    RECURSIVE_FILTER_ALPHA,
    UPSCALE_X2,
    NetworkSpec,
)

_PACKAGE = "pixtreme.infer.example"
_WEIGHTS_FOLDER = "weights"

Tensors = dict[str, npt.NDArray[np.float32]]

# name -> shape of every tensor each network's file must hold (all float32).
_EXPECTED_SHAPES: dict[str, dict[str, tuple[int, ...]]] = {
    UPSCALE_X2.name: {"conv.weight": (12, 3, 3, 3), "conv.bias": (12,)},
    RECURSIVE_FILTER.name: {"blend.alpha": (3,)},
}


def _upscale_x2_tensors() -> Tensors:
    """Conv weights [out=12, in=3, 3, 3] for depth-to-space (CRD): output channel
    ``c*4 + dy*2 + dx`` is input channel ``c`` filtered by the outer product of the bilinear
    taps of phases ``dy`` and ``dx``."""
    taps = np.asarray(BILINEAR_X2_TAPS, dtype=np.float64)
    weight = np.zeros((12, 3, 3, 3), dtype=np.float64)
    for channel in range(3):
        for dy in range(2):
            for dx in range(2):
                weight[channel * 4 + dy * 2 + dx, channel] = np.outer(taps[dy], taps[dx])
    return {
        "conv.weight": weight.astype(np.float32),
        "conv.bias": np.zeros(12, dtype=np.float32),
    }


def _recursive_filter_tensors() -> Tensors:
    return {"blend.alpha": np.asarray(RECURSIVE_FILTER_ALPHA, dtype=np.float32)}


def generate_tensors(spec: NetworkSpec) -> Tensors:
    """Compute a network's weights from its recipe constants (deterministic)."""
    if spec.name == UPSCALE_X2.name:
        return _upscale_x2_tensors()
    return _recursive_filter_tensors()


def serialize_weights(spec: NetworkSpec) -> bytes:
    """The exact bytes of a network's safetensors file (sorted names, fixed metadata)."""
    # One metadata key only: safetensors writes its metadata map in hash order, so several keys
    # would make the bytes differ between runs.
    metadata = {"pixtreme-arch-example": f"{spec.name}; graph_version={spec.graph_version}"}
    return save(generate_tensors(spec), metadata=metadata)


def weights_path(spec: NetworkSpec) -> Path:
    """Filesystem path of the shipped safetensors file (tensoracle hashes real files)."""
    resource = resources.files(_PACKAGE).joinpath(_WEIGHTS_FOLDER, spec.weights_file)
    path = Path(str(resource))
    if not path.is_file():
        raise weights_error(
            why=f"the weights of {spec.name!r} are not installed as a regular file",
            what=f"missing {path}",
            how=(
                "reinstall pixtreme-arch-example from its wheel, or regenerate the file with "
                "`python packages/pixtreme-arch-example/scripts/generate_weights.py`"
            ),
        )
    return path


def weights_sha256(spec: NetworkSpec) -> str:
    """sha256 of the shipped weight file."""
    return hashlib.sha256(weights_path(spec).read_bytes()).hexdigest()


def load_weights(spec: NetworkSpec) -> Tensors:
    """Load a network's shipped weights, checking names, shapes and dtypes."""
    path = weights_path(spec)
    try:
        tensors = load(path.read_bytes())
    except Exception as error:
        raise weights_error(
            why=f"the weight file of {spec.name!r} is not valid safetensors",
            what=f"{path}: {type(error).__name__}: {error}",
            how="regenerate it with scripts/generate_weights.py or reinstall the wheel",
        ) from error
    expected = _EXPECTED_SHAPES[spec.name]
    observed = {name: (tuple(value.shape), str(value.dtype)) for name, value in tensors.items()}
    wanted = {name: (shape, "float32") for name, shape in expected.items()}
    if observed != wanted:
        raise weights_error(
            why=f"the weight file of {spec.name!r} does not match the network",
            what=f"{path} holds {observed!r}",
            how=f"ship a file holding {wanted!r} (scripts/generate_weights.py writes it)",
        )
    return {name: np.ascontiguousarray(value, dtype=np.float32) for name, value in tensors.items()}


def all_networks() -> tuple[NetworkSpec, ...]:
    """Every sample network, in a stable order."""
    return tuple(NETWORKS.values())
