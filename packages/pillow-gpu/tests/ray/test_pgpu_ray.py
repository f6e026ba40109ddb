"""``pillow_gpu.ray.PillowGpuMapper`` and ``pillow-gpu apply --ray`` on a local Ray cluster.

One cluster for the module (``num_cpus=2``, no GPU resources: the actors run lavapipe), and a
folder of real files as a photo folder holds them: EXIF-oriented and plain JPEGs, palette,
gray, RGBA and 16-bit PNGs, an animated GIF (a failure in ``apply`` without ``--first-frame``:
its other frames would be lost) and a truncated JPEG. Every file goes through
Pillow's ``exif_transpose -> convert("RGB") -> thumbnail((48, 48)) -> GaussianBlur(2)``.
Which files the GPU admits is the planner's business, so the refused ones are found by
planning each file; what must hold whatever it admits: every good row is byte-equal to
Pillow, a refused or undecodable file is an error row and fails nothing, and ``apply --ray``
writes exactly what single-process ``apply`` writes, once, even when an actor dies mid-run.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pillow_gpu.ray
import pytest
import ray
import ray.data
from PIL import ExifTags, PngImagePlugin
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from PIL import ImageSequence as PILImageSequence
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import make_image
from pillow_gpu.cli import main
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.cli._frames import animation_options
from pillow_gpu.cli._metadata import metadata_options, with_iptc
from pillow_gpu.cli._outputs import TEMP_SUFFIX
from pillow_gpu.errors import GpuError
from pillow_gpu.gpu._planner import plan_graph
from pillow_gpu.ray import ERROR_COLUMNS, PillowGpuMapper, to_pil

pytestmark = [
    pytest.mark.ray,
    # Ray Data's own DataContext() sets its deprecated fields while it is built (Ray 2.60):
    # Ray's warnings about Ray's code, not about this package.
    pytest.mark.filterwarnings(r"ignore::DeprecationWarning:ray\.data\.context"),
]

CHAIN = "exif_transpose,convert:RGB,thumbnail:48x48,gaussian_blur:2"
#: Refused by no planner: it fails when the executor decodes it.
TRUNCATED = "truncated.jpg"
#: Files the GPU must run (convert:RGB of an RGB file is a copy; L converts on the GPU).
ON_GPU = {"gray.png", "oriented.jpg", "plain.jpg"}


# -- the folder and Pillow's results ----------------------------------------------------------


def _pillow(data: bytes) -> PILImage.Image:
    """Pillow's result of CHAIN for an encoded file, written out call by call."""
    with PILImage.open(io.BytesIO(data)) as opened:
        image = PILImageOps.exif_transpose(opened)
        image = image.convert("RGB")
        image.thumbnail((48, 48), PILImage.Resampling.BICUBIC)
        return image.filter(PILImageFilter.GaussianBlur(2))


def _encoded(image: PILImage.Image, format: str, **options: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=format, **options)
    return buffer.getvalue()


def _jpeg(path: Path, seed: int, orientation: int | None) -> None:
    image = make_image("RGB", (160, 120), seed)  # over 2 x 48: thumbnail drafts the JPEG
    exif = PILImage.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    image.save(path, quality=90, exif=exif.tobytes())


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ray-mixed") / "in"
    folder.mkdir()
    _jpeg(folder / "oriented.jpg", 1, 6)
    _jpeg(folder / "plain.jpg", 2, None)
    make_image("RGB", (60, 45), 3).quantize(16).save(folder / "palette.png")
    make_image("L", (60, 45), 4).save(folder / "gray.png")
    make_image("RGBA", (60, 45), 5).save(folder / "rgba.png")
    frames = [make_image("RGB", (50, 40), seed).quantize(32) for seed in (11, 12, 13)]
    frames[0].save(folder / "anim.gif", save_all=True, append_images=frames[1:], duration=40)
    PILImage.frombytes("I;16", (60, 45), bytes(range(256)) * 21 + bytes(36)).save(
        folder / "deep.png"
    )
    good = (folder / "plain.jpg").read_bytes()
    (folder / TRUNCATED).write_bytes(good[: len(good) // 2])
    with PILImage.open(folder / "deep.png") as deep, PILImage.open(folder / "anim.gif") as gif:
        assert (deep.mode, gif.mode, gif.n_frames) == ("I;16", "P", 3)  # what the writers made
    with (
        PILImage.open(folder / "oriented.jpg") as oriented,
        PILImage.open(folder / "palette.png") as palette,
    ):
        assert (oriented.getexif()[0x0112], palette.mode) == (6, "P")
    return folder


@pytest.fixture(scope="module")
def refusals(mixed: Path) -> dict[str, tuple[str, str]]:
    """File name -> (kind, stage) of each file the GPU planner refuses under CHAIN."""
    chain = parse_chain(CHAIN)
    refused = {}
    for path in sorted(mixed.iterdir()):
        if path.name != TRUNCATED:
            try:
                plan_graph(chain.apply(Image.open(path)))
            except GpuError as error:
                refused[path.name] = (error.kind, error.stage)
    assert not set(refused) & ON_GPU
    return refused


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """One local cluster for the module: 2 CPUs, no GPU resources (the actors use lavapipe)."""
    ray.init(
        num_cpus=2,
        num_gpus=0,
        include_dashboard=False,
        logging_level=logging.WARNING,
        log_to_driver=False,
    )
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    try:
        yield
    finally:
        ray.shutdown()


def _mapped(dataset: ray.data.Dataset, **kwargs: Any) -> list[dict[str, Any]]:
    return dataset.map_batches(
        PillowGpuMapper,
        fn_constructor_kwargs=kwargs,
        batch_size=3,
        compute=ray.data.ActorPoolStrategy(size=1),
        num_gpus=0,
    ).take_all()


# -- the mapper -------------------------------------------------------------------------------


def test_mixed_folder_through_map_batches_is_byte_equal_to_pillow(
    cluster: None, mixed: Path, refusals: dict[str, tuple[str, str]]
) -> None:
    dataset = ray.data.read_binary_files(str(mixed), include_paths=True)
    rows = _mapped(dataset, chain=CHAIN, format="png")
    by_name = {Path(row["path"]).name: row for row in rows}
    assert sorted(by_name) == sorted(path.name for path in mixed.iterdir())
    assert len(rows) == len(by_name)  # every file exactly once
    for name, row in by_name.items():
        error = tuple(row[key] for key in ERROR_COLUMNS)
        if name == TRUNCATED or name in refusals:
            expected = refusals.get(name, ("Decode", "decode"))
            assert (row["error_kind"], row["error_stage"]) == expected, (name, error)
            assert row["error_message"].startswith("why: "), name
            assert (row["bytes"], row["mode"], row["width"]) == (b"", "", 0), name
            continue
        assert error == ("", "", ""), (name, error)
        expected_image = _pillow((mixed / name).read_bytes())
        assert (row["mode"], row["width"], row["height"], row["format"]) == (
            expected_image.mode,
            *expected_image.size,
            "PNG",
        ), name
        assert bytes(row["bytes"]) == _encoded(expected_image, "PNG"), name
    good = set(by_name) - set(refusals) - {TRUNCATED}
    assert good >= ON_GPU


def test_callable_chain_to_numpy_rows_with_a_key_column(cluster: None, mixed: Path) -> None:
    names = ["gray.png", "plain.jpg", "palette.png", "rgba.png", TRUNCATED]
    items = [{"name": name, "bytes": (mixed / name).read_bytes()} for name in names]
    rows = _mapped(
        ray.data.from_items(items),
        chain=ImageOps.invert,  # pickled by reference: pillow_gpu is on every worker
        format="numpy",
        key="name",
    )
    by_name = {row["name"]: row for row in rows}
    assert sorted(by_name) == sorted(names)
    for name, row in by_name.items():
        if name == TRUNCATED:
            assert (row["error_kind"], row["error_stage"]) == ("Decode", "decode")
            assert row["pixels"].shape == (0,)
            continue
        with PILImage.open(mixed / name) as opened:
            palette = opened.getpalette()
            try:
                expected = PILImageOps.invert(opened)
            except OSError:  # a mode Pillow's ImageOps.invert refuses
                assert row["error_kind"] != "", name
                continue
        if expected.mode == "P":  # inverted in its palette, which the row carries
            assert expected.getpalette() != palette
            assert (row["palette_mode"], bytes(row["palette"])) == (
                expected.palette.mode,
                bytes(expected.getpalette(expected.palette.mode)),
            )
        else:
            assert (row["palette_mode"], bytes(row["palette"])) == ("", b"")
        assert row["error_kind"] == "", (name, row["error_message"])
        assert row["format"] == "numpy"
        assert row["pixels"].dtype == np.uint8
        rebuilt = to_pil(row)
        assert (rebuilt.mode, rebuilt.size) == (expected.mode, expected.size), name
        assert rebuilt.tobytes() == expected.tobytes(), name
        assert rebuilt.getpalette() == expected.getpalette(), name


def test_to_pil_refuses_an_error_row() -> None:
    row = {"error_kind": "Decode", "error_stage": "decode", "error_message": "why: x"}
    with pytest.raises(ValueError, match="error row, so it has no pixels"):
        to_pil(row)


def test_mapper_rejects_an_unknown_format_before_any_batch() -> None:
    with pytest.raises(ValueError, match=r"observed: 'nope'; fix: pass a format such as"):
        PillowGpuMapper("invert", format="nope")


@pytest.mark.parametrize("metadata", [None, "keep", "strip"])
def test_mapper_writes_the_metadata_it_is_told_to(mixed: Path, metadata: str | None) -> None:
    """Called directly: a camera JPEG's EXIF (its orientation applied and removed by the
    chain) is in the row's file with "keep", as ``apply`` writes it; None is Pillow's plain
    save, "strip" writes no ICC profile either."""
    chain = parse_chain("exif_transpose,rotate:90")
    mapper = PillowGpuMapper(chain, format="jpeg", metadata=metadata)
    try:
        out = mapper({"path": np.array([str(mixed / "oriented.jpg")], dtype=object)})
    finally:
        mapper.close()
    with PILImage.open(mixed / "oriented.jpg") as opened:
        expected = chain.apply_pil(opened)
    options = {} if metadata is None else metadata_options(expected, keep=metadata == "keep")
    assert out["error_kind"][0] == "", out["error_message"][0]
    assert bytes(out["bytes"][0]) == _encoded(expected, "JPEG", **options)
    with PILImage.open(io.BytesIO(bytes(out["bytes"][0]))) as written:
        assert ("exif" in written.info) == (metadata == "keep")
        assert 0x0112 not in written.getexif()


def _row(source: Path, chain: str = "invert", **options: Any) -> dict[str, Any]:
    """The output row ``PillowGpuMapper(chain, **options)`` gives for the file ``source``."""
    mapper = PillowGpuMapper(chain, **options)
    try:
        out = mapper({"path": np.array([str(source)], dtype=object)})
    finally:
        mapper.close()
    return {column: values[0] for column, values in out.items()}


def _mapped_file(source: Path, **options: Any) -> io.BytesIO:
    """The encoded file ``PillowGpuMapper("invert", **options)`` gives for ``source``."""
    row = _row(source, **options)
    assert row["error_kind"] == "", row["error_message"]
    return io.BytesIO(bytes(row["bytes"]))


@pytest.mark.parametrize("metadata", [None, "keep", "strip"])
def test_mapper_keeps_a_png_s_text_chunks_with_keep(tmp_path: Path, metadata: str | None) -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("parameters", "a lighthouse at dusk, Steps: 30")
    source = tmp_path / "generated.png"
    make_image("RGB", (24, 16), 3).save(source, pnginfo=info)
    with PILImage.open(_mapped_file(source, format="png", metadata=metadata)) as written:
        expected = {"parameters": "a lighthouse at dusk, Steps: 30"} if metadata == "keep" else {}
        assert dict(written.text) == expected


@pytest.mark.parametrize("metadata", [None, "keep", "strip"])
def test_mapper_carries_a_tiff_s_picture_tags_with_keep(
    tmp_path: Path, metadata: str | None
) -> None:
    exif = PILImage.Exif()
    exif[ExifTags.Base.Make], exif[ExifTags.Base.Artist] = "Nikon", "Jane Doe"
    exif[ExifTags.IFD.Exif] = {ExifTags.Base.ExposureTime: 0.004}
    source = tmp_path / "scan.tif"
    make_image("RGB", (24, 16), 3).save(source, exif=exif.tobytes())
    with PILImage.open(_mapped_file(source, format="jpeg", metadata=metadata)) as written:
        found = written.getexif()
        kept = metadata == "keep"
        assert (found.get(ExifTags.Base.Make), found.get(ExifTags.Base.Artist)) == (
            ("Nikon", "Jane Doe") if kept else (None, None)
        )
        expected = {ExifTags.Base.ExposureTime: 0.004} if kept else {}
        assert dict(found.get_ifd(ExifTags.IFD.Exif)) == expected


@pytest.mark.parametrize("metadata", [None, "keep", "strip"])
def test_mapper_keeps_a_jpeg_s_iptc_record_with_keep(metadata: str | None) -> None:
    record = b"\x1c\x02\x78\x00\x07caption"  # one IPTC dataset: the caption
    photo = with_iptc(_encoded(make_image("RGB", (40, 30), 3), "JPEG"), record)
    mapper = PillowGpuMapper("invert", format="jpeg", metadata=metadata)
    try:
        out = mapper({"path": np.array(["news.jpg"], dtype=object), "bytes": np.array([photo])})
    finally:
        mapper.close()
    assert out["error_kind"][0] == "", out["error_message"][0]
    with PILImage.open(io.BytesIO(bytes(out["bytes"][0]))) as written:
        kept = written.info.get("photoshop", {}).get(0x0404)
    assert kept == (record if metadata == "keep" else None)


@pytest.mark.parametrize("metadata", [None, "keep", "strip"])
@pytest.mark.parametrize("format", ["gif", "jpeg"])
def test_mapper_rows_name_the_metadata_their_format_cannot_hold(
    mixed: Path, metadata: str | None, format: str
) -> None:
    row = _row(mixed / "oriented.jpg", format=format, metadata=metadata)
    assert row["error_kind"] == "", row["error_message"]
    with PILImage.open(mixed / "oriented.jpg") as opened:
        assert opened.info.get("exif")  # a camera's EXIF, which a GIF cannot hold
        resolution = bool(opened.info.get("dpi"))
    expected = "EXIF (GIF files hold none)"
    if resolution:
        expected += "; resolution (GIF files hold none)"
    kept = metadata == "keep" and format == "gif"
    assert row["metadata_left_out"] == (expected if kept else "")


def test_mapper_rejects_an_unknown_metadata_choice() -> None:
    with pytest.raises(ValueError, match=r"observed: 'all'; fix: pass None .*'keep' or 'strip'"):
        PillowGpuMapper("invert", metadata="all")


@pytest.mark.parametrize("first_frame", [True, False], ids=["first-frame", "frames-refused"])
def test_mapper_gives_an_animation_s_first_frame_or_refuses_it(
    mixed: Path, first_frame: bool
) -> None:
    """Called directly: by default an animation's row is its first frame, as Pillow's
    ``Image.open`` and the chain give it; ``first_frame=False`` (apply without
    ``--first-frame``) makes it an error row, and single images are unaffected."""
    names = ["anim.gif", "gray.png"]
    chain = parse_chain("rotate:90")
    mapper = PillowGpuMapper(chain, format="numpy", first_frame=first_frame)
    try:
        out = mapper({"path": np.array([str(mixed / name) for name in names], dtype=object)})
    finally:
        mapper.close()
    for index, name in enumerate(names):
        if name == "anim.gif" and not first_frame:
            assert (out["error_kind"][index], out["error_stage"][index]) == (
                "ExtraFrames",
                "frames",
            )
            assert (
                "observed: a GIF file of 3 frames; fix: pass --first-frame"
                in (out["error_message"][index])
            )
            continue
        with PILImage.open(mixed / name) as opened:
            expected = chain.apply_pil(opened)
        assert out["error_kind"][index] == "", (name, out["error_message"][index])
        assert to_pil({key: out[key][index] for key in out}).tobytes() == expected.tobytes()


#: Files of three frames, each format's animation or pages, with their own durations.
ANIMATIONS = ("anim.gif", "anim.png", "anim.webp", "pages.tif")


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ray-frames") / "in"
    folder.mkdir()
    for seed, name in enumerate(ANIMATIONS):
        first, *rest = [make_image("RGB", (36, 24), 10 * seed + index) for index in range(3)]
        if name.endswith(".gif"):  # a palette GIF, as GIF writers make them
            first, *rest = [frame.quantize(32) for frame in (first, *rest)]
        first.save(folder / name, save_all=True, append_images=rest, duration=[40, 80, 120])
    make_image("RGB", (30, 20), 90).save(folder / "still.png")
    return folder


def _pillow_frames(path: Path, chain: str) -> bytes:
    """Pillow's ``save_all`` of the chain's result for each frame (one image: a plain save)."""
    steps = parse_chain(chain)
    with PILImage.open(path) as opened:
        results = [steps.apply_pil(frame.copy()) for frame in PILImageSequence.Iterator(opened)]
        options = animation_options(results) if len(results) > 1 else {}
        return _encoded(results[0], str(opened.format), **options)


def _format(path: Path) -> str:
    with PILImage.open(path) as opened:
        return str(opened.format)


@pytest.mark.parametrize("column", ["path", "bytes"])
def test_mapper_all_frames_encodes_every_frame_as_pillow_saves_them(
    frames: Path, column: str
) -> None:
    """Called directly: ``all_frames`` rows are Pillow's ``save_all`` of every frame's result
    in each file's own format, with each frame's duration; a single image is its plain save."""
    names = [*ANIMATIONS, "still.png"]
    paths = [frames / name for name in names]
    formats = np.array([_format(path) for path in paths], dtype=object)
    inputs = [str(path) for path in paths] if column == "path" else [p.read_bytes() for p in paths]
    batch = {"path": np.array(names, dtype=object), column: np.array(inputs, dtype=object)}
    mapper = PillowGpuMapper("rotate:90", format=None, all_frames=True)
    try:
        out = mapper({**batch, "format": formats})
    finally:
        mapper.close()
    for index, name in enumerate(names):
        assert out["error_kind"][index] == "", (name, out["error_message"][index])
        assert bytes(out["bytes"][index]) == _pillow_frames(frames / name, "rotate:90"), name
        with PILImage.open(io.BytesIO(bytes(out["bytes"][index]))) as written:
            expected = 3 if name in ANIMATIONS else 1
            assert getattr(written, "n_frames", 1) == expected, name


def test_mapper_all_frames_makes_a_refused_frame_the_row_s_refusal(frames: Path) -> None:
    # Pillow posterizes a palette image; the GPU refuses it for the GIF's P frames.
    row = _row(frames / "anim.gif", "posterize:3", format="gif", all_frames=True)
    assert (row["error_kind"], row["error_stage"]) == ("Unsupported", "admission")
    assert "operation 'posterize' on a mode P image has no GPU route" in row["error_message"]


@pytest.mark.parametrize("output", ["gif", "png", "webp"])
def test_mapper_all_frames_of_several_sizes_into_one_size_animations_fail_the_row(
    tmp_path: Path, output: str
) -> None:
    # A scan's pages differ in size: a GIF or APNG would cut the second to the first's width.
    pages = [make_image("RGB", (36, 24), 1), make_image("RGB", (20, 30), 2)]
    pages[0].save(tmp_path / "scan.tif", save_all=True, append_images=pages[1:])
    row = _row(tmp_path / "scan.tif", format=output, all_frames=True)
    assert (row["error_kind"], row["error_stage"]) == ("FrameSizes", "save")
    message = row["error_message"]
    assert f"observed: 2 frames of 2 sizes (36x24, 20x30) for one {output.upper()}" in message
    assert "fix: choose --format tiff" in message
    assert len(row["bytes"]) == 0


def test_mapper_all_frames_into_a_format_of_one_image_fails_the_row(frames: Path) -> None:
    row = _row(frames / "anim.gif", format="jpeg", all_frames=True)
    assert (row["error_kind"], row["error_stage"]) == ("OneFrameFormat", "save")
    assert "observed: 3 frames for one JPEG file, which holds one image" in row["error_message"]


def test_mapper_refuses_all_frames_into_numpy_rows() -> None:
    with pytest.raises(ValueError, match=r"observed: all_frames=True with format='numpy'; fix: "):
        PillowGpuMapper("invert", format="numpy", all_frames=True)


@pytest.mark.parametrize("threads", [0, 2], ids=["no-workers", "2-workers"])
def test_mapper_decodes_with_the_worker_threads_it_is_given(mixed: Path, threads: int) -> None:
    """Called directly (as one actor's call): worker decoding leaves every row Pillow's."""
    names = ["oriented.jpg", "plain.jpg", "gray.png", "rgba.png", TRUNCATED]
    chain = parse_chain("exif_transpose,rotate:90")
    mapper = PillowGpuMapper(chain, format="numpy", decode_threads=threads)
    try:
        out = mapper(
            {
                "path": np.array(names, dtype=object),
                "bytes": np.array([(mixed / name).read_bytes() for name in names], dtype=object),
            }
        )
    finally:
        mapper.close()
    for index, name in enumerate(out["path"]):
        if name == TRUNCATED:
            assert out["error_kind"][index] == "Decode"
            continue
        with PILImage.open(mixed / name) as opened:
            expected = chain.apply_pil(opened)
        assert out["error_kind"][index] == "", name
        assert bytes(out["pixels"][index]) == expected.tobytes(), name


def test_mapper_refuses_bad_decode_threads() -> None:
    with pytest.raises(ValueError, match="decode_threads must be at least 0; observed -2"):
        PillowGpuMapper("invert", decode_threads=-2)


def test_mapper_passes_its_work_bound_to_the_executor(mixed: Path) -> None:
    """A tiny shader-work bound refuses the rows (error rows, nothing raised); zero is refused
    when the mapper is made."""
    with pytest.raises(ValueError, match="max_submission_work must be at least 1"):
        PillowGpuMapper("invert", max_submission_work=0)
    mapper = PillowGpuMapper("gaussian_blur:2", format="numpy", max_submission_work=1000)
    try:
        out = mapper(
            {
                "path": np.array(["plain.jpg"], dtype=object),
                "bytes": np.array([(mixed / "plain.jpg").read_bytes()], dtype=object),
            }
        )
    finally:
        mapper.close()
    assert out["error_kind"][0] == "Unsupported"
    assert "shader work exceeds the per-submission bound" in out["error_message"][0]


# -- apply --ray ------------------------------------------------------------------------------


def _summary_counts(out: str) -> str:
    """The summary's first line up to the timing: ``N written, N failed, N refused``."""
    match = re.search(r"^pillow-gpu apply: (.+?) in [\d.]+ s", out, re.M)
    assert match is not None, out
    return match.group(1)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _argv(mixed: Path, out: Path, *extra: str) -> list[str]:
    return ["apply", CHAIN, str(mixed), "-o", str(out), "--no-progress", "--cpu-fallback", *extra]


@pytest.fixture(scope="module")
def single(mixed: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    """Single-process ``apply`` on the folder: its output folder, exit status and counts."""
    out = tmp_path_factory.mktemp("single") / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(_argv(mixed, out))
    return out, code, _summary_counts(stdout.getvalue())


def test_apply_ray_with_an_actor_killed_mid_run_writes_what_apply_writes_once(
    cluster: None,
    mixed: Path,
    single: tuple[Path, int, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = tmp_path / "calls"
    killed = tmp_path / "killed"

    class DiesOnItsSecondBatch(PillowGpuMapper):
        """Kills its actor process on the run's second batch, once (Ray restarts it)."""

        def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            with calls.open("ab") as stream:
                stream.write(b".")
            if calls.stat().st_size == 2 and not killed.exists():
                killed.touch()
                os._exit(1)  # as a crash would: no cleanup, no Python exception
            return super().__call__(batch)

    monkeypatch.setattr(pillow_gpu.ray, "PillowGpuMapper", DiesOnItsSecondBatch)
    expected_out, expected_code, expected_counts = single
    out = tmp_path / "out"
    code = main(_argv(mixed, out, "--batch-size", "2", "--ray"))
    captured = capsys.readouterr()
    assert killed.exists(), "the actor was never killed"
    assert calls.stat().st_size > 2  # the killed batch ran again on the restarted actor
    assert code == expected_code == 1, captured.err  # the truncated file fails in both
    assert _summary_counts(captured.out) == expected_counts
    assert "  ran on Ray: 1 actor(s) with 0 GPU(s) each, batch_size 2;" in captured.out
    failed = [line for line in captured.err.splitlines() if "pillow-gpu: failed:" in line]
    assert len(failed) == 2  # no doubled output
    assert [line for line in failed if f"{mixed / TRUNCATED}: Decode at decode: why: " in line]
    # The animation is refused by the actor, as by single-process apply (no --first-frame).
    (frames,) = [line for line in failed if f"{mixed / 'anim.gif'}: " in line]
    assert ": ExtraFrames at frames: why: the file holds several frames" in frames
    assert "; observed: a GIF file of 3 frames; fix: pass --first-frame" in frames
    written = _tree(out)
    assert written == _tree(expected_out)
    assert not [name for name in written if name.endswith(TEMP_SUFFIX)]

    # Again without --overwrite: every output exists, so each is refused and left as it was
    # (checked before any row goes to Ray, so no pipeline starts).
    stamps = {path: path.stat().st_mtime_ns for path in out.iterdir()}
    inputs = [str(mixed / name) for name in sorted(written)]
    code = main(["apply", CHAIN, *inputs, "-o", str(out), "--no-progress", "--ray"])
    captured = capsys.readouterr()
    assert code == 1
    refused = re.findall(
        r"^pillow-gpu: failed: (.+?): FileExistsError at output: ", captured.err, re.M
    )
    assert sorted(Path(path).name for path in refused) == sorted(written)
    assert _summary_counts(captured.out) == f"0 written, {len(written)} failed, 0 refused"
    assert _tree(out) == written
    assert {path: path.stat().st_mtime_ns for path in out.iterdir()} == stamps


@pytest.mark.parametrize(
    ("chain", "written"),
    [("rotate:90", "on the GPU"), ("posterize:3", "by the fallback")],
    ids=["gpu", "cpu-fallback"],
)
def test_apply_all_frames_on_ray_writes_what_apply_writes(
    cluster: None,
    frames: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    chain: str,
    written: str,
) -> None:
    # posterize:3 is refused for the GIF's palette frames: the driver's fallback runs them.
    argv = ["apply", chain, str(frames), "--all-frames", "--cpu-fallback", "--no-progress"]
    assert main([*argv, "-o", str(tmp_path / "single")]) == 0, capsys.readouterr().err
    single = capsys.readouterr().out
    assert main([*argv, "-o", str(tmp_path / "ray"), "--ray"]) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    assert (
        _summary_counts(captured.out) == _summary_counts(single) == "5 written, 0 failed, 0 refused"
    )
    assert _tree(tmp_path / "ray") == _tree(tmp_path / "single")
    with PILImage.open(tmp_path / "ray" / "anim.gif") as gif:
        assert gif.n_frames == 3
        assert _tree(tmp_path / "ray")["anim.gif"] == _pillow_frames(frames / "anim.gif", chain)
    if written == "by the fallback":
        assert f"pillow-gpu: cpu fallback: {frames / 'anim.gif'}: Unsupported" in captured.err


def test_apply_on_ray_reports_the_metadata_left_out_as_apply_does(
    cluster: None, mixed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["apply", "invert", str(mixed / "oriented.jpg"), "--format", "gif", "--no-progress"]
    assert main([*argv, "-o", str(tmp_path / "single")]) == 0, capsys.readouterr().err
    single = capsys.readouterr().out
    assert main([*argv, "-o", str(tmp_path / "ray"), "--ray"]) == 0, capsys.readouterr().err
    on_ray = capsys.readouterr().out

    def left_out(summary: str) -> list[str]:
        start = summary.index("  metadata left out of 1 output(s)")
        return re.findall(r"^    \d+x .*$", summary[start:], re.M)

    assert left_out(on_ray) == left_out(single)
    assert "    1x EXIF (GIF files hold none)" in left_out(single)


def test_ray_options_without_ray_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["apply", "invert", "nothing.png", "--ray-actors", "2"]) == 2
    assert "--ray-actors only apply with --ray" in capsys.readouterr().err
