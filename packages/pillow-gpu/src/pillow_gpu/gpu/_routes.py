"""The native route table: every (operation, mode, context) the GPU path admits.

The rows live beside their lowerings (:mod:`pillow_gpu.gpu.lowering`, one module per family)
and are joined there; anything not listed is rejected at admission with ``Unsupported``.
``docs/routes.md`` is generated from :data:`ROUTES` (``python -m pillow_gpu.gpu._routes_doc``).
"""

from __future__ import annotations

from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES, WIDE_MODES
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK
from pillow_gpu.gpu.lowering import ROUTES, Route

__all__ = ["ROUTES", "Route", "render_routes_markdown"]

#: The table's mode columns: the 8-bit layouts (native, then limited), then the 16/32-bit ones.
_COLUMNS = (*NATIVE_MODES, *LIMITED_MODES, *WIDE_MODES)


def render_routes_markdown() -> str:
    """The route table as Markdown (docs/routes.md is generated from this)."""
    lines = [
        "# Native GPU routes",
        "",
        "Generated from `pillow_gpu.gpu._routes.ROUTES` (rows defined beside their lowerings in",
        "`pillow_gpu/gpu/lowering/`) by `python -m pillow_gpu.gpu._routes_doc > docs/routes.md`;",
        "a test keeps it in sync.",
        "Everything else is rejected at admission with `Unsupported`, and so is a graph whose",
        f"shader work exceeds {MAX_SUBMISSION_WORK:_} units (each dispatch: invocations x",
        "(8 + the kernel's inner-loop samples); see `docs/executor.md`).",
        "",
        "| Operation | " + " | ".join(_COLUMNS) + " | Kernel | Contexts |",
        "|---|" + "---|" * len(_COLUMNS) + "---|---|",
    ]
    for route in ROUTES:
        marks = " | ".join("yes" if mode in route.modes else "-" for mode in _COLUMNS)
        lines.append(f"| {route.operation} | {marks} | {route.kernel} | {route.contexts} |")
    return "\n".join(lines) + "\n"
