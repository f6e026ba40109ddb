"""Optional dependencies: import one lazily, or say which extra provides it."""

from __future__ import annotations

import importlib
from types import ModuleType

from pixtreme.infer.errors import OptionalDependencyError

__all__ = ["require_optional"]


def require_optional(module_name: str, *, extra: str) -> ModuleType:
    """Import an optional module, or raise an actionable ImportError naming the extra.

    Only a missing ``module_name`` itself (or its parent package) is translated; an error raised
    inside an installed module, including a missing dependency of that module, passes through
    unchanged so a broken installation is not mistaken for an absent one.
    """
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        parents = {module_name.rsplit(".", depth)[0] for depth in range(module_name.count(".") + 1)}
        if error.name not in parents:
            raise
        requirement = f"pixtreme-infer[{extra}]"
        raise OptionalDependencyError(
            why=f"this operation requires the optional {requirement} capability",
            what=f"Python could not import {module_name!r} ({error.name!r} is not installed)",
            how=f"install it with python -m pip install '{requirement}' and retry",
            module=module_name,
            extra=extra,
        ) from error
