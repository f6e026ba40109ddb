"""``pillow-gpu info``: the adapter, its granted limits and the native route table."""

from __future__ import annotations

import json
from typing import Any

from pillow_gpu.gpu._device import get_device
from pillow_gpu.gpu._routes import ROUTES, render_routes_markdown

__all__ = ["adapter_summary", "collect_info", "render_info"]

#: Adapter fields shown first (wgpu's ``adapter.info`` keys).
_ADAPTER_KEYS = ("device", "vendor", "architecture", "description", "adapter_type", "backend_type")


def adapter_summary() -> dict[str, Any]:
    """The shared device's adapter fields (name, vendor, backend, CPU or discrete, ...)."""
    info = get_device().adapter_info
    ordered = {key: info[key] for key in _ADAPTER_KEYS if key in info}
    ordered.update({key: value for key, value in info.items() if key not in ordered})
    return ordered


def collect_info() -> dict[str, Any]:
    """Adapter, granted limits, features and the route table as plain JSON-ready data."""
    shared = get_device()
    return {
        "adapter": adapter_summary(),
        "limits": {key: int(value) for key, value in sorted(dict(shared.device.limits).items())},
        "features": sorted(str(feature) for feature in shared.device.features),
        "routes": [
            {
                "operation": route.operation,
                "modes": list(route.modes),
                "kernel": route.kernel,
                "contexts": route.contexts,
            }
            for route in ROUTES
        ],
    }


def render_info(*, as_json: bool = False) -> str:
    """The text ``pillow-gpu info`` prints (``as_json`` for machine-readable output)."""
    data = collect_info()
    if as_json:
        return json.dumps(data, indent=2) + "\n"
    adapter = data["adapter"]
    lines = ["# Adapter", ""]
    lines += [f"{key}: {value}" for key, value in adapter.items()]
    lines += ["", "# Granted device limits", ""]
    lines += [f"{key}: {value}" for key, value in data["limits"].items()]
    lines += ["", "# Features", "", ", ".join(data["features"]) or "(none)", ""]
    routes = render_routes_markdown()
    return "\n".join(lines) + "\n" + routes
