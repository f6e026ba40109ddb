"""The CUDA Graph benchmark's summaries and its no-GPU exit (timings themselves need a GPU)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
BENCH = BENCHMARKS / "cuda_graph_bench.py"
sys.path.insert(0, str(BENCHMARKS))
from cuda_graph_timing import VIDEO_SIZES, _summary  # noqa: E402


@pytest.mark.parametrize(
    ("values", "median", "p90", "minimum"),
    [
        pytest.param([2.0], 2.0, 2.0, 2.0, id="one"),
        pytest.param([3.0, 1.0, 2.0], 2.0, 3.0, 1.0, id="three-unsorted"),
        pytest.param([float(v) for v in range(1, 11)], 5.5, 9.0, 1.0, id="ten"),
        pytest.param([float(v) for v in range(101)], 50.0, 90.0, 0.0, id="hundred-one"),
    ],
)
def test_summary(values: list[float], median: float, p90: float, minimum: float) -> None:
    summary = _summary(values)
    assert summary.samples == len(values)
    assert summary.median_ms == median
    assert summary.p90_ms == p90
    assert summary.min_ms == minimum


def test_video_sizes() -> None:
    assert VIDEO_SIZES == {"1080p": (1080, 1920), "4K": (2160, 3840)}


def test_bench_without_gpu_exits_with_reason(tmp_path: Path) -> None:
    if not BENCH.is_file():
        pytest.skip(f"needs the benchmark script at {BENCH} (not part of this distribution)")
    output = tmp_path / "bench.json"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run(
        [sys.executable, str(BENCH), "--output", str(output)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "cuda_graph_bench: needs a CUDA GPU" in done.stderr
    assert not output.exists()
