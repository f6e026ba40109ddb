"""Recording an operation allocates O(1) memory, whatever size it asks for (issue 15).

Argument checks are delegated to Pillow on tiny probes, never at the requested size; the GPU
planner then refuses the oversized graph with its documented ``Limit`` (stage ``admission``).

Pillow allocates pixels with C ``malloc``, which ``tracemalloc`` does not see, so the peak
resident set (``ru_maxrss``) is measured in a fresh interpreter, one recording at a time. That
interpreter also caps its address space at 128 MiB above what its imports map, so a regression
fails fast with ``MemoryError`` instead of paging through tens of gigabytes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import call_outcome

#: The most any one recording (or the refused ``apply`` run) may raise the peak RSS by.
BOUND_MB = 50

_SCRIPT = textwrap.dedent(
    """
    import json, resource, sys, warnings
    from PIL import Image as PILImage
    from pillow_gpu import Image, ImageFilter, ImageOps
    from pillow_gpu.cli import main
    from pillow_gpu.errors import GpuError
    from pillow_gpu.gpu import plan_graph
    import pillow_gpu.executor._metadata  # plan_graph imports it on first use

    warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
    L8 = Image.new("L", (8, 8))

    def thumbnailed(image, size):
        image.thumbnail(size)  # in place, as in Pillow
        return image

    CASES = {
        "expand-20000": lambda: ImageOps.expand(L8, 20000),
        "expand-99999-rgb": lambda: ImageOps.expand(Image.new("RGB", (1024, 1024)), 99999),
        "expand-tuple-fill": lambda: ImageOps.expand(L8, (30000, 0, 0, 30000), fill="white"),
        "resize-60000": lambda: L8.resize((60000, 60000)),
        "resize-rgba-lanczos-gap": lambda: Image.new("RGBA", (8, 8)).resize(
            (50000, 40000), Image.LANCZOS, reducing_gap=2.0
        ),
        "crop-13000": lambda: L8.crop((-5000, -5000, 8000, 8000)),
        "thumbnail-30000": lambda: thumbnailed(Image.new("L", (60000, 60000)), (30000, 30000)),
        "rotate-45-expand": lambda: Image.new("RGB", (20000, 20000)).rotate(45, expand=True),
        "transform-affine-60000": lambda: L8.transform(
            (60000, 60000), Image.AFFINE, (1, 0, 0, 0, 1, 0)
        ),
        "pad-50000": lambda: ImageOps.pad(Image.new("RGB", (8, 4)), (50000, 50000)),
        "fit-50000x30000": lambda: ImageOps.fit(Image.new("RGB", (8, 8)), (50000, 30000)),
        "scale-5000": lambda: ImageOps.scale(L8, 5000.0),
        "median-filter-23169": lambda: L8.filter(ImageFilter.MedianFilter(23169)),
    }
    # Warm every code path on tiny arguments, so lazy imports and caches are not measured.
    ImageOps.expand(L8, 1)
    L8.crop((0, 0, 3, 3))
    L8.filter(ImageFilter.MedianFilter(3))
    Image.new("RGBA", (8, 8)).resize((3, 3), Image.LANCZOS, reducing_gap=2.0)
    L8.rotate(45, expand=True)
    ImageOps.pad(Image.new("RGB", (8, 4)), (9, 9))
    ImageOps.fit(Image.new("RGB", (8, 8)), (5, 3))
    plan_graph(L8.resize((3, 3)))

    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + 128 * 2**20, resource.RLIM_INFINITY))

    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    for name, record in CASES.items():
        row = {"case": name}
        before = peak()
        try:
            image = record()
        except (MemoryError, ValueError, TypeError) as error:
            row["record_error"] = f"{type(error).__name__}: {error}"
        else:
            row["rss_bytes"] = peak() - before
            row["size"] = list(image.size)
            try:
                plan_graph(image)
            except GpuError as error:
                row["plan_error"] = [error.kind, error.stage, error.why]
        print(json.dumps(row), flush=True)

    before = peak()
    try:
        code = main(["apply", "expand:99999", sys.argv[1], "-o", sys.argv[2]])
    except SystemExit as refused:  # argparse's exit for a refused chain
        code = refused.code
    except MemoryError:
        code = "MemoryError"
    print(json.dumps({"case": "cli-apply-expand-99999", "rss_bytes": peak() - before,
                      "exit": code}), flush=True)
    """
)

_PIXEL_BOUND = "the image exceeds the per-graph pixel bound (8192 x 8192)"

#: case -> (recorded size or None when only the refusal is checked, planner refusal).
EXPECTED: dict[str, tuple[tuple[int, int] | None, tuple[str, str, str]]] = {
    "expand-20000": ((40008, 40008), ("Limit", "admission", _PIXEL_BOUND)),
    "expand-99999-rgb": ((201022, 201022), ("Limit", "admission", _PIXEL_BOUND)),
    "expand-tuple-fill": ((30008, 30008), ("Limit", "admission", _PIXEL_BOUND)),
    "resize-60000": ((60000, 60000), ("Limit", "admission", _PIXEL_BOUND)),
    "resize-rgba-lanczos-gap": ((50000, 40000), ("Limit", "admission", _PIXEL_BOUND)),
    "crop-13000": ((13000, 13000), ("Limit", "admission", _PIXEL_BOUND)),
    "thumbnail-30000": ((30000, 30000), ("Limit", "admission", _PIXEL_BOUND)),
    "rotate-45-expand": (None, ("Limit", "admission", _PIXEL_BOUND)),
    "transform-affine-60000": ((60000, 60000), ("Limit", "admission", _PIXEL_BOUND)),
    "pad-50000": ((50000, 50000), ("Limit", "admission", _PIXEL_BOUND)),
    "fit-50000x30000": ((50000, 30000), ("Limit", "admission", _PIXEL_BOUND)),
    "scale-5000": ((40000, 40000), ("Limit", "admission", _PIXEL_BOUND)),
    "median-filter-23169": (
        (8, 8),
        ("Unsupported", "admission", "rank filter size 23169 exceeds 7"),
    ),
}


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Run every recording in one fresh interpreter; one JSON row per case."""
    folder = tmp_path_factory.mktemp("record-memory")
    (folder / "in").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(folder / "in"), str(folder / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    by_case = {row["case"]: row for row in rows}
    by_case["_stderr"] = {"returncode": done.returncode, "tail": done.stderr[-4000:]}
    return by_case


@pytest.mark.parametrize("case", list(EXPECTED))
def test_recording_allocates_o1_and_admission_refuses(
    measured: dict[str, dict[str, Any]], case: str
) -> None:
    assert case in measured, measured["_stderr"]
    row = measured[case]
    assert "record_error" not in row, row
    assert row["rss_bytes"] < BOUND_MB * 2**20, f"{case}: {row['rss_bytes'] / 2**20:.0f} MiB"
    size, refusal = EXPECTED[case]
    if size is not None:
        assert tuple(row["size"]) == size
    else:
        assert row["size"][0] * row["size"][1] > 8192 * 8192
    assert tuple(row["plan_error"]) == refusal


def test_apply_refuses_a_huge_expand_before_reading_a_file(
    measured: dict[str, dict[str, Any]],
) -> None:
    assert "cli-apply-expand-99999" in measured, measured["_stderr"]
    row = measured["cli-apply-expand-99999"]
    assert row["exit"] == 2
    assert row["rss_bytes"] < BOUND_MB * 2**20, f"{row['rss_bytes'] / 2**20:.0f} MiB"


_L8 = PILImage.new("L", (8, 8))
_RGBA8 = PILImage.new("RGBA", (8, 8))

#: id -> (live Pillow call, the same call recorded lazily): the tiny probes must give Pillow's
#: result size, or raise Pillow's exception with Pillow's message, at sizes nobody allocates.
ARGUMENT_CASES: dict[str, tuple[Any, Any]] = {
    "resize-edge-past-c-int": (
        lambda: _L8.resize((2**31, 60000)),
        lambda: Image.new("L", (8, 8)).resize((2**31, 60000)),
    ),
    "resize-negative-with-huge": (
        lambda: _L8.resize((-1, 60000)),
        lambda: Image.new("L", (8, 8)).resize((-1, 60000)),
    ),
    "resize-zero-with-gap": (
        lambda: _RGBA8.resize((0, 60000), reducing_gap=2.0),
        lambda: Image.new("RGBA", (8, 8)).resize((0, 60000), reducing_gap=2.0),
    ),
    "resize-float-huge": (
        lambda: _L8.resize((60000.0, 3)),
        lambda: Image.new("L", (8, 8)).resize((60000.0, 3)),
    ),
    "resize-float-equal-size-copies": (
        lambda: _L8.resize((8.0, 8.0)),
        lambda: Image.new("L", (8, 8)).resize((8.0, 8.0)),
    ),
    "resize-bad-filter-before-size": (
        lambda: _L8.resize((60000, 60000), 99),
        lambda: Image.new("L", (8, 8)).resize((60000, 60000), 99),
    ),
    "crop-past-bomb-limit": (
        lambda: _L8.crop((0, 0, 30000, 30000)),
        lambda: Image.new("L", (8, 8)).crop((0, 0, 30000, 30000)),
    ),
    "crop-right-past-c-int": (
        lambda: _L8.crop((0, 0, 2**31, 0)),
        lambda: Image.new("L", (8, 8)).crop((0, 0, 2**31, 0)),
    ),
    "crop-right-before-left": (
        lambda: _L8.crop((60000, 0, 5, 60000)),
        lambda: Image.new("L", (8, 8)).crop((60000, 0, 5, 60000)),
    ),
    "expand-negative-border-shrinks": (
        lambda: PILImageOps.expand(_L8, -3),
        lambda: ImageOps.expand(Image.new("L", (8, 8)), -3),
    ),
    "expand-negative-result": (
        lambda: PILImageOps.expand(_L8, (-5, 60000)),
        lambda: ImageOps.expand(Image.new("L", (8, 8)), (-5, 60000)),
    ),
    "expand-three-tuple": (
        lambda: PILImageOps.expand(_L8, (1, 2, 3)),
        lambda: ImageOps.expand(Image.new("L", (8, 8)), (1, 2, 3)),
    ),
    "expand-bad-fill-huge-border": (
        lambda: PILImageOps.expand(_L8, 60000, "no-such-colour"),
        lambda: ImageOps.expand(Image.new("L", (8, 8)), 60000, "no-such-colour"),
    ),
    "expand-float-border": (
        lambda: PILImageOps.expand(_L8, 60000.5),
        lambda: ImageOps.expand(Image.new("L", (8, 8)), 60000.5),
    ),
    "expand-past-c-int": (
        lambda: PILImageOps.expand(_L8, 2**31),
        lambda: ImageOps.expand(Image.new("L", (8, 8)), 2**31),
    ),
}


@pytest.mark.parametrize("case", list(ARGUMENT_CASES))
def test_probe_outcome_matches_pillow(case: str) -> None:
    live, lazy = ARGUMENT_CASES[case]
    assert call_outcome(lazy) == call_outcome(live)
