"""Describe the public interface of pixtreme.infer as JSON, or compare it with a snapshot.

Usage:
    python tools/interface_snapshot.py dump [--output FILE]
    python tools/interface_snapshot.py compare SNAPSHOT

``dump`` imports every public module of the pixtreme.infer installed in this interpreter and
writes, for every name in each module's ``__all__``, what an importer depends on: the kind of
object, function signatures (parameter names, kinds, defaults, annotations), dataclass fields,
Protocol members, exception bases and type-alias values. Annotations are compared as text with
module qualifiers removed (``np.ndarray`` and ``numpy.ndarray`` both read ``ndarray``).

``compare`` checks the installed interface against a snapshot: every name the snapshot lists
must be importable from the same module, be listed in its ``__all__`` and have the same
description. Names the installed package adds are allowed. Exit status 0 when compatible,
1 with one line per difference otherwise.

The snapshot of the published 0.15.1 is made with ``dump`` in a virtual environment holding
that wheel (``pip download --no-deps pixtreme-infer==0.15.1``) beside pixtreme; see
tests-integration/test_published_interface.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import importlib
import inspect
import json
import re
import sys
import typing
from pathlib import Path
from typing import Any

PUBLIC_MODULES = (
    "pixtreme.infer",
    "pixtreme.infer.contracts",
    "pixtreme.infer.cuda_graph",
    "pixtreme.infer.dependencies",
    "pixtreme.infer.errors",
    "pixtreme.infer.recipe_identity",
    "pixtreme.infer.verification",
    "pixtreme.infer.verification.comparison",
    "pixtreme.infer.verification.contracts",
    "pixtreme.infer.verification.distribution",
    "pixtreme.infer.verification.measurement",
    "pixtreme.infer.verification.records",
)

_QUALIFIER = re.compile(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+(?=[A-Za-z_])")


def _text(annotation: object) -> str:
    """An annotation as comparable text: no module qualifiers, no spaces, one quote style."""
    if annotation is inspect.Parameter.empty:
        return ""
    if isinstance(annotation, str):
        raw = annotation
    elif isinstance(annotation, type):
        raw = annotation.__qualname__
    else:
        raw = repr(annotation)
    raw = raw.replace('"', "'").replace(" ", "")
    raw = raw.replace("typing.", "").replace("collections.abc.", "")
    return _QUALIFIER.sub("", raw)


def _default(value: object) -> str | None:
    if value is inspect.Parameter.empty or value is dataclasses.MISSING:
        return None
    if isinstance(value, (frozenset, set)):
        return f"{type(value).__name__}({sorted(map(repr, value))})"
    return repr(value)


def _signature(function: Any) -> dict[str, object]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return {"signature": None}
    return {
        "parameters": [
            {
                "name": parameter.name,
                "kind": parameter.kind.name,
                "default": _default(parameter.default),
                "annotation": _text(parameter.annotation),
            }
            for parameter in signature.parameters.values()
        ],
        "returns": _text(signature.return_annotation),
    }


def _members(cls: type) -> dict[str, object]:
    """Public methods and properties defined on the class itself (not inherited from object)."""
    members: dict[str, object] = {}
    for name, value in sorted(vars(cls).items()):
        if name.startswith("_") and name not in ("__call__", "__init__"):
            continue
        if isinstance(value, property):
            members[name] = {"kind": "property", **_signature(value.fget)}
        elif isinstance(value, (staticmethod, classmethod)):
            members[name] = {"kind": type(value).__name__, **_signature(value.__func__)}
        elif inspect.isfunction(value):
            members[name] = {"kind": "method", **_signature(value)}
        elif not callable(value) and not name.startswith("_"):
            members[name] = {"kind": "attribute", "value": _default(value)}
    return members


def _class(cls: type) -> dict[str, object]:
    description: dict[str, object] = {
        "kind": "class",
        "bases": [base.__qualname__ for base in cls.__bases__ if base is not typing.Generic],
        "mro": [klass.__qualname__ for klass in cls.__mro__],
        "exception": issubclass(cls, BaseException),
        "protocol": bool(getattr(cls, "_is_protocol", False)),
    }
    if issubclass(cls, BaseException):
        description["builtin_bases"] = sorted(
            klass.__name__ for klass in cls.__mro__ if klass.__module__ == "builtins"
        )
    if dataclasses.is_dataclass(cls):
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        description["dataclass"] = {
            "frozen": params.frozen,
            "fields": [
                {
                    "name": field.name,
                    "type": _text(field.type),
                    "default": _default(field.default),
                    "default_factory": field.default_factory is not dataclasses.MISSING,
                    "init": field.init,
                    "kw_only": field.kw_only is True,
                }
                for field in dataclasses.fields(cls)
            ],
        }
    if issubclass(cls, enum.Enum):
        description["enum"] = [member.value for member in cls]
    description["members"] = _members(cls)
    return description


def describe(value: object) -> dict[str, object]:
    """The comparable description of one public object."""
    if inspect.ismodule(value):
        return {"kind": "module"}
    if isinstance(value, type):
        return _class(value)
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return {"kind": "function", **_signature(value)}
    if isinstance(value, typing.TypeVar):
        return {"kind": "typevar"}
    return {"kind": "alias", "value": _text(value)}


def dump() -> dict[str, dict[str, object]]:
    """Describe every name in every public module's ``__all__``."""
    snapshot: dict[str, dict[str, object]] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", ())
        snapshot[module_name] = {name: describe(getattr(module, name)) for name in sorted(names)}
    return snapshot


def compare(expected: dict[str, dict[str, Any]]) -> list[str]:
    """Differences between ``expected`` and the installed interface; additions are allowed."""
    problems: list[str] = []
    for module_name, names in expected.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            problems.extend(
                f"{module_name}.{name}: module does not import ({error})" for name in names
            )
            continue
        exported = set(getattr(module, "__all__", ()))
        for name, description in names.items():
            where = f"{module_name}.{name}"
            if not hasattr(module, name):
                problems.append(f"{where}: missing")
                continue
            if name not in exported:
                problems.append(f"{where}: importable but not in __all__")
            difference = _difference(description, describe(getattr(module, name)))
            if difference is not None:
                problems.append(f"{where}: differs: {difference}")
    return problems


def _difference(expected: Any, observed: Any, path: str = "") -> str | None:
    """Where ``observed`` is incompatible with ``expected``, or None.

    A class may add members and bases (the published bases must stay in its MRO, and an
    exception must keep the published builtin bases); everything else must be equal.
    """
    if isinstance(expected, dict) and isinstance(observed, dict):
        if expected.get("kind") == "class" and observed.get("kind") == "class":
            missing = set(expected["bases"]) - set(observed["mro"])
            if missing:
                return f"{path}/bases: published {expected['bases']}, ours lacks {sorted(missing)}"
            lost = set(expected.get("builtin_bases", ())) - set(observed.get("builtin_bases", ()))
            if lost:
                return f"{path}/builtin_bases: ours lacks {sorted(lost)}"
            skip = {"bases", "mro", "builtin_bases", "members"}
            for member, value in expected["members"].items():
                found = _difference(value, observed["members"].get(member), f"{path}/{member}")
                if found is not None:
                    return found
        else:
            skip = set()
        for key in sorted((set(expected) | set(observed)) - skip, key=str):
            found = _difference(expected.get(key), observed.get(key), f"{path}/{key}")
            if found is not None:
                return found
        return None
    if isinstance(expected, list) and isinstance(observed, list) and len(expected) == len(observed):
        for index, (left, right) in enumerate(zip(expected, observed, strict=True)):
            found = _difference(left, right, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if expected == observed:
        return None
    return f"{path or '/'}: published {json.dumps(expected)}, ours {json.dumps(observed)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dump_parser = commands.add_parser("dump", help="describe the installed interface as JSON")
    dump_parser.add_argument("--output", type=Path, help="write here instead of stdout")
    compare_parser = commands.add_parser("compare", help="compare with a snapshot file")
    compare_parser.add_argument("snapshot", type=Path)
    arguments = parser.parse_args(argv)
    if arguments.command == "dump":
        text = json.dumps(dump(), indent=1, sort_keys=True) + "\n"
        if arguments.output is None:
            sys.stdout.write(text)
        else:
            arguments.output.write_text(text, encoding="utf-8")
        return 0
    expected = json.loads(arguments.snapshot.read_text(encoding="utf-8"))
    problems = compare(expected)
    for problem in problems:
        print(problem)
    total = sum(len(names) for names in expected.values())
    print(f"{total - len(problems)} of {total} published names match")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
