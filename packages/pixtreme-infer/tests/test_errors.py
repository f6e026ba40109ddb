"""errors and dependencies: one message shape, and optional modules named by their extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pixtreme.infer.dependencies import require_optional
from pixtreme.infer.errors import (
    ArchitectureNotInstalledError,
    ContractError,
    EvidenceUnavailable,
    InferError,
    OptionalDependencyError,
    RecordError,
    TelemetryUnavailableError,
    actionable_error,
)


def test_actionable_error_shape() -> None:
    assert actionable_error(why="a", what="b", how="c") == "why=a; what=b; how=c"


@pytest.mark.parametrize(
    ("error_type", "builtin"),
    [
        (ContractError, ValueError),
        (RecordError, ValueError),
        (TelemetryUnavailableError, RuntimeError),
        (EvidenceUnavailable, RuntimeError),
    ],
    ids=lambda value: value.__name__,
)
def test_errors_subclass_builtins_and_keep_their_parts(
    error_type: type[InferError], builtin: type[Exception]
) -> None:
    error = error_type(why="w", what="x", how="h")
    assert isinstance(error, builtin)
    assert (error.why, error.what, error.how) == ("w", "x", "h")
    assert str(error) == "why=w; what=x; how=h"


def test_architecture_error_names_its_distribution() -> None:
    error = ArchitectureNotInstalledError(why="w", what="x", how="h", distribution="d")
    assert isinstance(error, ImportError)
    assert error.distribution == "d"


def test_require_optional_returns_the_module() -> None:
    assert require_optional("json", extra="unused") is sys.modules["json"]


@pytest.mark.parametrize("module", ["pxi_absent_module", "pxi_absent_module.child"])
def test_require_optional_names_the_extra(module: str) -> None:
    with pytest.raises(OptionalDependencyError) as info:
        require_optional(module, extra="ort")
    error = info.value
    assert isinstance(error, ImportError)
    assert (error.module, error.extra) == (module, "ort")
    assert "how=install it with python -m pip install 'pixtreme-infer[ort]' and retry" in str(error)
    assert repr(module) in str(error)


def test_require_optional_passes_a_broken_install_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pxi_broken_optional.py").write_text("import pxi_missing_inner_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as info:
        require_optional("pxi_broken_optional", extra="ort")
    assert not isinstance(info.value, OptionalDependencyError)
    assert info.value.name == "pxi_missing_inner_dependency"
    sys.modules.pop("pxi_broken_optional", None)


def _every_error() -> list[InferError]:
    from pixtreme.infer._cuda_graph._context import CudaGraphStateError
    from pixtreme.infer.onnx import (
        OnnxContractError,
        OnnxExecutionError,
        OnnxReferenceMismatchError,
    )
    from pixtreme.infer.recipe_identity import RecipeIdentityError

    parts = {"why": "w", "what": "x", "how": "h"}
    plain: list[type[InferError]] = [
        ContractError,
        RecordError,
        TelemetryUnavailableError,
        EvidenceUnavailable,
        OnnxContractError,
        OnnxExecutionError,
        OnnxReferenceMismatchError,
        CudaGraphStateError,
    ]
    return [
        *(cls(**parts) for cls in plain),
        OptionalDependencyError(**parts, module="onnx", extra="ort"),
        ArchitectureNotInstalledError(**parts, distribution="pixtreme-infer-span"),
        RecipeIdentityError(path="recipes[0]", detail="version must be positive"),
    ]


@pytest.mark.parametrize("error", _every_error(), ids=lambda error: type(error).__name__)
def test_errors_survive_pickling(error: InferError) -> None:
    """An error raised in a worker process reaches its parent as itself (the keyword-only
    constructors cannot be called with the message, which is how exceptions pickle)."""
    import copy
    import pickle

    for restored in (pickle.loads(pickle.dumps(error)), copy.copy(error)):
        assert type(restored) is type(error)
        assert str(restored) == str(error)
        assert restored.args == error.args
        assert vars(restored) == vars(error)
