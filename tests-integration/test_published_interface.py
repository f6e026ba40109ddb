"""Every public name of the published pixtreme-infer 0.15.1 at its published path, unchanged.

The snapshot (data/pixtreme-infer-0.15.1-interface.json) is generated: `python
tools/interface_snapshot.py dump --output ...` in a venv holding the published wheel beside
pixtreme (see tools/README.md). The first test compares the installed core with it through
`interface_snapshot.py compare` and lists every difference. The second keeps the snapshot
honest: it reads the published wheel's module sources with `ast` (nothing is imported) and
checks that the public modules and their `__all__` are exactly what the snapshot holds.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from integration_support import ROOT

PUBLISHED = ("pixtreme-infer", "0.15.1")
SNAPSHOT = Path(__file__).resolve().parent / "data" / "pixtreme-infer-0.15.1-interface.json"


def _snapshot() -> dict[str, dict[str, object]]:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def test_installed_core_keeps_every_published_name() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "interface_snapshot.py"), "compare", str(SNAPSHOT)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, (
        f"the installed pixtreme.infer breaks the published 0.15.1 interface:\n{result.stdout}"
        f"{result.stderr[-3000:]}"
    )
    total = sum(len(names) for names in _snapshot().values())
    assert f"{total} of {total} published names match" in result.stdout


def _module_sources(wheel: Path) -> dict[str, tuple[str, bool]]:
    """Module name -> (source, is a package) for every module under pixtreme/infer/."""
    sources: dict[str, tuple[str, bool]] = {}
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if not (name.startswith("pixtreme/infer/") and name.endswith(".py")):
                continue
            parts = name.removesuffix(".py").split("/")
            package = parts[-1] == "__init__"
            module = ".".join(parts[:-1] if package else parts)
            sources[module] = (archive.read(name).decode("utf-8"), package)
    return sources


def _is_public(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split("."))


def _static_all(module: str, sources: dict[str, tuple[str, bool]]) -> list[str]:
    """The names a module's ``__all__`` lists, read from its source.

    Understands what 0.15.1 uses: a list or tuple of string literals, with entries
    ``*submodule.__all__`` for submodules imported by ``from . import submodule``.
    """
    source, is_package = sources[module]
    tree = ast.parse(source, filename=module)
    package = module if is_package else module.rpartition(".")[0]
    submodules: dict[str, str] = {}
    value: ast.expr | None = None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None:
            for alias in node.names:
                submodules[alias.asname or alias.name] = f"{package}.{alias.name}"
        if isinstance(node, ast.Assign):
            targets, assigned = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets, assigned = [node.target], node.value
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            continue
        if isinstance(node, ast.AugAssign):
            pytest.fail(f"{module}: `__all__ +=` is not read by this test; extend _static_all")
        value = assigned
    if not isinstance(value, (ast.List, ast.Tuple)):
        pytest.fail(f"{module}: __all__ is not a list or tuple literal")
    names: list[str] = []
    for element in value.elts:
        if isinstance(element, ast.Constant) and isinstance(element.value, str):
            names.append(element.value)
        elif (
            isinstance(element, ast.Starred)
            and isinstance(element.value, ast.Attribute)
            and element.value.attr == "__all__"
            and isinstance(element.value.value, ast.Name)
            and element.value.value.id in submodules
        ):
            names.extend(_static_all(submodules[element.value.value.id], sources))
        else:
            pytest.fail(f"{module}: cannot read __all__ entry {ast.unparse(element)} statically")
    return names


def test_snapshot_holds_exactly_the_published_wheels_public_names(
    published_wheel: Callable[[str, str], Path],
) -> None:
    sources = _module_sources(published_wheel(*PUBLISHED))
    snapshot = _snapshot()
    public = sorted(m for m in sources if _is_public(m))
    assert public == sorted(snapshot), "the snapshot's modules are not the wheel's public modules"
    differences = []
    for module in public:
        listed = _static_all(module, sources)
        duplicated = sorted({n for n in listed if listed.count(n) > 1})
        missing = sorted(set(listed) - set(snapshot[module]))
        extra = sorted(set(snapshot[module]) - set(listed))
        if missing or extra or duplicated:
            differences.append(
                f"{module}: not in the snapshot {missing}, not in __all__ {extra}, "
                f"listed twice {duplicated}"
            )
    assert not differences, "\n".join(differences)
