"""The Frame boundary: type, metadata and size checks before any pixel access."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from pixtreme.infer.contracts import Exact, FrameContract, FrameMetadata
from pixtreme.infer.errors import ContractError
from pixtreme.infer.frames import check_frame, check_metadata, frame_metadata

pytestmark = pytest.mark.req("issue6.frame-boundary")


def _metadata(**overrides: object) -> FrameMetadata:
    fields: dict[str, object] = {
        "channels": ("R", "G", "B"),
        "colorspace": "sRGB",
        "gamma": "linear",
        "matrix": None,
        "dtype": "float32",
    }
    fields.update(overrides)
    return FrameMetadata(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value", [np.zeros((4, 4, 3), np.float32), None, "frame"], ids=["numpy", "none", "str"]
)
def test_non_frames_are_rejected_before_any_access(
    value: object, rgb_contract: FrameContract
) -> None:
    with pytest.raises(ContractError, match=r"accept pixtreme\.core\.Frame values only"):
        frame_metadata(value)
    with pytest.raises(ContractError, match=r"how=wrap the array with pixtreme\.io\.from_array"):
        check_frame(value, rgb_contract)


def test_metadata_matching_the_contract_passes(rgb_contract: FrameContract) -> None:
    check_metadata(_metadata(), rgb_contract, hw=(4, 4), expected_hw=(4, 4))


@pytest.mark.parametrize(
    ("overrides", "pattern"),
    [
        (
            {"channels": ("B", "G", "R")},
            r"channels=\('B', 'G', 'R'\) \(expected \('R', 'G', 'B'\)\)",
        ),
        ({"colorspace": "Rec.2020"}, "colorspace='Rec.2020'"),
        ({"matrix": "BT.709"}, "matrix='BT.709' \\(expected None\\)"),
        ({"dtype": "uint8"}, "dtype='uint8'"),
    ],
    ids=["channels", "colorspace", "matrix", "dtype"],
)
def test_exact_field_mismatch_is_rejected(
    rgb_contract: FrameContract, overrides: dict[str, object], pattern: str
) -> None:
    with pytest.raises(ContractError, match=pattern):
        check_metadata(_metadata(**overrides), rgb_contract, role="output")


def test_unconstrained_fields_accept_any_value(
    make_rgb_contract: Callable[..., FrameContract],
) -> None:
    contract = make_rgb_contract(dtype=Exact(value="float32"))
    check_metadata(_metadata(gamma="PQ"), contract)


def test_wrong_size_is_rejected(rgb_contract: FrameContract) -> None:
    with pytest.raises(
        ContractError, match=r"received \(height, width\)=\(4, 5\), expected \(4, 4\)"
    ):
        check_metadata(_metadata(), rgb_contract, hw=(4, 5), expected_hw=(4, 4))


@pytest.mark.gpu
def test_real_frame_metadata_and_check(rgb_contract: FrameContract) -> None:
    import cupy as cp
    from pixtreme.core import Frame

    frame = Frame(
        data=cp.zeros((6, 8, 3), dtype=cp.float32),
        colorspace="sRGB",
        gamma="linear",
        channels="RGB",
    )
    assert frame_metadata(frame) == _metadata()
    assert check_frame(frame, rgb_contract, expected_hw=(6, 8)) is frame
    with pytest.raises(ContractError, match="expected \\(6, 9\\)"):
        check_frame(frame, rgb_contract, expected_hw=(6, 9))
    half = Frame(
        data=cp.zeros((6, 8, 3), dtype=cp.float16),
        colorspace="sRGB",
        gamma="linear",
        channels="RGB",
    )
    with pytest.raises(ContractError, match="dtype='float16'"):
        check_frame(half, rgb_contract)


@pytest.mark.parametrize(
    ("overrides", "pattern"),
    [
        ({"channels": "RGB"}, "channels must be a non-empty tuple"),
        ({"channels": ()}, "channels must be a non-empty tuple"),
        ({"channels": ("R", "")}, "channels must be a non-empty tuple"),
        ({"colorspace": ""}, "colorspace must be a non-empty string"),
        ({"gamma": None}, "gamma must be a non-empty string"),
        ({"matrix": ""}, "matrix must be a non-empty string"),
        ({"dtype": 3}, "dtype must be a non-empty string"),
    ],
    ids=[
        "channels-str",
        "channels-empty",
        "channels-blank",
        "colorspace",
        "gamma",
        "matrix",
        "dtype",
    ],
)
def test_frame_metadata_rejects(overrides: dict[str, object], pattern: str) -> None:
    with pytest.raises(ContractError, match=pattern):
        _metadata(**overrides)
