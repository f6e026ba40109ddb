"""docs/routes.md is generated from the planner's route table and must not drift."""

from __future__ import annotations

from pathlib import Path

from pillow_gpu.gpu._layout import (
    INDEXED_MODES,
    LIMITED_MODES,
    NATIVE_MODES,
    PALETTE_ALPHA_MODES,
    WIDE_MODES,
)
from pillow_gpu.gpu._routes import ROUTES, render_routes_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "routes.md"


def test_committed_routes_doc_matches_the_planner() -> None:
    assert DOC.read_text(encoding="utf-8") == render_routes_markdown(), (
        "regenerate with: python -m pillow_gpu.gpu._routes_doc > packages/pillow-gpu/docs/routes.md"
    )


def test_every_route_names_native_limited_or_wide_modes_only() -> None:
    for route in ROUTES:
        assert route.modes
        assert set(route.modes) <= {
            *NATIVE_MODES,
            *LIMITED_MODES,
            *INDEXED_MODES,
            *PALETTE_ALPHA_MODES,
            *WIDE_MODES,
        }
