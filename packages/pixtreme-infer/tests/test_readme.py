"""The README's Python examples run as written (in order, sharing one namespace)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.extras("onnx", "onnxruntime")
def test_readme_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) >= 6
    namespace: dict[str, object] = {"__name__": "readme"}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)
    printed = output.getvalue().splitlines()
    assert printed == [
        "pixtreme-infer-span",
        "why=a; what=b; how=c",
        "amount must be a positive integer",
        "2 False",
        "example-x2@1",
        "(1, 8, 8, 3)",
        "True 0.0",
        "passed unverified",
    ]
