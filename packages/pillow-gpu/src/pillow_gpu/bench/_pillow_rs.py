"""The pillow-rs lane: the peer's own ``PIL.GpuBatchExecutor`` on the same workloads and pixels.

pillow-rs replaces ``PIL``, so it lives in its own venv (:func:`ensure_venv` makes one on
request) and runs in a long-lived worker process (``_pillow_rs_worker.py``, isolated from the
caller's ``PYTHONPATH``). Per case the lane writes the case's source pixels as raw ``tobytes()``
files plus a ``case.json`` into a temporary directory; the worker decodes them once and keeps
one executor (``queue=True`` with the same ``max_jobs``/``max_in_flight``/byte budgets as our
queued lane). Each timed window is one ``window`` command: the worker builds fresh graphs for
the whole batch, streams them through ``executor.run(..., output="cpu")`` and takes every
result's bytes; the parent times the round trip, so the lane is interleaved window by window
with ours (the pipe round trip, tens of microseconds, is inside its window). Parity: one
``parity`` batch writes every output, which is compared byte for byte with Pillow's.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image as PILImage

from pillow_gpu.bench._workloads import Workload, job_sources

__all__ = [
    "PILLOW_RS_VERSION",
    "PillowRsLane",
    "PillowRsUnavailable",
    "ensure_venv",
    "mismatch",
    "venv_python",
]

#: The pillow-rs release the lane installs and compares with.
PILLOW_RS_VERSION = "12.2.3"
_WORKER = Path(__file__).with_name("_pillow_rs_worker.py")
_MARK = "@@pillow-rs "
_TIMEOUT_S = 600.0


class PillowRsUnavailable(Exception):
    """The lane cannot run here (no venv, the worker failed, or pillow-rs refused the chain)."""


def venv_python(venv: Path) -> Path:
    """The interpreter of ``venv``."""
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _python312() -> str:
    try:
        prefix = subprocess.run(
            ["pyenv", "prefix", "3.12"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        prefix = ""
    if prefix and Path(prefix, "bin", "python").exists():
        return str(Path(prefix, "bin", "python"))
    found = shutil.which("python3.12")
    if found:
        return found
    msg = (
        "creating the pillow-rs venv needs Python 3.12; observed neither `pyenv prefix 3.12` "
        "nor python3.12 on PATH; install 3.12 or pass an existing venv with --pillow-rs-venv"
    )
    raise PillowRsUnavailable(msg)


def ensure_venv(venv: Path, *, log: Callable[[str], None] = print) -> Path:
    """Return ``venv``'s interpreter, creating the venv with pillow-rs and numpy if missing."""
    python = venv_python(venv)
    if python.exists():
        return python
    uv = shutil.which("uv")
    if uv is None:
        msg = (
            f"creating the pillow-rs venv {venv} needs uv; observed no uv on PATH; install uv "
            f"or create it yourself: python3.12 -m venv {venv} && {venv}/bin/pip install "
            f"pillow-rs=={PILLOW_RS_VERSION} numpy"
        )
        raise PillowRsUnavailable(msg)
    log(f"creating the pillow-rs venv {venv}")
    steps = [
        [uv, "venv", "-p", _python312(), str(venv)],
        [uv, "pip", "install", "--python", str(python), f"pillow-rs=={PILLOW_RS_VERSION}", "numpy"],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            msg = (
                f"creating the pillow-rs venv failed at `{' '.join(step)}` (exit "
                f"{done.returncode}): {' / '.join(tail)}; fix the cause or pass an existing venv"
            )
            raise PillowRsUnavailable(msg)
    return python


def mismatch(outputs: Sequence[bytes | None], reference: Sequence[PILImage.Image]) -> str:
    """``exact`` or ``MISMATCH n bytes (k of N outputs)`` against Pillow's ``tobytes()``."""
    differing = outputs_bad = 0
    for got, want in zip(outputs, reference, strict=True):
        expected = want.tobytes()
        if got is None:
            differing += len(expected)
            outputs_bad += 1
            continue
        common = min(len(got), len(expected))
        left = np.frombuffer(got, np.uint8, common)
        right = np.frombuffer(expected, np.uint8, common)
        bad = int(np.count_nonzero(left != right)) + abs(len(got) - len(expected))
        differing += bad
        outputs_bad += bad > 0
    if not differing:
        return "exact"
    return f"MISMATCH {differing} bytes ({outputs_bad} of {len(reference)} outputs)"


class PillowRsLane:
    """One case in a pillow-rs worker process (see the module docstring)."""

    def __init__(
        self,
        workload: Workload,
        mode: str,
        sources: Sequence[PILImage.Image],
        *,
        batch: int,
        executor: dict[str, Any],
        python: Path,
    ) -> None:
        self.batch = batch
        self._dir = Path(tempfile.mkdtemp(prefix="pillow-rs-case-"))
        self.worker_seconds: list[float] = []
        names = []
        for k, image in enumerate(sources):
            name = f"src-{k}.raw"
            (self._dir / name).write_bytes(image.tobytes())
            names.append(name)
        positions = {id(image): k for k, image in enumerate(sources)}
        case = {
            "workload": workload.name,
            "mode": mode,
            "size": list(sources[0].size),
            "sources": names,
            "jobs": [
                [positions[id(image)] for image in job_sources(workload, sources, index)]
                for index in range(batch)
            ],
            "executor": {"queue": True, **executor},
        }
        (self._dir / "case.json").write_text(json.dumps(case), encoding="utf-8")
        self._stderr = (self._dir / "worker.log").open("w", encoding="utf-8")
        self._process = subprocess.Popen(
            # Isolated (-I): a PYTHONPATH holding Pillow (the GPU machine's device-check sets
            # one) would otherwise put Pillow's PIL before the venv's pillow-rs.
            [str(python), "-I", str(_WORKER), str(self._dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
        )
        self._answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            ready = self._wait()
        except BaseException:
            self.close()
            raise
        if not ready.get("ok"):
            self.close()
            raise PillowRsUnavailable(f"pillow-rs refused the case: {ready.get('error')}")
        self.version = str(ready.get("version"))

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            if line.startswith(_MARK):
                self._answers.put(json.loads(line[len(_MARK) :]))
        self._answers.put(None)

    def _log_tail(self) -> str:
        self._stderr.flush()
        lines = (self._dir / "worker.log").read_text(encoding="utf-8", errors="replace")
        return " / ".join(lines.strip().splitlines()[-3:])

    def _wait(self) -> dict[str, Any]:
        try:
            answer = self._answers.get(timeout=_TIMEOUT_S)
        except queue.Empty:
            msg = f"the pillow-rs worker gave no answer within {_TIMEOUT_S:.0f} s"
            raise PillowRsUnavailable(msg) from None
        if answer is None:
            msg = f"the pillow-rs worker exited (code {self._process.poll()}): {self._log_tail()}"
            raise PillowRsUnavailable(msg)
        return answer

    def _command(self, command: str) -> dict[str, Any]:
        assert self._process.stdin is not None
        self._process.stdin.write(command + "\n")
        self._process.stdin.flush()
        answer = self._wait()
        if not answer.get("ok"):
            msg = f"pillow-rs {answer.get('kind')}: {answer.get('error')}"
            raise RuntimeError(msg)
        return answer

    def _batch(self, command: str) -> int:
        answer = self._command(command)
        self.worker_seconds.append(float(answer["seconds"]))
        return int(answer["delivered"])

    def check(self, reference: Sequence[PILImage.Image]) -> str:
        """Run one batch in the worker and compare every output with Pillow's bytes."""
        try:
            self._batch("parity")
        except RuntimeError as error:
            raise PillowRsUnavailable(f"pillow-rs could not run the chain: {error}") from error
        self.worker_seconds.clear()
        outputs = []
        for index in range(self.batch):
            path = self._dir / f"out-{index}.raw"
            outputs.append(path.read_bytes() if path.exists() else None)
        return mismatch(outputs, reference)

    def window(self) -> Callable[[], int]:
        """A timed window: one batch of fresh graphs in the worker, bytes out."""
        return lambda: self._batch("window")

    def stats(self) -> dict[str, Any]:
        """The pillow-rs executor's counters (parity batch + timed windows)."""
        found: dict[str, Any] = self._command("stats")["stats"]
        return found

    def close(self) -> None:
        """Stop the worker and remove the case directory."""
        process = self._process
        if process.poll() is None:
            try:
                assert process.stdin is not None
                process.stdin.write("quit\n")
                process.stdin.close()
                process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()
        self._reader.join(timeout=30)
        if process.stdout is not None:
            process.stdout.close()
        if process.stdin is not None and not process.stdin.closed:
            process.stdin.close()
        self._stderr.close()
        shutil.rmtree(self._dir, ignore_errors=True)
