"""errors: the shared message shape and require_optional."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pixtreme.infer.errors import (
    ContractError,
    InferError,
    OptionalDependencyError,
    RecordError,
    TelemetryUnavailableError,
    format_error,
    require_optional,
)
from pixtreme.infer.verification import has_error_shape


@pytest.mark.req("issue6.error-shape")
def test_format_error_has_the_three_parts_in_order() -> None:
    assert format_error(why="a", what="b", how="c") == "why=a; what=b; how=c"


@pytest.mark.req("issue6.error-shape")
@pytest.mark.parametrize(
    ("kind", "base"),
    [
        (ContractError, ValueError),
        (RecordError, ValueError),
        (TelemetryUnavailableError, RuntimeError),
    ],
    ids=lambda item: item.__name__,
)
def test_errors_subclass_builtins_and_keep_parts(kind: type[InferError], base: type) -> None:
    error = kind(why="w", what="x", how="h")
    assert isinstance(error, base)
    assert (error.why, error.what, error.how) == ("w", "x", "h")
    assert has_error_shape(str(error))


@pytest.mark.req("issue6.require-optional")
def test_require_optional_returns_an_installed_module() -> None:
    assert require_optional("json", extra="none") is sys.modules["json"]


@pytest.mark.req("issue6.require-optional")
@pytest.mark.parametrize("module", ["pxi_not_installed_xyz", "pxi_not_installed_xyz.sub"])
def test_require_optional_names_the_extra_and_command(module: str) -> None:
    with pytest.raises(
        OptionalDependencyError, match=r"pip install 'pixtreme-infer\[ort\]'"
    ) as info:
        require_optional(module, extra="ort")
    assert isinstance(info.value, ImportError)
    assert (info.value.module, info.value.extra) == (module, "ort")
    assert has_error_shape(str(info.value))


@pytest.mark.req("issue6.require-optional")
def test_require_optional_missing_submodule_of_installed_package() -> None:
    with pytest.raises(OptionalDependencyError, match=r"json\.no_such_part"):
        require_optional("json.no_such_part", extra="ort")


@pytest.mark.req("issue6.require-optional")
def test_failures_inside_an_installed_module_pass_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pxi_broken_optional.py").write_text("import pxi_missing_inner_dependency\n")
    (tmp_path / "pxi_raising_optional.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as info:
        require_optional("pxi_broken_optional", extra="ort")
    assert not isinstance(info.value, OptionalDependencyError)
    assert info.value.name == "pxi_missing_inner_dependency"
    with pytest.raises(RuntimeError, match="boom at import"):
        require_optional("pxi_raising_optional", extra="ort")
    for name in ("pxi_broken_optional", "pxi_raising_optional"):
        sys.modules.pop(name, None)
