"""Ray tests need Ray Data; they skip with the install command without it.

Under ``uv run`` Ray would rebuild the project's environment for each worker (and download
an interpreter); the workers of a local test cluster run this interpreter as it is, so that
is switched off before anything imports Ray.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
pytest.importorskip("ray.data", reason="needs Ray Data: pip install 'pillow-gpu[ray]'")
