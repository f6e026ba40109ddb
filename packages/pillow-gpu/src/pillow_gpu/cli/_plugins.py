"""Pillow's format plugins the command line registers, and the formats they would add.

Pillow reads HEIF (the photos iPhones take) only through the pillow-heif plugin, and JPEG XL
through pillow-jxl-plugin, which a program registers itself (pillow-heif by a call, the other
by its import). The command line registers each one that is installed, so ``pillow-gpu apply``
reads ``.heic`` and ``.jxl`` files as a Pillow program that registered them would (your own
code registers them as with Pillow: ``pillow_heif.register_heif_opener()``, ``import
pillow_jxl``). A folder's files of formats no plugin here reads are skipped, and the run's
summary says which extensions were skipped and which package reads them.
"""

from __future__ import annotations

import collections
import importlib
import importlib.util

__all__ = [
    "HIDDEN",
    "PLUGINS",
    "named_extensions",
    "plugin_hint",
    "register_plugins",
    "skipped_note",
]

#: Plugin modules registered where installed, and the function of each that registers it
#: (None: importing it registers it).
PLUGINS: dict[str, str | None] = {"pillow_heif": "register_heif_opener", "pillow_jxl": None}

#: Each plugin module's package and the extensions it reads.
_READS = {
    "pillow_heif": ("pillow-heif", (".heic", ".heif", ".hif")),
    "pillow_jxl": ("pillow-jxl-plugin", (".jxl",)),
}

#: Extensions Pillow reads only through a plugin, and the package to install.
_PLUGIN_PACKAGES = {ext: package for package, extensions in _READS.values() for ext in extensions}

#: The key under which a folder's hidden files and folders are counted with the files skipped.
HIDDEN = "hidden"

#: Skipped extensions named in the summary.
_NAMED = 5


def register_plugins() -> tuple[list[str], list[str]]:
    """Register every installed module of :data:`PLUGINS` with Pillow: (the modules
    registered, a problem line for each one that is installed but failed to register)."""
    registered: list[str] = []
    problems: list[str] = []
    for module, function in PLUGINS.items():
        if importlib.util.find_spec(module) is None:
            continue
        try:
            imported = importlib.import_module(module)
            if function is not None:
                getattr(imported, function)()
        except Exception as error:  # a broken install: its formats stay unread, and say so
            problems.append(
                f"why: the installed Pillow plugin {module} could not be registered, so its "
                f"formats are skipped; observed: {type(error).__name__}: {error}; fix: "
                f"reinstall it (pip install --force-reinstall {_READS.get(module, (module,))[0]})"
            )
            continue
        registered.append(module)
    return registered, problems


def named_extensions(skipped: collections.Counter[str]) -> str:
    """The most common extensions of ``skipped`` (extension -> files) with their counts."""
    named = ", ".join(
        f"{extension or 'no extension'} {count}" for extension, count in skipped.most_common(_NAMED)
    )
    return named + (", ..." if len(skipped) > _NAMED else "")


def plugin_hint(skipped: collections.Counter[str]) -> str | None:
    """What to install to read the skipped extensions a known plugin reads, or None."""
    packages = sorted({_PLUGIN_PACKAGES[ext] for ext in skipped if ext in _PLUGIN_PACKAGES})
    return f"pip install {' '.join(packages)} to read them" if packages else None


def skipped_note(
    skipped: collections.Counter[str], readable: collections.Counter[str] | None = None
) -> str | None:
    """The summary's line for what the inputs' folders held and the run left out: hidden
    entries (:data:`HIDDEN`), files in no format Pillow reads here, and image files under
    other extensions (``readable``), each by extension; None if nothing was left out."""
    parts = []
    hidden = skipped.get(HIDDEN, 0)
    if hidden:
        parts.append(f"{hidden} hidden file(s) or folder(s) (names starting with a dot)")
    unread = collections.Counter({ext: n for ext, n in skipped.items() if ext != HIDDEN})
    if unread:
        part = (
            f"{sum(unread.values())} file(s) in no format Pillow reads here "
            f"({named_extensions(unread)})"
        )
        hint = plugin_hint(unread)
        parts.append(part if hint is None else f"{part}; {hint}")
    if readable:
        parts.append(
            f"{sum(readable.values())} image file(s) under extensions that are no image "
            f"format's ({named_extensions(readable)}); name them on the command line to run them"
        )
    return "skipped: " + ", ".join(parts) if parts else None
