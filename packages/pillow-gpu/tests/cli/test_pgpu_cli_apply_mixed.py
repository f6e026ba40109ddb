"""``pillow-gpu apply`` on a mixed folder written by real writers, against live Pillow.

The folder holds what a user's photo folder holds: JPEGs with and without an EXIF orientation,
a palette PNG, a grayscale PNG, an RGBA PNG, an animated GIF, a 16-bit PNG, a truncated JPEG
and one image over the GPU's 8192 x 8192 pixel bound. Every file goes through Pillow's
``exif_transpose -> convert("RGB") -> thumbnail((64, 64)) -> GaussianBlur(2)``, written
``exif_transpose,convert:RGB,thumbnail:64x64,gaussian_blur:2``. Which files the GPU admits is
the planner's business (its convert matrix grows), so the files it refuses are found by
planning each one; what must hold whatever it admits: every written output is byte-equal to
the file Pillow writes for Pillow's result, refused files are named and counted by reason,
a truncated file is reported and never retried on the CPU, and the exit status says so.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.cli import main
from pillow_gpu.cli._chain import admitted_modes, parse_chain
from pillow_gpu.cli._metadata import metadata_options
from pillow_gpu.cli._report import TOP_REASONS, Failure, Tally
from pillow_gpu.errors import GpuError
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._layout import NATIVE_MODES
from pillow_gpu.gpu._planner import plan_graph

CHAIN = "exif_transpose,convert:RGB,thumbnail:64x64,gaussian_blur:2"
#: Files the GPU path must run (RGB and L files: convert:RGB is a copy of an RGB file).
ON_GPU = ("gray.png", "oriented.jpg", "plain.jpg")
#: 8193 x 8192 pixels: one column past the GPU's pixel bound, a Limit at admission.
HUGE = (8193, 8192)


def _pillow(path: Path) -> PILImage.Image:
    """Pillow's result of CHAIN for ``path``, written out call by call."""
    with PILImage.open(path) as opened:
        image = PILImageOps.exif_transpose(opened)
        image = image.convert("RGB")
        image.thumbnail((64, 64), PILImage.Resampling.BICUBIC)
        return image.filter(PILImageFilter.GaussianBlur(2))


def _file_bytes(image: PILImage.Image, path: Path) -> bytes:
    """The bytes Pillow writes for ``image`` in ``path``'s format, with the EXIF, ICC profile,
    XMP and resolution its ``info`` holds (as apply saves it)."""
    buffer = io.BytesIO()
    file_format = PILImage.registered_extensions()[path.suffix]
    image.save(buffer, format=file_format, **metadata_options(image))
    return buffer.getvalue()


def _jpeg(path: Path, seed: int, orientation: int | None) -> None:
    image = make_image("RGB", (600, 400), seed)  # big enough for a draft to change the result
    if orientation is None:
        image.save(path, quality=90)
        return
    exif = PILImage.Exif()
    exif[0x0112] = orientation
    image.save(path, quality=90, exif=exif.tobytes())


def _gif(path: Path) -> None:
    frames = [make_image("RGB", (90, 70), seed).quantize(32) for seed in (11, 12, 13)]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=40, loop=0)


def _write_mixed(folder: Path) -> None:
    folder.mkdir(parents=True)
    _jpeg(folder / "oriented.jpg", 1, 6)
    _jpeg(folder / "plain.jpg", 2, None)
    make_image("RGB", (120, 90), 3).quantize(16).save(folder / "palette.png")
    make_image("L", (120, 90), 4).save(folder / "gray.png")
    make_image("RGBA", (120, 90), 5).save(folder / "rgba.png")
    _gif(folder / "anim.gif")
    deep = PILImage.frombytes("I;16", (120, 90), bytes(range(256)) * 84 + bytes(96))
    deep.save(folder / "deep.png")
    good = (folder / "plain.jpg").read_bytes()
    (folder / "truncated.jpg").write_bytes(good[: len(good) // 2])
    PILImage.new("L", HUGE, 90).save(folder / "huge.png")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mixed") / "in"
    _write_mixed(folder)
    with PILImage.open(folder / "deep.png") as deep, PILImage.open(folder / "anim.gif") as gif:
        assert (deep.mode, gif.mode, gif.n_frames) == ("I;16", "P", 3)  # what the writers made
    return folder


def _refusals(folder: Path) -> dict[str, tuple[str, str, str]]:
    """File name -> (kind, stage, why) of the planner for each file the GPU refuses."""
    chain = parse_chain(CHAIN)
    refused = {}
    for path in sorted(folder.iterdir()):
        if path.name == "truncated.jpg":
            continue
        try:
            plan_graph(chain.apply(Image.open(path)))
        except GpuError as error:
            refused[path.name] = (error.kind, error.stage, error.why)
    return refused


def _failed(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("pillow-gpu: failed: ")]


def _reasons(out: str) -> list[tuple[int, str]]:
    return [(int(count), why) for count, why in re.findall(r"^    (\d+)x (.+)$", out, re.M)]


def _apply(folder: Path, out: Path, *extra: str) -> int:
    # --first-frame: the GIF's first frame is written, as Pillow's open and chain give it
    # (without it the animation is reported and not written: test_pgpu_cli_apply_frames.py).
    argv = ["apply", CHAIN, str(folder), "-o", str(out), "--no-progress", "--first-frame"]
    return main([*argv, *extra])


def _assert_written_like_pillow(out: Path, folder: Path, names: set[str]) -> None:
    assert {path.name for path in out.iterdir()} == names
    for name in sorted(names):
        expected = _pillow(folder / name)
        with PILImage.open(out / name) as written:  # a GIF holds RGB as a palette image
            assert written.size == expected.size, name
            assert written.mode == ("P" if written.format == "GIF" else expected.mode), name
        assert (out / name).read_bytes() == _file_bytes(expected, out / name), name


def test_the_gpu_refuses_some_files_of_the_mixed_folder(mixed: Path) -> None:
    refused = _refusals(mixed)
    assert "huge.png" in refused
    kind, stage, why = refused["huge.png"]
    assert (kind, stage) == ("Limit", "admission")
    assert why.startswith("the image exceeds the per-graph pixel bound")
    assert {stage for _, stage, _ in refused.values()} == {"admission"}
    assert {kind for kind, _, _ in refused.values()} <= {"Unsupported", "Limit"}
    assert not set(refused) & set(ON_GPU), "convert:RGB of an RGB file must be a copy"


def test_without_fallback_refused_files_are_named_and_not_written(
    mixed: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    refused = _refusals(mixed)
    out = tmp_path / "out"
    code = _apply(mixed, out)
    captured = capsys.readouterr()
    assert code == 1, captured.err
    gpu = {path.name for path in mixed.iterdir()} - set(refused) - {"truncated.jpg"}
    assert set(ON_GPU) <= gpu
    _assert_written_like_pillow(out, mixed, gpu)
    failed = _failed(captured.err)
    for name, (kind, _, why) in refused.items():
        (line,) = [
            line for line in failed if line.startswith(f"pillow-gpu: failed: {mixed / name}: ")
        ]
        assert f": {kind} at admission: why: the GPU refuses this file's job: " in line
        assert why in line
        assert "fix: pass --cpu-fallback" in line
    (truncated,) = [line for line in failed if "truncated.jpg" in line]
    assert ": Decode at decode: why: " in truncated
    assert len(failed) == len(refused) + 1
    assert "cpu fallback:" not in captured.err
    summary = captured.out.splitlines()[0]
    assert summary.startswith(
        f"pillow-gpu apply: {len(gpu)} written, 1 failed, {len(refused)} refused in "
    )
    assert f"written: {len(gpu)} on the GPU (byte-exact), 0 on the CPU fallback" in captured.out
    assert f"refused by the GPU: {len(refused)} (none written" in captured.out
    assert "failed: 1 Decode" in captured.out
    expected = Counter(why for _, _, why in refused.values()).most_common(TOP_REASONS)
    assert _reasons(captured.out) == [(count, why) for why, count in expected]


def test_with_fallback_every_decodable_file_is_written_like_pillow(
    mixed: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    refused = _refusals(mixed)
    out = tmp_path / "out"
    code = _apply(mixed, out, "--cpu-fallback")
    captured = capsys.readouterr()
    assert code == 1, captured.err  # the truncated file is still a failure
    decodable = {path.name for path in mixed.iterdir()} - {"truncated.jpg"}
    _assert_written_like_pillow(out, mixed, decodable)
    fallback = re.findall(
        r"^pillow-gpu: cpu fallback: (.+?): (\w+) at admission: ", captured.err, re.M
    )
    assert sorted(fallback) == sorted(
        (str(mixed / name), kind) for name, (kind, _, _) in refused.items()
    )
    (failed,) = _failed(captured.err)  # never retried on the CPU: a broken file is broken there
    assert f"{mixed / 'truncated.jpg'}: Decode at decode: " in failed
    gpu = len(decodable) - len(refused)
    assert captured.out.startswith(
        f"pillow-gpu apply: {len(decodable)} written, 1 failed, 0 refused in "
    )
    assert f"written: {gpu} on the GPU (byte-exact), {len(refused)} on the CPU fallback" in (
        captured.out
    )
    assert (
        f"refused by the GPU: {len(refused)} ({len(refused)} written by the CPU "
        "fallback, 0 not written)"
    ) in captured.out
    expected = Counter(why for _, _, why in refused.values()).most_common(TOP_REASONS)
    assert _reasons(captured.out) == [(count, why) for why, count in expected]


@pytest.mark.parametrize(
    ("fallback", "code"), [(False, 1), (True, 0)], ids=["refused-exit-1", "fallback-exit-0"]
)
def test_exit_status_without_a_broken_file(
    mixed: Path,
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    fallback: bool,
    code: int,
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("plain.jpg", "rgba.png", "huge.png"):  # huge: refused whatever is widened
        (folder / name).write_bytes((mixed / name).read_bytes())
    extra = ["--cpu-fallback"] if fallback else []
    assert _apply(folder, tmp_path / "out", *extra) == code
    out = capsys.readouterr().out
    assert (" 0 failed, 0 refused in " in out) == fallback


@pytest.mark.parametrize(
    ("max_jobs", "in_flight"), [(1, 1), (64, 2)], ids=["one-job-per-submission", "batched"]
)
def test_a_truncated_file_among_good_ones_loses_nothing(
    mixed: Path,
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    max_jobs: int,
    in_flight: int,
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for index in range(9):
        _jpeg(folder / f"{index}.jpg", 20 + index, 3 if index % 2 else None)
    broken = folder / "4b.jpg"  # sorted between 4.jpg and 5.jpg: mid-stream
    broken.write_bytes((mixed / "truncated.jpg").read_bytes())
    out = tmp_path / "out"
    argv = ["--max-jobs", str(max_jobs), "--max-in-flight", str(in_flight), "--cpu-fallback"]
    code = _apply(folder, out, *argv)
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed(captured.err)
    assert f"{broken}: Decode at decode: " in failed
    _assert_written_like_pillow(out, folder, {f"{index}.jpg" for index in range(9)})
    assert "9 written, 1 failed, 0 refused" in captured.out
    assert "written: 9 on the GPU (byte-exact), 0 on the CPU fallback" in captured.out


# -- each step as Pillow applies it ------------------------------------------------------------


@pytest.mark.parametrize("mode", NATIVE_MODES)
def test_convert_to_the_images_own_mode_records_nothing(mode: str) -> None:
    source = Image.from_pil(make_image(mode, (9, 7), seed=1))
    assert parse_chain(f"convert:{mode}").apply(source).node is source.node
    assert mode in admitted_modes(parse_chain(f"convert:{mode}")).admitted


def test_grayscale_of_an_l_image_records_nothing() -> None:
    source = Image.from_pil(make_image("L", (9, 7), seed=2))
    assert parse_chain("grayscale").apply(source).node is source.node


@pytest.mark.parametrize(
    ("text", "mode"),
    [("rgb", "RGB"), ("ycbcr", "YCbCr"), ("La", "La"), ("la", "LA"), ("i;16", "I;16")],
    ids=["rgb", "ycbcr", "La-as-written", "la-upper", "i16"],
)
def test_convert_mode_is_pillows_spelling(text: str, mode: str) -> None:
    assert parse_chain(f"convert:{text}").steps[0].args == (mode, "floydsteinberg")


def _thumbnail_after(step: Callable[[PILImage.Image], PILImage.Image]) -> Callable[..., object]:
    def pillow(path: Path) -> PILImage.Image:
        with PILImage.open(path) as opened:
            image = step(opened)
            image.thumbnail((64, 64), PILImage.Resampling.BICUBIC)
            return image

    return pillow


#: A step that leaves a file's pixels as they are, then a thumbnail: Pillow's step loads the
#: file, so its thumbnail does not draft (the JPEG is decoded at full size).
IDENTITIES = {
    "convert:RGB": ("RGB", _thumbnail_after(lambda im: im.convert("RGB"))),
    "rotate:0": ("RGB", _thumbnail_after(lambda im: im.rotate(0, expand=True))),
    "grayscale": ("L", _thumbnail_after(PILImageOps.grayscale)),
    "exif_transpose": ("RGB", _thumbnail_after(PILImageOps.exif_transpose)),
}


@pytest.mark.parametrize("step", list(IDENTITIES))
def test_an_identity_step_before_thumbnail_is_a_copy_as_in_pillow(
    step: str, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    mode, pillow = IDENTITIES[step]
    path = tmp_path / "in" / "a.jpg"
    path.parent.mkdir()
    make_image(mode, (600, 400), seed=5).save(path, quality=90)
    out = tmp_path / "out"
    code = main(["apply", f"{step},thumbnail:64x64", str(path), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "written: 1 on the GPU (byte-exact)" in captured.out
    expected = pillow(path)
    with PILImage.open(out / "a.jpg") as written:
        assert written.size == expected.size
    assert (out / "a.jpg").read_bytes() == _file_bytes(expected, path)
    with PILImage.open(path) as opened:  # the test can fail: a draft changes the pixels
        opened.thumbnail((64, 64))
        assert opened.tobytes() != expected.tobytes()


def test_chain_works_with_an_in_place_thumbnail(
    tmp_path: Path, device: SharedDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pillow's thumbnail changes the image and returns None; pillow-gpu's is becoming so."""
    recorded = Image.Image.thumbnail

    def in_place(self: Image.Image, *args: object, **kwargs: object) -> None:
        result = recorded(self, *args, **kwargs)  # type: ignore[arg-type]
        if result is not None:
            self._node = result.node  # point the handle at the result, as Pillow does

    monkeypatch.setattr(Image.Image, "thumbnail", in_place)
    source = make_image("RGB", (40, 30), seed=6)
    lazy = parse_chain("thumbnail:9x9,flip").apply(Image.from_pil(source))
    expected = source.copy()
    expected.thumbnail((9, 9))
    assert_image_equal(lazy.to_pil(), PILImageOps.flip(expected))
    path = tmp_path / "a.png"
    source.save(path)
    out = tmp_path / "out"
    assert main(["apply", "thumbnail:9x9,flip", str(path), "-o", str(out)]) == 0
    with PILImage.open(out / "a.png") as written:
        assert written.tobytes() == PILImageOps.flip(expected).tobytes()


def test_the_cpu_fallback_runs_each_step_as_pillow() -> None:
    source = make_image("RGBA", (50, 40), seed=7)
    chain = parse_chain("convert:RGB,thumbnail:20x20:lanczos,autocontrast:2,pad:24x24")
    live = chain.apply_pil(source.copy())
    expected = source.convert("RGB")
    expected.thumbnail((20, 20), PILImage.Resampling.LANCZOS)
    expected = PILImageOps.pad(PILImageOps.autocontrast(expected, 2), (24, 24))
    assert_image_equal(live, expected)


# -- the summary ---------------------------------------------------------------------------------


def test_summary_lists_the_top_reasons_most_common_first() -> None:
    tally = Tally(gpu=3)
    for count, why in enumerate("abcdefg", 1):
        tally.reasons[f"reason {why}"] = count
        for _ in range(count):
            tally.failures.append(
                Failure(path="p", kind="Unsupported", stage="admission", message="", refusal=True)
            )
    tally.failures.append(Failure(path="q", kind="Decode", stage="decode", message=""))
    lines = tally.lines(elapsed=1.0, notes="", fallback=False, admitted="x")
    assert lines[0].startswith("3 written, 1 failed, 28 refused in 1.00 s")
    shown = [line.strip() for line in lines if line.startswith("    ")]
    assert shown == [
        "7x reason g",
        "6x reason f",
        "5x reason e",
        "4x reason d",
        "3x reason c",
        "... and 2 other reason(s)",
    ]
    assert "  failed: 1 Decode (each reported on stderr by path)" in lines
