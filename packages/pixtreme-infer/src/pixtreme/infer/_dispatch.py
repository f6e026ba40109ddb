"""Architecture dispatch: attribute name -> module, imported only on first access.

Two sources, in this order: the static map of architectures this core knows by name, and the
``pixtreme.infer.architectures`` entry-point group, through which an architecture distribution
released after this core registers itself (``name = "module.path"``). A name in the static map
always resolves statically; an entry point cannot take it over.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import NamedTuple

# difflib, importlib.metadata and the error types load only when a lookup needs them, keeping
# `import pixtreme.infer` nearly free on top of `import pixtreme`.

ARCHITECTURES: dict[str, str] = {
    "span": "pixtreme-infer-span",
    "cda_vsr": "pixtreme-infer-cda-vsr",
    "example": "pixtreme-arch-example",
}
"""Architectures known statically: attribute name -> the distribution that provides it."""

ENTRY_POINT_GROUP = "pixtreme.infer.architectures"
"""Entry-point group through which other architecture distributions register a module."""

CORE_MODULES: tuple[str, ...] = (
    "cli",
    "contracts",
    "cuda_graph",
    "dependencies",
    "errors",
    "frames",
    "onnx",
    "recipe_identity",
    "verification",
)
"""Submodules of this wheel, also reachable by attribute access."""


class Architecture(NamedTuple):
    """One architecture the core can dispatch to."""

    name: str
    module: str
    distribution: str
    source: str  # "static" or "entry-point"


def _registered() -> dict[str, Architecture]:
    from importlib.metadata import entry_points

    found: dict[str, Architecture] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in ARCHITECTURES or not entry.name.isidentifier() or entry.attr:
            continue  # static names win; an entry point names a module, not an attribute
        distribution = entry.dist.name if entry.dist is not None else "unknown"
        found.setdefault(
            entry.name, Architecture(entry.name, entry.module, distribution, "entry-point")
        )
    return found


def architectures(package: str = "pixtreme.infer") -> dict[str, Architecture]:
    """Every architecture known statically or registered through an entry point, by name."""
    known = {
        name: Architecture(name, f"{package}.{name}", distribution, "static")
        for name, distribution in ARCHITECTURES.items()
    }
    return {**known, **dict(sorted(_registered().items()))}


def _unknown(package: str, name: str, known: list[str]) -> AttributeError:
    import difflib

    from pixtreme.infer.errors import actionable_error

    close = difflib.get_close_matches(name, [*known, *CORE_MODULES], n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return AttributeError(
        actionable_error(
            why=f"{package} resolves only its core modules and known architectures",
            what=f"module {package!r} has no attribute {name!r}",
            how=f"{hint}known architectures: {', '.join(sorted(known))}; an architecture "
            f"released later registers itself in the {ENTRY_POINT_GROUP!r} entry-point group",
        )
    )


def resolve(package: str, name: str) -> ModuleType:
    """Import the core module or architecture ``name``, or raise AttributeError/ImportError."""
    if name.startswith("__"):
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    if name in CORE_MODULES:
        return importlib.import_module(f"{package}.{name}")
    if name in ARCHITECTURES:
        target = Architecture(name, f"{package}.{name}", ARCHITECTURES[name], "static")
    else:
        registered = _registered()
        if name not in registered:
            raise _unknown(package, name, [*ARCHITECTURES, *registered])
        target = registered[name]
    try:
        return importlib.import_module(target.module)
    except ModuleNotFoundError as error:
        # Only the architecture module itself missing means "not installed"; anything else
        # (a dependency missing inside an installed architecture) is a broken install.
        if error.name != target.module:
            raise
        from pixtreme.infer.errors import ArchitectureNotInstalledError

        raise ArchitectureNotInstalledError(
            why=f"the optional architecture module {target.module!r} is not installed",
            what=f"observed missing module={error.name!r}; "
            f"required distribution={target.distribution!r}",
            how=f"pip install {target.distribution}",
            distribution=target.distribution,
        ) from error
