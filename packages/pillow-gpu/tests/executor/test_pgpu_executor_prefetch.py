"""Files of admitted jobs decode on worker threads (``decode_threads``) with results, errors
and credits exactly as when each file decodes at its submission."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps, _cpus
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import DecodeError
from pillow_gpu.executor import _prefetch


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(file name, thread name) of every decode the worker threads run."""
    seen: list[tuple[str, str]] = []
    real = _prefetch.decode_leaf

    def recorded(node: Any) -> Any:
        seen.append((Path(node.params["path"]).name, threading.current_thread().name))
        return real(node)

    monkeypatch.setattr(_prefetch, "decode_leaf", recorded)
    return seen


def _photos(folder: Path, count: int) -> list[Path]:
    paths = []
    for index in range(count):
        image = make_image("RGB", (96 + index, 64), seed=index)
        exif = PILImage.Exif()
        exif[0x0112] = 1 + index % 8
        path = folder / f"photo{index}.jpg"
        image.save(path, quality=90, exif=exif)
        paths.append(path)
    return paths


def _expected(path: Path) -> PILImage.Image:
    with PILImage.open(path) as opened:
        return PILImageOps.exif_transpose(opened).resize((40, 30))


@pytest.mark.parametrize("threads", [0, 1, 3], ids=["0-threads", "1-thread", "3-threads"])
def test_a_batch_of_photos_decodes_on_workers_and_matches_pillow(
    tmp_path: Path,
    threads: int,
    decodes: list[tuple[str, str]],
    make_executor: Callable[..., GpuBatchExecutor],
) -> None:
    paths = _photos(tmp_path, 12)
    executor = make_executor(decode_threads=threads, max_jobs=8)
    jobs = (
        (path.name, ImageOps.exif_transpose(Image.open(path)).resize((40, 30))) for path in paths
    )
    results = list(executor.run(jobs))
    assert [result.input_key for result in results] == [path.name for path in paths]
    for result, path in zip(results, paths, strict=True):
        assert_image_equal(result.image, _expected(path))
    workers = {thread for _, thread in decodes}
    if threads:
        assert workers
        assert all(name.startswith("pillow-gpu-decode") for name in workers)
        assert len({name for name, _ in decodes}) == len(decodes)  # each file once at most
    else:
        assert decodes == []


def test_a_damaged_file_fails_as_without_workers(
    tmp_path: Path, make_executor: Callable[..., GpuBatchExecutor]
) -> None:
    paths = _photos(tmp_path, 5)
    data = paths[2].read_bytes()
    paths[2].write_bytes(data[: len(data) // 3])  # cut short: Pillow's decoder raises
    outcomes = {}
    for threads in (0, 2):
        executor = make_executor(decode_threads=threads)
        jobs = [(path.name, Image.open(path).resize((40, 30))) for path in paths]
        outcomes[threads] = [
            (result.input_key, type(getattr(result, "error", None)).__name__)
            for result in executor.run(jobs, errors="deliver")
        ]
    assert outcomes[0] == outcomes[2]
    assert outcomes[2][2] == (paths[2].name, "BatchDecodeError")
    assert [kind for _, kind in outcomes[2]].count("NoneType") == 4


def test_crops_of_one_photo_decode_it_once(
    tmp_path: Path,
    decodes: list[tuple[str, str]],
    make_executor: Callable[..., GpuBatchExecutor],
) -> None:
    [path] = _photos(tmp_path, 1)
    source = Image.open(path)
    boxes = [(0, 0, 20, 20), (10, 5, 60, 40), (50, 10, 90, 60)]
    executor = make_executor(decode_threads=2)
    results = list(executor.run((index, source.crop(box)) for index, box in enumerate(boxes)))
    with PILImage.open(path) as opened:
        for result in results:
            assert_image_equal(result.image, opened.crop(boxes[result.input_key]))
    assert [name for name, _ in decodes] == [path.name]


def test_closing_with_decodes_pending_returns_every_credit(
    tmp_path: Path, make_executor: Callable[..., GpuBatchExecutor]
) -> None:
    paths = _photos(tmp_path, 10)
    executor = make_executor(decode_threads=2, max_jobs=10)
    stream = executor.run((path.name, Image.open(path).resize((40, 30))) for path in paths)
    first = next(stream)
    assert_image_equal(first.image, PILImage.open(paths[0]).resize((40, 30)))
    stream.close()  # the fixture checks that every credit came back


def test_an_in_memory_file_decodes_on_a_worker(
    make_executor: Callable[..., GpuBatchExecutor],
) -> None:
    data = io.BytesIO()
    make_image("L", (50, 40), seed=3).save(data, "PNG")
    executor = make_executor(decode_threads=1)
    [result] = executor.run([("bytes", Image.open(io.BytesIO(data.getvalue())).rotate(90))])
    assert_image_equal(result.image, PILImage.open(data).rotate(90))


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (-1, ValueError, "decode_threads must be at least 0"),
        (1.5, TypeError, "decode_threads must be an int or None"),
        (True, TypeError, "decode_threads must be an int or None"),
        ("4", TypeError, "decode_threads must be an int or None"),
    ],
    ids=["negative", "float", "bool", "str"],
)
def test_bad_decode_threads_are_refused(value: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message) as caught:
        GpuBatchExecutor(decode_threads=value)  # type: ignore[arg-type]
    assert "fix:" in str(caught.value)


def test_the_default_leaves_a_cpu_to_the_driving_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    for cpus, expected in ((1, 0), (2, 1), (6, 5), (64, 8)):
        monkeypatch.setattr(_cpus.os, "sched_getaffinity", lambda _pid, n=cpus: set(range(n)))
        assert _prefetch.decode_threads(None) == expected
        assert _prefetch.decode_threads(None, cpu_adapter=True) == 0  # kernels share the cores
        assert _prefetch.decode_threads(3, cpu_adapter=True) == 3


def test_decode_errors_on_a_worker_are_reported_by_the_launch(
    tmp_path: Path, make_executor: Callable[..., GpuBatchExecutor]
) -> None:
    """A worker's failed decode is not cached: the launch decodes again and raises the
    executor's DecodeError with Pillow's message."""
    path = tmp_path / "cut.png"
    data = io.BytesIO()
    make_image("RGB", (64, 64), seed=5).save(data, "PNG")
    path.write_bytes(data.getvalue()[:200])
    executor = make_executor(decode_threads=2)
    with pytest.raises(DecodeError, match="a source could not be decoded"):
        list(executor.run([("cut", Image.open(path).resize((8, 8)))]))


def test_palette_files_decode_at_their_launch(
    tmp_path: Path,
    decodes: list[tuple[str, str]],
    make_executor: Callable[..., GpuBatchExecutor],
) -> None:
    """A P file's tables are planned from its header and checked against the decoded palette
    at the launch: workers leave such files alone, so the check always runs."""
    path = tmp_path / "palette.gif"
    make_image("RGB", (30, 20), seed=4).convert("P").save(path)
    executor = make_executor(decode_threads=2)
    [result] = executor.run([("gif", Image.open(path).convert("RGB"))])
    with PILImage.open(path) as opened:
        assert_image_equal(result.image, opened.convert("RGB"))
    assert decodes == []
