"""frames: the Frame boundary checks type, Exact fields, channel count and size first.

Frames here are built with pydantic's ``model_construct`` over host arrays, which skips
pixtreme's GPU-storage validation: the boundary reads only metadata and shape, so this tests
the same code path a GPU Frame takes. One GPU-marked test uses a real Frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pixtreme.infer.contracts import Exact, FrameContract, FrameMetadataWarning
from pixtreme.infer.errors import ContractError
from pixtreme.infer.frames import check_frame, frame_metadata, metadata_mismatches

from .conftest import make_rgb_contract

pytestmark = pytest.mark.req("spec.core.contracts-without-architecture")


def host_frame(
    shape: tuple[int, int, int] = (4, 5, 3), dtype: str = "float32", **metadata: Any
) -> Any:
    from pixtreme.core import Frame

    fields: dict[str, Any] = {
        "channels": ("R", "G", "B"),
        "colorspace": "sRGB",
        "gamma": "sRGB",
        "matrix": None,
    }
    fields.update(metadata)
    return Frame.model_construct(data=np.zeros(shape, dtype), **fields)


@pytest.mark.parametrize("value", [np.zeros((4, 5, 3), np.float32), None, "frame"], ids=repr)
def test_non_frames_are_rejected_before_any_access(value: object) -> None:
    with pytest.raises(ContractError, match=r"pixtreme\.core\.Frame values only"):
        check_frame(value, make_rgb_contract())


def test_matching_frame_passes_and_is_returned(rgb_contract: FrameContract) -> None:
    frame = host_frame()
    assert check_frame(frame, rgb_contract, expected_hw=(4, 5)) is frame
    assert frame_metadata(frame) == {
        "channels": ("R", "G", "B"),
        "colorspace": "sRGB",
        "gamma": "sRGB",
        "matrix": None,
        "dtype": "float32",
    }


@pytest.mark.parametrize(
    ("frame_fields", "message"),
    [
        pytest.param({"dtype": "float16"}, "dtype='float16' (declared 'float32')", id="dtype"),
        pytest.param({"colorspace": "bt709"}, "colorspace='bt709' (declared 'sRGB')", id="color"),
        pytest.param({"channels": ("B", "G", "R")}, "channels=('B', 'G', 'R')", id="channels"),
    ],
)
def test_exact_field_mismatch_names_observed_and_declared(
    rgb_contract: FrameContract, frame_fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(ContractError, match=re_escape(message)):
        check_frame(host_frame(**frame_fields), rgb_contract)


def re_escape(text: str) -> str:
    import re

    return re.escape(text)


def test_unconstrained_field_accepts_any_value_and_can_warn(rgb_contract: FrameContract) -> None:
    frame = host_frame(gamma="linear")
    assert check_frame(frame, rgb_contract) is frame
    with pytest.warns(FrameMetadataWarning, match="gamma='linear' differs from the module's"):
        check_frame(frame, rgb_contract, warn_reference=True)


def test_wrong_size_and_channel_count_are_rejected(rgb_contract: FrameContract) -> None:
    with pytest.raises(ContractError, match=r"observed \(height, width\)=\(4, 5\)"):
        check_frame(host_frame(), rgb_contract, expected_hw=(8, 8))
    free_channels = make_rgb_contract(channels=Exact(("R", "G", "B", "A")))
    with pytest.raises(ContractError, match="observed 3 channels, declared 4"):
        check_frame(host_frame(channels=("R", "G", "B", "A")), free_channels)


def test_metadata_mismatches_in_field_order(rgb_contract: FrameContract) -> None:
    metadata = frame_metadata(host_frame(dtype="float16", colorspace="bt709"))
    assert [item.field for item in metadata_mismatches(metadata, rgb_contract)] == [
        "colorspace",
        "dtype",
    ]


@pytest.mark.gpu
def test_real_frame(rgb_contract: FrameContract) -> None:
    import cupy as cp
    from pixtreme.core import Frame

    frame = Frame(
        data=cp.zeros((4, 5, 3), cp.float32),
        channels=("R", "G", "B"),
        colorspace="sRGB",
        gamma="sRGB",
    )
    assert check_frame(frame, rgb_contract, expected_hw=(4, 5)) is frame
