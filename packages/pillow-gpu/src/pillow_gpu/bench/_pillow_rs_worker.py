"""Worker of the pillow-rs lane: runs inside a venv where ``PIL`` is pillow-rs.

Started as ``VENV/bin/python _pillow_rs_worker.py CASE_DIR`` by :mod:`pillow_gpu.bench._pillow_rs`.
It imports nothing from pillow_gpu (that venv does not have it). ``CASE_DIR/case.json`` names
the workload, mode, size, the source files (raw ``tobytes()`` of each source), each job's
source indices and the executor settings. Commands arrive one per line on stdin:

- ``parity``: run one batch and write each job's output bytes to ``CASE_DIR/out-<job>.raw``;
- ``window``: run one batch (fresh graphs, CPU output, every result's ``tobytes()``);
- ``stats``: report the executor's counters; ``quit``: close the executor and exit.

Every answer is one stdout line ``@@pillow-rs <json>`` (other output, e.g. driver noise, is
ignored by the parent). ``seconds`` in an answer is the worker's own perf_counter time.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

_MARK = "@@pillow-rs "


def _answer(**fields: Any) -> None:
    sys.stdout.write(_MARK + json.dumps(fields) + "\n")
    sys.stdout.flush()


def _chains(pil: Any) -> dict[str, Callable[[str, list[Any]], Any]]:
    ops, chops, flt, image_mod = pil.ImageOps, pil.ImageChops, pil.ImageFilter, pil.Image

    def invert(mode: str, image: Any) -> Any:
        return ops.invert(image) if mode in ("L", "RGB") else chops.invert(image)

    def thumbnail(mode: str, images: list[Any]) -> Any:
        width, height = images[0].size
        size = (max(1, width // 4), max(1, height // 4))
        return images[0].resize(size, image_mod.Resampling.BICUBIC)

    def composite(mode: str, images: list[Any]) -> Any:
        mask = images[0].getchannel("A" if "A" in images[0].getbands() else 0)
        return image_mod.composite(images[0], images[1], mask)

    return {
        "composite": composite,
        "invert_median3": lambda mode, im: invert(mode, im[0]).filter(flt.MedianFilter(3)),
        "gaussian_blur2": lambda mode, im: im[0].filter(flt.GaussianBlur(2)),
        "grayscale_invert": lambda mode, im: ops.invert(ops.grayscale(im[0])),
        "thumbnail_bicubic": thumbnail,
        "multiply": lambda mode, im: chops.multiply(im[0], im[1]),
        "chops_invert": lambda mode, im: chops.invert(im[0]),
    }


def main(case_dir: str) -> int:
    """Serve one case's commands (see the module docstring)."""
    import PIL

    if not hasattr(PIL, "GpuBatchExecutor"):
        _answer(
            ok=False,
            kind="NotPillowRs",
            error=f"PIL in {sys.executable} is not pillow-rs (version "
            f"{getattr(PIL, '__version__', '?')} at {PIL.__file__} has no GpuBatchExecutor); "
            "pass a venv where pillow-rs is installed",
        )
        return 0
    from PIL import Image

    # pillow-rs's PIL has these; the Pillow the type checker sees does not.
    executor_type: Any = getattr(PIL, "GpuBatchExecutor")  # noqa: B009
    backends: Any = getattr(PIL, "available_backends")  # noqa: B009

    root = Path(case_dir)
    case = json.loads((root / "case.json").read_text(encoding="utf-8"))
    mode, size = case["mode"], tuple(case["size"])
    chains = _chains(PIL)
    if case["workload"] not in chains:
        _answer(ok=False, kind="Unsupported", error=f"no pillow-rs chain for {case['workload']}")
        return 0
    chain = chains[case["workload"]]
    sources = [Image.frombytes(mode, size, (root / name).read_bytes()) for name in case["sources"]]
    jobs_of: list[list[int]] = case["jobs"]
    executor = executor_type(**case["executor"])
    _answer(ok=True, version=PIL.__version__, backends=list(backends()))

    def jobs() -> Iterator[tuple[int, Any]]:
        for index, picks in enumerate(jobs_of):
            yield index, chain(mode, [sources[k] for k in picks])

    def batch(keep: bool) -> int:
        delivered = 0
        # Iterate to the end without a `with` block: Results.close() closes the executor.
        for result in executor.run(jobs(), output="cpu"):
            data = result.image.tobytes()
            if keep:
                (root / f"out-{result.input_key}.raw").write_bytes(data)
            delivered += 1
        return delivered

    for line in sys.stdin:
        command = line.strip()
        if command == "quit":
            break
        started = time.perf_counter()
        try:
            if command == "stats":
                _answer(ok=True, stats=dict(executor.stats))
                continue
            if command not in ("parity", "window"):
                _answer(ok=False, kind="Protocol", error=f"unknown command {command!r}")
                continue
            delivered = batch(keep=command == "parity")
            _answer(ok=True, delivered=delivered, seconds=time.perf_counter() - started)
        except Exception as error:
            kind = getattr(error, "kind", type(error).__name__)
            _answer(ok=False, kind=str(kind), error=f"{type(error).__name__}: {error}")
            traceback.print_exc()
            executor = executor_type(**case["executor"])  # a failed stream closes it
    executor.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
