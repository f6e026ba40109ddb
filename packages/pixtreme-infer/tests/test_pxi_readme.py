"""The README's Python examples run as written (in order, sharing one namespace)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.req("issue6.readme-examples")
@pytest.mark.extras("onnx", "onnxruntime")
def test_readme_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) >= 6
    namespace: dict[str, object] = {"__name__": "readme"}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)
    printed = output.getvalue()
    assert "{'example': 'pixtreme-arch-example'}" in printed
    assert "StateFootprint.amount must be an int >= 1" in printed
    assert "(512, 512)" in printed
    assert "{'name': 'example-x2', 'version': 1}" in printed
    assert "True 0.0" in printed
    assert "dlpack-allocation              passed" in printed
    assert "$.model = '../x2.onnx' has a '..' segment" in printed
