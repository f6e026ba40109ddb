"""The two sample networks: what they compute, their names, versions and weight files."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

NetworkName = Literal["upscale-x2", "recursive-filter"]

#: Per-channel blend weight ``a`` of the recursive filter ``y_t = a*x_t + (1-a)*y_{t-1}``.
#: Powers of two keep every product exact in float32; distinct values per channel make a
#: channel-order mistake visible.
RECURSIVE_FILTER_ALPHA: Final = (0.5, 0.25, 0.125)

#: One-dimensional bilinear (half-pixel, clamped edge) taps for the two output phases of a x2
#: upscale, over the input offsets -1, 0, +1.
BILINEAR_X2_TAPS: Final = ((0.25, 0.75, 0.0), (0.0, 0.75, 0.25))

CHANNELS: Final = ("R", "G", "B")


@dataclass(frozen=True, slots=True, kw_only=True)
class NetworkSpec:
    """Static description of one sample network (no weights, no device)."""

    name: NetworkName
    weights_file: str
    graph_version: str
    spatial_scale: int
    temporal: bool
    startup_frames: int
    description: str

    @property
    def channels(self) -> int:
        """Number of image channels in and out (RGB)."""
        return len(CHANNELS)


UPSCALE_X2: Final = NetworkSpec(
    name="upscale-x2",
    weights_file="upscale_x2.safetensors",
    graph_version="1",
    spatial_scale=2,
    temporal=False,
    startup_frames=0,
    description=(
        "x2 bilinear upscaler: 3x3 convolution whose weights are the exact bilinear taps "
        "(edge-clamped input), followed by depth-to-space"
    ),
)

RECURSIVE_FILTER: Final = NetworkSpec(
    name="recursive-filter",
    weights_file="recursive_filter.safetensors",
    graph_version="1",
    spatial_scale=1,
    temporal=True,
    startup_frames=0,
    description="temporal recursive filter y_t = a*x_t + (1-a)*y_{t-1}; reset sets y_t = x_t",
)

NETWORKS: Final[dict[str, NetworkSpec]] = {
    spec.name: spec for spec in (UPSCALE_X2, RECURSIVE_FILTER)
}
