"""Buffer aliasing (``gpu/_aliasing.py``): working images whose uses do not overlap share a
buffer, which is zeroed before its next image's first dispatch.

Programs under ``ALIAS_BYTES`` are left alone, so the parity cases here force aliasing on
(``ALIAS_BYTES = 0``) and run chains whose intermediates take over earlier images' buffers:
sums and histograms that need zeros, ping-pong blur passes, size changes, in-place pastes,
packed L, several leaves. They run through ``evaluate`` and through the executor with stacked
lanes, twice, so the second run reuses the first run's dirty slots.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageEnhance, ImageFilter, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import _aliasing, evaluate, plan_graph
from pillow_gpu.gpu._plan_cache import SHARED_PLAN_CACHE
from pillow_gpu.gpu._program import aligned

pytestmark = pytest.mark.usefixtures("device")

_PIL = {"ops": PILImageOps, "filter": PILImageFilter, "enhance": PILImageEnhance}
_OURS = {"ops": ImageOps, "filter": ImageFilter, "enhance": ImageEnhance}


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Alias every program, with no cached plan of another setting in the way."""
    monkeypatch.setattr(_aliasing, "ALIAS_BYTES", 0)
    SHARED_PLAN_CACHE.clear()
    yield
    SHARED_PLAN_CACHE.clear()


def _blend_of_two(m: dict[str, Any], image: Any) -> Any:
    blurred = image.filter(m["filter"].GaussianBlur(1.5))
    brighter = m["enhance"].Brightness(image).enhance(1.3)
    chops = PILImageChops if m is _PIL else ImageChops
    return chops.blend(blurred, brighter, 0.4).filter(m["filter"].SHARPEN)


def _pasted(m: dict[str, Any], image: Any) -> Any:
    out = m["ops"].invert(image).filter(m["filter"].BoxBlur(2))
    out.paste(image.resize((9, 7)), (3, 4))  # in place, as in Pillow
    return out.filter(m["filter"].MedianFilter(3))


#: Chains of several full-size steps: name -> (mode, chain of (modules, image) -> image).
CHAINS: dict[str, tuple[str, Callable[[dict[str, Any], Any], Any]]] = {
    "gauss-contrast-equalize": (
        "RGB",
        lambda m, im: m["ops"].equalize(
            m["enhance"].Contrast(im.filter(m["filter"].GaussianBlur(2))).enhance(0.6)
        ),
    ),
    "contrast-twice": (
        "RGBA",
        lambda m, im: m["enhance"].Contrast(m["enhance"].Contrast(im).enhance(1.8)).enhance(0.4),
    ),
    "autocontrast-unsharp-resize": (
        "RGB",
        lambda m, im: (
            m["ops"]
            .autocontrast(im.filter(m["filter"].UnsharpMask(2, 120, 1)), cutoff=2)
            .resize((41, 29), PILImage.Resampling.LANCZOS)
            .filter(m["filter"].GaussianBlur(1))
        ),
    ),
    "l-packed-steps": (
        "L",
        lambda m, im: (
            m["ops"].invert(im.filter(m["filter"].MedianFilter(3))).filter(m["filter"].BoxBlur(1))
        ),
    ),
    "convert-chain": (
        "RGBA",
        lambda m, im: (
            m["ops"].grayscale(im.convert("RGB").filter(m["filter"].SMOOTH)).convert("RGBA")
        ),
    ),
    "blend-of-two-branches": ("RGB", _blend_of_two),
    "paste-into-intermediate": ("RGB", _pasted),
}


@pytest.mark.parametrize("name", list(CHAINS))
@pytest.mark.usefixtures("forced")
def test_aliased_chains_equal_pillow(name: str) -> None:
    mode, chain = CHAINS[name]
    source = make_image(mode, (53, 37), seed=len(name))
    plan = plan_graph(chain(_OURS, Image.from_pil(source)))
    assert any(spec.role == "aliased" for spec in plan.program.buffers), "nothing shared"
    assert_image_equal(evaluate(chain(_OURS, Image.from_pil(source))), chain(_PIL, source))


@pytest.mark.parametrize("name", list(CHAINS))
@pytest.mark.usefixtures("forced")
def test_aliased_chains_in_stacked_and_reused_slots(name: str) -> None:
    mode, chain = CHAINS[name]
    sources = [make_image(mode, (29, 23), seed=seed) for seed in range(5)]
    with GpuBatchExecutor() as executor:
        for _ in range(2):  # the second run takes the first run's released (dirty) slots
            jobs = [(i, chain(_OURS, Image.from_pil(s))) for i, s in enumerate(sources)]
            with executor.run(jobs) as results:
                for result in results:
                    assert_image_equal(result.image, chain(_PIL, sources[result.input_key]))


def test_every_taken_over_buffer_is_zeroed_right_before_its_next_image(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mode, chain = CHAINS["gauss-contrast-equalize"]
    source = make_image(mode, (53, 37))
    apart = plan_graph(chain(_OURS, Image.from_pil(source))).program
    monkeypatch.setattr(_aliasing, "ALIAS_BYTES", 0)
    program = plan_graph(chain(_OURS, Image.from_pil(source))).program
    aliased = [spec for spec in program.buffers if spec.role == "aliased"]
    zeros = [k for k, dispatch in enumerate(program.dispatches) if dispatch.shader == "zero"]
    assert len(zeros) == len(aliased) > 0
    for k in zeros:
        (buffer,) = program.dispatches[k].bindings
        assert buffer in program.dispatches[k + 1].bindings or (
            program.dispatches[k + 1].shader == "zero"
        )
    # the same dispatches, each binding as many distinct buffers as before (no two images
    # that one dispatch uses share a buffer)
    kept = [dispatch for dispatch in program.dispatches if dispatch.shader != "zero"]
    assert [d.pipeline for d in kept] == [d.pipeline for d in apart.dispatches]
    for ours, theirs in zip(kept, apart.dispatches, strict=True):
        assert len(set(ours.bindings)) == len(set(theirs.bindings))
    for spec in aliased:  # nothing binds an aliased buffer any more
        assert all(spec.index not in dispatch.bindings for dispatch in program.dispatches)


def test_small_programs_are_left_alone() -> None:
    program = plan_graph(
        Image.from_pil(make_image("RGB", (53, 37))).filter(ImageFilter.GaussianBlur(2))
    ).program
    assert not any(spec.role == "aliased" for spec in program.buffers)
    assert not any(dispatch.shader == "zero" for dispatch in program.dispatches)


def test_a_24_megapixel_blur_holds_two_images_not_eight() -> None:
    # Planned without a device: the charge only. Each pass of the blur used to keep its own
    # 96 MB image (732 MiB); now each pass writes the buffer the pass before last read.
    lazy = Image.new("RGB", (6000, 4000), (9, 99, 199)).filter(ImageFilter.GaussianBlur(2))
    plan = plan_graph(lazy)
    image = aligned(6000 * 4000 * 4)
    working = plan.gpu_bytes - plan.staging_nbytes
    assert 2 * image <= working < 2 * image + (1 << 20), working / image
