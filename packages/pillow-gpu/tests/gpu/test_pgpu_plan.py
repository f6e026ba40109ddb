"""The plan API the batch executor builds on: reservations, staging offsets, several graphs."""

from __future__ import annotations

from pathlib import Path

import pytest
import wgpu  # type: ignore[import-untyped]
from PIL import ImageChops as PILImageChops
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import Image, ImageChops, ImageFilter
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice


def test_planning_touches_no_device_and_reports_reservations(device: SharedDevice) -> None:
    source = make_image("RGB", (19, 17))
    created = device.buffers_created
    plan = plan_graph(ImageChops.invert(Image.from_pil(source)).filter(ImageFilter.BoxBlur(1)))
    assert device.buffers_created == created
    assert (plan.mode, plan.size) == ("RGB", (19, 17))
    assert plan.output_nbytes == len(source.tobytes())
    assert plan.terminal_nbytes == 19 * 17 * 4
    assert plan.staging_nbytes % 256 == 0
    assert plan.staging_nbytes >= plan.terminal_nbytes
    # source upload + invert + two blur passes, plus a table and parameters
    assert plan.gpu_bytes >= 4 * 19 * 17 * 4 + plan.staging_nbytes
    assert plan.host_bytes >= 19 * 17 * 4 * 2
    assert plan.dispatch_count == 3
    assert plan.sources == ()


def test_sources_list_encoded_leaves_until_they_are_decoded(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    make_image("L", (9, 7)).save(path)
    opened = Image.open(path)
    plan = plan_graph(ImageChops.invert(opened))
    assert plan.sources == (opened.node,)
    assert opened.node.cache.get() is None


def test_l_terminal_is_packed() -> None:
    plan = plan_graph(Image.new("L", (5, 3)))
    assert plan.terminal_nbytes == 16
    assert plan.output_nbytes == 15


@pytest.mark.parametrize("mode", ["LA", "La", "PA"])
def test_pair_terminal_is_packed(mode: str) -> None:
    """A two-band result comes back as Pillow's two bytes per pixel (pack16), not as words."""
    source = make_image(mode, (5, 3), seed=2)
    lazy = ImageChops.invert(Image.from_pil(source)) if mode == "LA" else Image.from_pil(source)
    plan = plan_graph(lazy)
    assert plan.program.dispatches[-1].shader == "pack16"
    assert plan.terminal_nbytes == 32  # 15 pixels of two bytes, padded to words
    assert plan.output_nbytes == 30
    expected = PILImageChops.invert(source) if mode == "LA" else source
    assert_image_equal(evaluate(lazy), expected)


def test_several_plans_share_one_encoder_submit_and_staging(device: SharedDevice) -> None:
    sources = [
        make_image(mode, (19 + i, 17), seed=i) for i, mode in enumerate(["L", "RGBA", "RGB"])
    ]
    graphs = [
        ImageChops.invert(Image.from_pil(s)).filter(ImageFilter.MedianFilter(3)) for s in sources
    ]
    plans = [plan_graph(g, limits=device.limits) for g in graphs]
    offsets = []
    total = 0
    for plan in plans:
        offsets.append(total)
        total += plan.staging_nbytes
    staging = device.device.create_buffer(
        size=total, usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST
    )
    encoder = device.device.create_command_encoder()
    for plan, offset in zip(plans, offsets, strict=True):
        plan.allocate(device)
        plan.encode(encoder, staging, offset)
    device.queue.submit([encoder.finish()])
    staging.map_sync(wgpu.MapMode.READ)
    mapped = staging.read_mapped(0, total, copy=False)
    results = [
        plan.build(mapped[o : o + plan.terminal_nbytes])
        for plan, o in zip(plans, offsets, strict=True)
    ]
    staging.unmap()
    staging.destroy()
    for plan in plans:
        plan.release()
    for source, result in zip(sources, results, strict=True):
        expected = PILImageChops.invert(source).filter(PILImageFilter.MedianFilter(3))
        assert_image_equal(result, expected)


def test_encode_rejects_unaligned_offsets(device: SharedDevice) -> None:
    plan = plan_graph(Image.new("L", (4, 4)))
    plan.allocate(device)
    staging = device.device.create_buffer(size=1024, usage=wgpu.BufferUsage.COPY_DST)
    with pytest.raises(ValueError, match="multiple of 256"):
        plan.encode(device.device.create_command_encoder(), staging, 128)
    plan.release()
    staging.destroy()


def test_parameters_of_each_dispatch_are_separate_buffers() -> None:
    lazy = Image.new("RGB", (4, 4), (1, 2, 3))
    for radius in (1, 2, 3):
        lazy = lazy.filter(ImageFilter.BoxBlur(radius))
    plan = plan_graph(lazy)
    params = [d.params for d in plan.program.dispatches]
    assert len(set(params)) == len(params)


def test_gpu_evaluation_caches_and_is_not_replayed(device: SharedDevice) -> None:
    source = make_image("RGBA", (19, 17))
    lazy = ImageChops.invert(Image.from_pil(source))
    first = evaluate(lazy)
    created = device.buffers_created
    second = evaluate(lazy)
    assert device.buffers_created == created
    assert_image_equal(second, first)
    # A graph built on the completed node uploads it as a leaf instead of replaying it.
    plan = plan_graph(lazy.transpose(Image.ROTATE_180))
    assert [u.node for u in plan.uploads] == [lazy.node]
    assert plan.dispatch_count == 1
