"""The normal suite needs no GPU, and tests of absent optional dependencies skip with a reason.

Runs this package's whole suite (every marker selected, GPU and performance tests included) in
a child pytest with CUDA_VISIBLE_DEVICES='' and onnx, onnxruntime and pynvml made unimportable,
then checks that nothing failed or errored and that every skip names its reason: a CUDA GPU, or
the optional module and the extra that installs it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

_TESTS = Path(__file__).resolve().parent
_ROOT = _TESTS.parents[2]
_BLOCKED = ("onnx", "onnxruntime", "pynvml")
_BLOCKER = f"""
import sys
for _name in {_BLOCKED!r}:
    sys.modules[_name] = None  # import raises ModuleNotFoundError; find_spec returns None
"""
_SKIP_LINE = re.compile(r"^SKIPPED \[(\d+)\] ([^:]+)(?::\d+)?: (.*)$")
_GPU_REASON = "needs a CUDA GPU: CUDA_VISIBLE_DEVICES is empty"
_EXTRA_REASON = re.compile(
    r"^needs optional module\(s\) (?P<modules>[\w, ]+): "
    r"pip install 'pixtreme-infer\[(ort|verify)\]'"
)


def _summary_counts(output: str) -> dict[str, int]:
    last = output.strip().splitlines()[-1]
    return {word: int(count) for count, word in re.findall(r"(\d+) (\w+)", last)}


@pytest.fixture(scope="module")
def child_run(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    if not (_ROOT / "conftest.py").is_file():
        pytest.skip(f"needs the workspace root conftest.py (markers) at {_ROOT}")
    plugins = tmp_path_factory.mktemp("plugins")
    (plugins / "pxi_block_optional.py").write_text(_BLOCKER, encoding="utf-8")
    env = dict(os.environ)
    env["CUDA_VISIBLE_DEVICES"] = ""
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(plugins), env.get("PYTHONPATH"))))
    this_file = Path(__file__).resolve().relative_to(_ROOT).as_posix()
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(_TESTS),
            "-m",
            "gpu or not gpu",  # every test, including the default-deselected gpu/performance ones
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "-p",
            "pxi_block_optional",
            "--deselect",
            this_file,  # this module would run the child again
        ],
        cwd=_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.req("spec.development.suite-without-gpu")
@pytest.mark.req("spec.development.optional-dependencies-skip")
def test_the_suite_passes_without_a_gpu_or_optional_modules(
    child_run: subprocess.CompletedProcess[str],
) -> None:
    output = child_run.stdout + child_run.stderr
    assert child_run.returncode == 0, output[-4000:]
    counts = _summary_counts(child_run.stdout)
    assert "failed" not in counts, output[-4000:]
    assert "error" not in counts, output[-4000:]
    assert "errors" not in counts, output[-4000:]
    assert counts.get("passed", 0) > 300
    for name in _BLOCKED:
        assert f"No module named '{name}'" not in output, f"a test imported {name} unguarded"


@pytest.mark.req("spec.development.suite-without-gpu")
@pytest.mark.req("spec.development.optional-dependencies-skip")
def test_every_skip_names_a_gpu_or_an_extra(child_run: subprocess.CompletedProcess[str]) -> None:
    skipped = 0
    gpu = 0
    extras: set[str] = set()
    for line in child_run.stdout.splitlines():
        match = _SKIP_LINE.match(line)
        if match is None:
            continue
        count, _, reason = match.groups()
        skipped += int(count)
        if reason == _GPU_REASON:
            gpu += int(count)
            continue
        extra = _EXTRA_REASON.match(reason)
        assert extra is not None, f"a skip without a GPU or extra reason: {line}"
        extras.update(module.strip() for module in extra["modules"].split(","))
    assert skipped == _summary_counts(child_run.stdout).get("skipped", 0)
    assert gpu > 0, "the GPU tests were selected, so they must skip here"
    assert extras == set(_BLOCKED), f"skips name {sorted(extras)}, expected {sorted(_BLOCKED)}"
