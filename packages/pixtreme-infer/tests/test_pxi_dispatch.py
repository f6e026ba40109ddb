"""Static architecture dispatch and what importing the core loads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pixtreme.infer
import pytest
from pixtreme.infer import _dispatch
from pixtreme.infer.errors import ArchitectureNotInstalledError
from pixtreme.infer.verification import has_error_shape

_HEAVY = ("onnxruntime", "onnx", "pynvml", "tensorrt", "tensoracle", "torch")


@pytest.mark.req("spec.core.no-eager-architecture-import")
@pytest.mark.req("spec.core.contracts-without-architecture")
@pytest.mark.req("issue6.dispatch.lazy")
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


@pytest.mark.req("issue6.dispatch.static-map")
def test_static_map_names_the_example_distribution() -> None:
    assert pixtreme.infer.ARCHITECTURES["example"] == "pixtreme-arch-example"
    assert "example" in dir(pixtreme.infer)


@pytest.mark.req("issue6.dispatch.lazy")
def test_attribute_access_imports_the_architecture() -> None:
    module = pixtreme.infer.example
    assert module.__name__ == "pixtreme.infer.example"
    assert sys.modules["pixtreme.infer.example"] is module


@pytest.mark.req("issue6.dispatch.unknown")
@pytest.mark.parametrize(
    ("name", "hint"),
    [("exampel", "Did you mean 'example'"), ("contract", "Did you mean 'contracts'"), ("zz", "")],
)
def test_unknown_names_raise_attribute_error_with_a_suggestion(name: str, hint: str) -> None:
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'") as info:
        getattr(pixtreme.infer, name)
    assert hint in str(info.value)
    assert has_error_shape(str(info.value))
    assert not hasattr(pixtreme.infer, name)


@pytest.mark.req("spec.core.absent-architecture-actionable")
@pytest.mark.req("issue6.dispatch.absent")
def test_known_but_absent_distribution_raises_actionable_import_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_dispatch.ARCHITECTURES, "pxighost", "pixtreme-arch-pxighost")
    with pytest.raises(
        ArchitectureNotInstalledError, match="how=pip install pixtreme-arch-pxighost"
    ) as info:
        pixtreme.infer.pxighost  # noqa: B018
    assert isinstance(info.value, ImportError)
    assert info.value.distribution == "pixtreme-arch-pxighost"


@pytest.mark.req("issue6.dispatch.broken")
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


@pytest.mark.req("spec.packaging.namespace-root-owned-by-pixtreme")
@pytest.mark.req("issue6.dispatch.namespace")
def test_namespace_root_is_pixtremes() -> None:
    import pixtreme

    source = Path(pixtreme.infer.__file__).parent
    assert not (source.parent / "__init__.py").exists()
    assert pixtreme.__file__ is not None
    assert "pixtreme-infer" not in pixtreme.__file__


@pytest.mark.req("issue6.dispatch.unknown")
def test_verify_architecture_rejects_unknown_names_in_the_error_shape() -> None:
    from pixtreme.infer.verification import verify_architecture

    with pytest.raises(AttributeError, match="has no attribute 'exampel'") as info:
        verify_architecture("exampel")
    assert has_error_shape(str(info.value))
    assert "Did you mean 'example'?" in str(info.value)
