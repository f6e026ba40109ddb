"""The README's main command: tools/demo.py runs end to end on this machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_demo_runs_both_libraries_end_to_end() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "demo.py"), "--size", "64", "--batch", "3"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    assert "byte-identical to Pillow" in out
    assert "3/3 results byte-identical to Pillow" in out
    assert "pillow-gpu apply: 3 files written, equal to Pillow" in out
    assert "refused at admission (kind=Unsupported)" in out
    assert any(
        line.split()[:4] == ["example", "pixtreme-arch-example", "static", "yes"]
        for line in out.splitlines()
    )
    assert "example: " in out
    assert " 0 failed" in out
    assert out.rstrip().endswith("demo: done")
