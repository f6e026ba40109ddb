"""The TensorRT backend against tensoracle's real API, read from the installed sources.

tensoracle imports TensorRT at module level, so without TensorRT its sources are parsed, not
imported: every ``tensoracle.X`` the backend names must be exported, every call must match the
real signature (positional count, keywords, required parameters), and the cache conditions the
declaration computes must be exactly tensoracle's, less the machine and TensorRT keys.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest
from pixtreme.infer.example import RECURSIVE_FILTER, UPSCALE_X2
from pixtreme.infer.example import _tensorrt_backend as backend
from pixtreme.infer.example._tensorrt_backend import engine_declaration

# Keys tensoracle adds from the machine and TensorRT (tensoracle/_cache.py, _conditions).
MACHINE_KEYS = {"gpu", "os", "architecture", "tensorrt_version"}


# Collected everywhere (the device run collects every file): absent tensoracle skips, with the
# install command, through the root conftest's extras marker.
pytestmark = pytest.mark.extras("tensoracle")


def _tensoracle_sources() -> dict[str, ast.Module]:
    """tensoracle's modules by name, parsed; empty when it is not installed."""
    spec = importlib.util.find_spec("tensoracle")
    if spec is None or not spec.submodule_search_locations:
        return {}
    folder = Path(next(iter(spec.submodule_search_locations)))
    return {path.stem: ast.parse(path.read_text()) for path in folder.glob("*.py")}


SOURCES = _tensoracle_sources()
DEFINITIONS = {
    node.name: node
    for module in SOURCES.values()
    for node in module.body
    if isinstance(node, ast.ClassDef | ast.FunctionDef)
}
EXPORTED = {
    name
    for node in (SOURCES["__init__"].body if "__init__" in SOURCES else [])
    if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
    for name in ast.literal_eval(node.value)
}
BACKEND_TREE = ast.parse(Path(backend.__file__).read_text())


def _tensoracle_path(node: ast.expr) -> tuple[str, ...] | None:
    """("X",) for ``tensoracle.X`` and ("X", "m") for ``tensoracle.X.m``, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    named = isinstance(node, ast.Name) and node.id == "tensoracle"
    return tuple(parts) if named and parts else None


USED_NAMES = sorted(
    {path[0] for node in ast.walk(BACKEND_TREE) if (path := _tensoracle_path(node)) is not None}
)
CALLS = [
    (".".join(path), node)
    for node in ast.walk(BACKEND_TREE)
    if isinstance(node, ast.Call) and (path := _tensoracle_path(node.func)) is not None
]


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    found = [node for node in cls.body if isinstance(node, ast.FunctionDef) and node.name == name]
    assert found, f"tensoracle.{cls.name} has no method {name!r}"
    return found[0]


def _parameters(target: str) -> tuple[list[str], set[str], set[str]]:
    """(positional names, every keyword name, required names) of a tensoracle callable."""
    name, *method = target.split(".")
    node = DEFINITIONS[name]
    if isinstance(node, ast.ClassDef) and not method:
        fields = [s for s in node.body if isinstance(s, ast.AnnAssign)]
        names = [ast.unparse(field.target) for field in fields]
        required = {ast.unparse(f.target) for f in fields if f.value is None}
        return names, set(names), required
    function = _method(node, method[0]) if isinstance(node, ast.ClassDef) else node
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if isinstance(node, ast.ClassDef):
        positional = positional[1:]  # cls or self
    with_default = positional[len(positional) - len(arguments.defaults) :]
    keyword_only = [a.arg for a in arguments.kwonlyargs]
    required = {p for p in positional if p not in with_default} | {
        a for a, default in zip(keyword_only, arguments.kw_defaults, strict=True) if default is None
    }
    return positional, set(positional) | set(keyword_only), required


@pytest.mark.parametrize("name", USED_NAMES)
def test_every_name_the_backend_uses_is_exported(name: str) -> None:
    assert name in EXPORTED
    assert name in DEFINITIONS


@pytest.mark.parametrize(("target", "call"), CALLS, ids=[target for target, _ in CALLS])
def test_every_call_matches_the_real_signature(target: str, call: ast.Call) -> None:
    positional, keywords, required = _parameters(target)
    passed = [kw.arg for kw in call.keywords]
    assert len(call.args) <= len(positional), ast.unparse(call)
    assert set(passed) <= keywords, ast.unparse(call)
    assert required <= set(positional[: len(call.args)]) | set(passed), ast.unparse(call)


def test_the_backend_calls_what_it_relies_on() -> None:
    targets = {target for target, _ in CALLS}
    assert {"open_engine", "EngineBuild", "InputShape.ranged", "EngineIO", "TensorSpec"} <= targets


def test_handle_and_execution_lifecycle() -> None:
    open_engine = DEFINITIONS["open_engine"]
    assert isinstance(open_engine, ast.FunctionDef)
    assert ast.unparse(open_engine.returns) == "EngineHandle"  # type: ignore[arg-type]
    handle = DEFINITIONS["EngineHandle"]
    assert isinstance(handle, ast.ClassDef)
    assert "path" in _parameters("EngineHandle")[0]
    create = _method(handle, "create_execution")
    assert "EngineExecution" in ast.unparse(create.returns)  # type: ignore[arg-type]
    # EngineExecution.enqueue(addresses, *, stream) without a wait, and an idempotent close().
    assert _parameters("EngineExecution.enqueue")[0] == ["addresses"]
    assert _parameters("EngineExecution.enqueue")[2] == {"addresses", "stream"}
    assert _parameters("EngineExecution.close") == ([], set(), set())
    assert "EngineCacheError" in EXPORTED


def _conditions_dict() -> ast.Dict:
    function = DEFINITIONS["_conditions"]
    returns = [node.value for node in ast.walk(function) if isinstance(node, ast.Return)]
    assert len(returns) == 1
    assert isinstance(returns[0], ast.Dict)
    return returns[0]


@pytest.mark.parametrize("spec", [UPSCALE_X2, RECURSIVE_FILTER], ids=lambda spec: spec.name)
def test_cache_conditions_are_tensoracles_less_machine_keys(spec) -> None:  # type: ignore[no-untyped-def]
    conditions = engine_declaration(spec, input_hw=(4, 6)).cache_conditions()
    real = _conditions_dict()
    keys = {ast.literal_eval(key) for key in real.keys if key is not None}
    assert set(conditions) == keys - MACHINE_KEYS
    assert conditions["plugins"] == []  # the example registers no plugin libraries
    inputs = real.values[[ast.literal_eval(k) for k in real.keys if k].index("inputs")]
    assert isinstance(inputs, ast.DictComp)
    assert isinstance(inputs.value, ast.Dict)
    shape_keys = {ast.literal_eval(key) for key in inputs.value.keys if key is not None}
    assert all(set(shape) == shape_keys for shape in conditions["inputs"].values())
    assert set(conditions["builder_settings"]) == set(_parameters("BuilderSettings")[0])
