"""Random short graphs over every mode the GPU path stores against live Pillow (the draw of
``random_graph_draw``): drawn graphs and larger ones, batches of them through executors of
other settings, and the graphs found different before, each exact on the GPU and on the CPU
route, refused on the GPU with the CPU route exact, or raising what Pillow raises.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from pillow_gpu import Image, ImageChops

from .random_graph_batches import BatchSetting, batch_outcomes, generated_members
from .random_graph_draw import Step, graph_outcome, outcome, source_image

pytestmark = pytest.mark.usefixtures("device")


@settings(max_examples=150, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_graphs_of_every_stored_mode_match_pillow(seed: int) -> None:
    assert outcome(seed) in ("exact", "refused", "both raise")


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_larger_random_graphs_match_pillow(seed: int) -> None:
    assert outcome(seed, large=True) in ("exact", "refused", "both raise")


#: The executors the random batches run through.
BATCH_SETTINGS = [
    BatchSetting(max_jobs=16, max_in_flight=2, output="cpu", decode_threads=0),
    BatchSetting(max_jobs=64, max_in_flight=3, output="gpu", decode_threads=0),
    BatchSetting(max_jobs=4, max_in_flight=4, output="cpu", decode_threads=0),
    BatchSetting(max_jobs=8, max_in_flight=1, output="gpu", decode_threads=0),
]


@pytest.mark.parametrize("setting", BATCH_SETTINGS, ids=str)
def test_random_batches_through_the_executor_match_pillow(setting: BatchSetting) -> None:
    """A batch of random graphs of every mode and size (each fifth one larger), some followed
    by a sibling of their shape over other pixels (``random_graph_batches``), and the first
    ones drawn again (same-shaped jobs side by side share stacked allocations), through one
    executor: every result is Pillow's, or the job is refused on its own."""
    first = 1000 * BATCH_SETTINGS.index(setting)
    members = [
        member
        for seed in range(first, first + 24)
        for member in generated_members(seed, large=seed % 5 == 0)
    ]
    members += [
        member
        for seed in range(first, first + 6)
        for member in generated_members(seed, large=seed % 5 == 0)[:1]
    ]
    assert any("(sibling)" in member.what for member in members)
    assert any("(copied)" in member.what for member in members)
    outcomes = batch_outcomes(members, setting)
    assert set(outcomes) <= {"exact", "refused"}, [
        outcome for outcome in outcomes if outcome not in ("exact", "refused")
    ]
    assert outcomes.count("exact") >= len(members) // 2


# Graphs the campaign of 2026-12-06 found different (validation.md): exact since.
FOUND: dict[str, tuple[str, tuple[int, int], int, list[Step]]] = {
    "1-stored-byte-to-P": (
        "1",
        (16, 15),
        6028604,
        [("add", None), ("crop", (2, -3, 17, 10)), ("convert", "P")],
    ),
    "1-stored-byte-to-PA": (
        "1",
        (9, 3),
        6058501,
        [("info", ("clear", 217)), ("add", None), ("convert", "PA")],
    ),
    "empty-exif-transpose": (
        "RGB",
        (266, 4),
        30002254,
        [("contain", (13, 20)), ("orientation", 5), ("composite", "LA"), ("blend", 1.83)],
    ),
    # The campaign of 2026-12-06/07 (palettes kept inside; the seed draws a pointed source).
    "pointed-L-kernel-larger-than-image": ("L", (1, 17), 90005672, [("builtin_filter", "SMOOTH")]),
    "pointed-1-to-L": ("1", (4, 17), 91020392, [("point_mode", "L")]),
    "pointed-L-to-1-after-median": (
        "L",
        (11, 7),
        91023288,
        [("median", 5), ("point_mode", "1"), ("extent", None)],
    ),
}
GIF_OPTIONS = {
    "optimize": True,
    "transparency": 158,
    "loop": 3,
    "interlace": False,
    "include_color_table": True,
}
#: Graphs the GPU refuses whose CPU route or metadata differed, found by the campaign of
#: 2026-12-07 (getpalette() asked before evaluation, saves with options).
FOUND_REFUSED: dict[str, tuple[str, tuple[int, int], int, list[Step]]] = {
    # A colour new to a full palette goes where the pixels leave an index unused.
    "colour-expand-of-a-full-palette-asked-before-evaluation": (
        "LA",
        (12, 23),
        112002130,
        [("remap_palette", (True, 465464705)), ("affine", None), ("expand_args", (2, "gold"))],
    ),
    # An L GIF whose pixels Pillow loads as P (it raised a DecodeError on the GPU).
    "gif-of-an-l-image-with-a-colour-table": (
        "L",
        (14, 19),
        1374,
        [("save_options", ("GIF", GIF_OPTIONS))],
    ),
}
#: Graphs where Pillow raises and the recording went on, found by that campaign.
FOUND_RAISING: dict[str, tuple[str, tuple[int, int], int, list[Step]]] = {
    "spider-file-saved-as-avif": (
        "RGBX",
        (5, 16),
        98003464,
        [("enhance", ("Contrast", 2.38094791743028)), ("save", "SPIDER"), ("save", "AVIF")],
    ),
    "colour-expand-of-a-full-palette": (
        "I",
        (9, 23),
        98071533,
        [("convert", "PA"), ("paste_mask", ("L", 5, -4)), ("expand_args", ((1, 3), "gold"))],
    ),
    # 2026-12-07: a transform of an L GIF whose pixels Pillow loads as P raises "image has
    # wrong mode" at Pillow's call, and when the graph is evaluated here.
    "transform-of-an-l-gif-loaded-as-p": (
        "L",
        (7, 24),
        113027414,
        [
            ("save_options", ("GIF", {"include_color_table": True, "background": 154})),
            ("perspective", (1.064, 0.114, -2.386, 0.125, 0.930, -1.783, -0.0006, 0.0035)),
        ],
    ),
}


@pytest.mark.parametrize("case", list(FOUND))
def test_graphs_found_different_before_match_now(case: str) -> None:
    assert graph_outcome(*FOUND[case]) == "exact"


@pytest.mark.parametrize("case", list(FOUND_REFUSED))
def test_graphs_found_different_before_are_refused_and_pillow_s_on_the_cpu(case: str) -> None:
    assert graph_outcome(*FOUND_REFUSED[case]) == "refused"


@pytest.mark.parametrize("case", list(FOUND_RAISING))
def test_graphs_found_recorded_where_pillow_raises_raise_now(case: str) -> None:
    assert graph_outcome(*FOUND_RAISING[case]) == "both raise"


def test_blend_of_an_l_image_pointed_from_p_raises_as_in_pillow() -> None:
    """Pillow's ``point(..., "L")`` of a P image keeps the palette inside the L image, whose
    blend raises (pillow_gpu._palette_inside); the recording raises the same."""
    source = source_image("P", (5, 4), 1)
    pointed = source.point(lambda v: 255 - v, "L").transpose(PILImage.Transpose.ROTATE_90)
    with pytest.raises(ValueError, match="wrong mode"):
        PILImage.blend(pointed, pointed, 0.5)
    lazy = Image.from_pil(source).point(lambda v: 255 - v, "L")
    lazy = lazy.transpose(PILImage.Transpose.ROTATE_90)
    with pytest.raises(ValueError, match="wrong mode"):
        ImageChops.blend(lazy, lazy, 0.5)
