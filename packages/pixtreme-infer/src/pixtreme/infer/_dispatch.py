"""Static architecture dispatch: attribute name -> distribution, imported only on access."""

from __future__ import annotations

import importlib
from types import ModuleType

# difflib and the error types load only when a lookup fails, keeping `import pixtreme.infer`
# nearly free on top of `import pixtreme`.

# Known architecture modules under pixtreme.infer and the distribution that provides each.
# Static on purpose: listing architectures never imports or scans installed packages.
ARCHITECTURES: dict[str, str] = {
    "example": "pixtreme-arch-example",
}

# Core submodules, importable by attribute access as well (they are part of this wheel).
CORE_MODULES: tuple[str, ...] = (
    "cli",
    "contracts",
    "cuda_graph",
    "errors",
    "frames",
    "onnx",
    "recipes",
    "verification",
)


def suggestion(name: str) -> str:
    """A ' Did you mean ...?' hint for a misspelt name, or ''."""
    import difflib

    close = difflib.get_close_matches(name, [*ARCHITECTURES, *CORE_MODULES], n=1)
    return f" Did you mean {close[0]!r}?" if close else ""


def unknown_name_error(package: str, name: str) -> AttributeError:
    """The AttributeError for a name that is neither a known architecture nor a core module.

    Its message has the shared why/what/how shape and keeps Python's "has no attribute" wording.
    """
    from pixtreme.infer.errors import format_error

    hint = suggestion(name).strip()
    known = ", ".join(sorted(ARCHITECTURES))
    return AttributeError(
        format_error(
            why=f"{package} resolves only the architectures in its static map and its core modules",
            what=f"module {package!r} has no attribute {name!r}",
            how=f"{hint + ' ' if hint else ''}Known architectures: {known}; core modules: "
            f"{', '.join(CORE_MODULES)}",
        )
    )


def resolve(package: str, name: str) -> ModuleType:
    """Import ``package.name`` for a known architecture or core module, else AttributeError."""
    if name in CORE_MODULES:
        return importlib.import_module(f"{package}.{name}")
    distribution = ARCHITECTURES.get(name)
    if distribution is None:
        raise unknown_name_error(package, name)
    module_name = f"{package}.{name}"
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        # Only the architecture module itself missing means "not installed"; anything else
        # (a dependency missing inside an installed architecture) is a broken install.
        if error.name != module_name:
            raise
        from pixtreme.infer.errors import ArchitectureNotInstalledError

        raise ArchitectureNotInstalledError(
            why=f"architecture {name!r} is provided by the separate distribution {distribution!r}",
            what=f"module {module_name!r} is not installed",
            how=f"pip install {distribution}",
            distribution=distribution,
        ) from error
