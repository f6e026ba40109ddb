"""Print docs/routes.md: ``python -m pillow_gpu.gpu._routes_doc > docs/routes.md``."""

from __future__ import annotations

from pillow_gpu.gpu._routes import render_routes_markdown

if __name__ == "__main__":  # pragma: no cover - documentation generator
    print(render_routes_markdown(), end="")
