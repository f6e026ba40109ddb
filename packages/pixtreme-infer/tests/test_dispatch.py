"""Architecture dispatch: the static map, entry-point discovery, and what the core imports."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pixtreme.infer
import pytest
from pixtreme.infer import _dispatch
from pixtreme.infer.errors import ArchitectureNotInstalledError

_HEAVY = ("onnxruntime", "onnx", "pynvml", "tensorrt", "tensoracle", "torch")
_SHAPE = re.compile(r"why=.+; what=.+; how=.+", re.DOTALL)


@pytest.mark.req("spec.core.no-eager-architecture-import")
@pytest.mark.req("spec.core.contracts-without-architecture")
def test_importing_the_core_loads_no_architecture_and_no_backend() -> None:
    code = (
        "import json, sys, pixtreme.infer, pixtreme.infer.contracts, pixtreme.infer.verification;"
        "print(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "pixtreme.infer" in loaded
    for name in _HEAVY:
        assert not any(m == name or m.startswith(f"{name}.") for m in loaded), name
    for architecture in _dispatch.ARCHITECTURES:
        assert f"pixtreme.infer.{architecture}" not in loaded


def test_static_map_knows_the_published_architectures() -> None:
    assert pixtreme.infer.ARCHITECTURES == {
        "span": "pixtreme-infer-span",
        "cda_vsr": "pixtreme-infer-cda-vsr",
        "example": "pixtreme-arch-example",
    }
    assert {"span", "cda_vsr", "example"} <= set(dir(pixtreme.infer))


def test_attribute_access_imports_the_architecture() -> None:
    module = pixtreme.infer.example
    assert module.__name__ == "pixtreme.infer.example"
    assert sys.modules["pixtreme.infer.example"] is module


@pytest.mark.parametrize(
    ("name", "hint"),
    [("exampel", "did you mean 'example'"), ("contract", "did you mean 'contracts'"), ("zz", "")],
)
def test_unknown_names_raise_attribute_error_with_a_suggestion(name: str, hint: str) -> None:
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'") as info:
        getattr(pixtreme.infer, name)
    assert hint in str(info.value)
    assert _SHAPE.search(str(info.value))
    assert not hasattr(pixtreme.infer, name)


@pytest.mark.req("spec.core.absent-architecture-actionable")
@pytest.mark.parametrize(
    ("name", "distribution"),
    [("span", "pixtreme-infer-span"), ("cda_vsr", "pixtreme-infer-cda-vsr")],
)
def test_published_but_absent_architecture_raises_actionable_import_error(
    name: str, distribution: str
) -> None:
    if importlib.util.find_spec(f"pixtreme.infer.{name}") is not None:
        pytest.skip(f"{distribution} is installed in this environment")
    with pytest.raises(
        ArchitectureNotInstalledError, match=f"how=pip install {distribution}"
    ) as info:
        getattr(pixtreme.infer, name)
    assert isinstance(info.value, ImportError)
    assert info.value.distribution == distribution
    assert f"required distribution={distribution!r}" in str(info.value)


def test_broken_installed_architecture_passes_its_error_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "pixtreme" / "infer" / "pxibroken"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import pxi_absent_arch_dependency\n")
    monkeypatch.setattr(pixtreme.infer, "__path__", [*pixtreme.infer.__path__, str(package.parent)])
    monkeypatch.setitem(_dispatch.ARCHITECTURES, "pxibroken", "pixtreme-arch-pxibroken")
    with pytest.raises(ModuleNotFoundError) as info:
        pixtreme.infer.pxibroken  # noqa: B018
    assert not isinstance(info.value, ArchitectureNotInstalledError)
    assert info.value.name == "pxi_absent_arch_dependency"
    sys.modules.pop("pixtreme.infer.pxibroken", None)


@pytest.fixture
def registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A third-party distribution on sys.path registering architectures by entry point."""
    info = tmp_path / "acme_arch-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-arch\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text(
        "[pixtreme.infer.architectures]\n"
        "acme = acme_arch_module\n"
        "acme_missing = acme_arch_absent_module\n"
        "example = acme_arch_module\n"
    )
    (tmp_path / "acme_arch_module.py").write_text("FAMILY = 'acme'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    for name in ("acme", "acme_missing"):
        pixtreme.infer.__dict__.pop(name, None)
    sys.modules.pop("acme_arch_module", None)


def test_entry_point_architecture_resolves(registered: Path) -> None:
    module = pixtreme.infer.acme
    assert module.FAMILY == "acme"
    found = _dispatch.architectures()
    assert found["acme"] == _dispatch.Architecture(
        "acme", "acme_arch_module", "acme-arch", "entry-point"
    )
    assert "acme" in dir(pixtreme.infer)


def test_entry_point_cannot_take_over_a_static_name(registered: Path) -> None:
    assert _dispatch.architectures()["example"].source == "static"
    assert pixtreme.infer.example.__name__ == "pixtreme.infer.example"


def test_registered_but_missing_module_names_its_distribution(registered: Path) -> None:
    with pytest.raises(ArchitectureNotInstalledError, match="how=pip install acme-arch"):
        pixtreme.infer.acme_missing  # noqa: B018


def test_unknown_name_lists_registered_architectures(registered: Path) -> None:
    with pytest.raises(AttributeError, match="acme") as info:
        pixtreme.infer.acmee  # noqa: B018
    assert "did you mean 'acme'" in str(info.value)


@pytest.mark.req("spec.packaging.namespace-root-owned-by-pixtreme")
def test_namespace_root_is_pixtremes() -> None:
    import pixtreme

    source = Path(pixtreme.infer.__file__).parent
    assert not (source.parent / "__init__.py").exists()
    assert pixtreme.__file__ is not None
    assert "pixtreme-infer" not in pixtreme.__file__
