"""A static check that architecture code uses only the core's public contract.

Each explicit ``.py`` file is parsed (never imported) and every reference into
``pixtreme.infer`` is classified against the installed core's sources: a private segment is
the failure ``core-private``; a name outside the public ``__all__`` of a core module, or a
reference the deliberately small AST subset cannot follow (star, relative beyond the root,
dynamic imports, computed references, reassigned aliases, unparsable files), is reported as
``unverified-...``. References inside the scanned package itself are not checked.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pixtreme.infer.verification._results import (
    CheckResult,
    CheckStatus,
    VerificationExecutionError,
    VerificationFinding,
    VerificationInputError,
    VerificationReport,
    _finding,
)

_CORE = "pixtreme.infer"
_CORE_DIR = Path(__file__).resolve().parents[1]
_SCOPE = "public-contract-references"
_EXPECTED = "core public contract"
_IMPORTER = "importlib.import_module"
_DETAIL = {
    "private": "a private pixtreme.infer name; it may change without notice",
    "unknown": "not a public name of the installed pixtreme.infer",
    "relative": "a relative import that climbs above the scanned sources",
    "star-import": "a star import hides which names it binds",
    "dynamic-import": "a dynamic import or lookup of a computed name cannot be followed",
    "alias-reassigned": "the imported name is reassigned before this use",
    "computed-reference": "a subscripted pixtreme.infer reference cannot be followed",
}


def _report(name: str, findings: Sequence[VerificationFinding]) -> VerificationReport:
    """One check named ``name``: failed on any hard finding, unverified on only soft ones."""
    status: CheckStatus = "passed"
    if findings:
        soft = all(finding.code.startswith("unverified-") for finding in findings)
        status = "unverified" if soft else "failed"
    return VerificationReport(_SCOPE, (CheckResult(name, status, tuple(findings)),))


def _all_literal(tree: ast.Module) -> ast.expr | None:
    for node in tree.body:
        value: ast.expr | None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
            return value
    return None


class _CoreIndex:
    """What the installed core's sources say: which names are modules, what each exports."""

    def __init__(self) -> None:
        self._exports: dict[str, frozenset[str] | None] = {}

    @staticmethod
    def module_file(module: str) -> Path | None:
        if module == _CORE:
            return _CORE_DIR / "__init__.py"
        if not module.startswith(f"{_CORE}."):
            return None
        base = _CORE_DIR.joinpath(*module.split(".")[2:])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def exports(self, module: str) -> frozenset[str] | None:
        """The names of a literal ``__all__`` (list or tuple, starred submodule lists allowed)."""
        if module in self._exports:
            return self._exports[module]
        self._exports[module] = None  # also breaks cycles between star-exporting modules
        source = self.module_file(module)
        if source is None:
            return None
        try:
            tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
        except (OSError, UnicodeError, SyntaxError, ValueError):
            return None
        value = _all_literal(tree)
        if not isinstance(value, ast.List | ast.Tuple):
            return None
        names: set[str] = set()
        for item in value.elts:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                names.add(item.value)
                continue
            star = item.value if isinstance(item, ast.Starred) else None
            if not (
                isinstance(star, ast.Attribute)
                and star.attr == "__all__"
                and isinstance(star.value, ast.Name)
            ):
                return None
            child = self.exports(f"{module}.{star.value.id}")
            if child is None:
                return None
            names |= child
        self._exports[module] = frozenset(names)
        return self._exports[module]

    def status(self, reference: str, own: str) -> str | None:
        """None (not a core reference, or inside ``own``), "passed", "private" or "unknown"."""
        if reference == own or reference.startswith(f"{own}."):
            return None
        if reference == _CORE:
            return "passed"
        if not reference.startswith(f"{_CORE}."):
            return None
        tail = reference.split(".")[2:]
        if any(segment.startswith("_") for segment in tail):
            return "private"
        module, depth = _CORE, 0
        while depth < len(tail) and self.module_file(f"{module}.{tail[depth]}") is not None:
            module, depth = f"{module}.{tail[depth]}", depth + 1
        exported = self.exports(module)
        if depth == len(tail):
            return "passed" if exported is not None else "unknown"
        if exported is None or tail[depth] not in exported:
            return "private" if depth and exported is not None else "unknown"
        # A public attribute of an exported public object is part of that object's interface.
        return "passed"


def _dotted(node: ast.expr) -> tuple[str, str] | None:
    """(root name, attribute chain) of ``a.b.c``, or None when the root is not a plain name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return node.id, ".".join(reversed(parts))
    return None


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _absolute(package: str, level: int, name: str | None) -> str | None:
    parts = package.split(".") if package else []
    if level > len(parts):
        return None
    base = parts[: len(parts) - level + 1]
    return ".".join([*base, *(name.split(".") if name else [])])


class _FileScan:
    """The findings of one parsed file."""

    def __init__(self, tree: ast.Module, relative: str, package: str, own: str, core: _CoreIndex):
        self._tree, self._relative, self._package = tree, relative, package
        self._own, self._core = own, core
        self._aliases: dict[str, tuple[str, int]] = {}
        self._found: list[tuple[int, int, VerificationFinding]] = []

    def _record(self, node: ast.AST, reference: str, status: str) -> None:
        line, column = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        code = "core-private" if status == "private" else f"unverified-{status}"
        finding = _finding(code, f"{self._relative}:{line}", reference, _EXPECTED, _DETAIL[status])
        self._found.append((line, column, finding))

    def _check(self, node: ast.AST, reference: str) -> None:
        status = self._core.status(reference, self._own)
        if status not in (None, "passed"):
            self._record(node, reference, status)

    def _imports(self) -> None:
        for node in ast.walk(self._tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self._check(node, alias.name)
                    if alias.asname:
                        self._aliases[alias.asname] = (alias.name, node.lineno)
                    else:
                        top = alias.name.split(".")[0]
                        self._aliases[top] = (top, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                parent = (
                    _absolute(self._package, node.level, node.module) if node.level else node.module
                )
                if parent is None:
                    self._record(node, "." * node.level + (node.module or ""), "relative")
                    continue
                for alias in node.names:
                    if alias.name == "*":  # hides which names (and aliases) it binds
                        self._record(node, f"{parent}.*", "star-import")
                        continue
                    reference = f"{parent}.{alias.name}"
                    self._check(node, reference)
                    self._aliases[alias.asname or alias.name] = (reference, node.lineno)

    def _is_importer(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id == "__import__" or self._aliases.get(node.id, ("", 0))[0] == _IMPORTER
        chain = _dotted(node) if isinstance(node, ast.Attribute) else None
        if chain is None:
            return False
        root = self._aliases.get(chain[0], (chain[0], 0))[0]
        return f"{root}.{chain[1]}" == _IMPORTER

    def _is_core(self, node: ast.expr) -> bool:
        text = ast.unparse(node)
        root = text.split(".", 1)[0]
        target = self._aliases.get(root, ("", 0))[0]
        return text == _CORE or text.startswith(f"{_CORE}.") or target.startswith(_CORE)

    def _uses(self) -> None:
        rebound: dict[str, list[int]] = {}
        parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self._tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Store | ast.Del)
                and node.id in self._aliases
            ):
                rebound.setdefault(node.id, []).append(node.lineno)
        for node in ast.walk(self._tree):
            parent = parents.get(node)
            if (
                isinstance(node, ast.Name | ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and self._is_importer(node)
                and not (isinstance(parent, ast.Call) and parent.func is node)
            ):
                self._record(node, ast.unparse(node), "dynamic-import")
            if isinstance(node, ast.Attribute):
                self._attribute(node, parent, rebound)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Subscript):
                self._subscript(node)

    def _reference(self, node: ast.expr) -> str | None:
        """The dotted name ``node`` stands for through the imports, or None."""
        chain = (node.id, "") if isinstance(node, ast.Name) else _dotted(node)
        if chain is None or chain[0] not in self._aliases:
            return None
        target = self._aliases[chain[0]][0]
        return f"{target}.{chain[1]}" if chain[1] else target

    def _call(self, node: ast.Call) -> None:
        """Dynamic imports and getattr lookups: judged when their target is a literal."""
        if self._is_importer(node.func):
            target = _literal(node.args[0]) if node.args else None
            if target is None:
                self._record(node, ast.unparse(node), "dynamic-import")
            else:
                self._check(node, target)
            return
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and node.args
            and self._is_core(node.args[0])
        ):
            base = self._reference(node.args[0])
            name = _literal(node.args[1]) if len(node.args) > 1 else None
            if base is None or name is None:
                self._record(node, ast.unparse(node), "dynamic-import")
            else:
                self._check(node, f"{base}.{name}")

    def _subscript(self, node: ast.Subscript) -> None:
        """A subscript of a core name other than a public one (``Generic[...]`` passes)."""
        if not isinstance(node.value, ast.Name | ast.Attribute) or not self._is_core(node.value):
            return
        reference = self._reference(node.value)
        status = None if reference is None else self._core.status(reference, self._own)
        if reference is None or status not in (None, "passed"):
            self._record(node, ast.unparse(node), "computed-reference")

    def _attribute(
        self, node: ast.Attribute, parent: ast.AST | None, rebound: Mapping[str, list[int]]
    ) -> None:
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return  # only the whole chain a.b.c is judged, not its prefixes
        chain = _dotted(node)
        if chain is None or chain[0] not in self._aliases:
            return
        reference, imported_at = self._aliases[chain[0]]
        if node.lineno < imported_at:
            return
        full = f"{reference}.{chain[1]}"
        reassigned = any(imported_at < line <= node.lineno for line in rebound.get(chain[0], ()))
        if reassigned and self._core.status(full, self._own) is not None:
            self._record(node, full, "alias-reassigned")
        elif not reassigned:
            self._check(node, full)

    def findings(self) -> list[VerificationFinding]:
        self._imports()
        self._uses()
        return [finding for _, _, finding in sorted(self._found, key=lambda item: item[:2])]


def _scan(sources: Mapping[str, Path], package_root: str) -> VerificationReport:
    """Scan ``sources`` (relative POSIX path under the source root -> file) for ``package_root``."""
    if not sources:
        finding = _finding(
            "unverified-empty-paths",
            package_root,
            (),
            "Python source paths",
            "no source files were supplied",
        )
        return _report(package_root, (finding,))
    core = _CoreIndex()
    findings: list[VerificationFinding] = []
    for relative, source in sorted(sources.items()):
        parts = Path(relative).with_suffix("").parts
        if not parts or not all(part.isidentifier() for part in parts):
            findings.append(
                _finding(
                    "unverified-module-name",
                    f"{relative}:1",
                    relative,
                    package_root,
                    "the file's module name cannot be derived from its path",
                )
            )
            continue
        is_package = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if is_package else parts)
        package = module if is_package else module.rpartition(".")[0]
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeError) as error:
            raise VerificationExecutionError(
                "scanner-read",
                why="every listed source file is read",
                what=f"{relative}: {type(error).__name__}: {error}",
                how="list readable UTF-8 Python files",
            ) from error
        try:
            tree = ast.parse(text, filename=relative)
        except (SyntaxError, ValueError) as error:
            line = getattr(error, "lineno", None) or 1
            findings.append(
                _finding(
                    "unverified-parse",
                    f"{relative}:{line}",
                    getattr(error, "text", None),
                    "valid Python",
                    "the file does not parse, so its references are unknown",
                )
            )
            continue
        findings.extend(_FileScan(tree, relative, package, package_root, core).findings())
    return _report(package_root, findings)


def _python_files(directory: Path) -> Iterable[Path]:
    return sorted(
        path
        for path in directory.rglob("*.py")
        if "__pycache__" not in path.parts and path.is_file()
    )


def scan_public_contract_references(
    paths: Sequence[str | os.PathLike[str]],
    /,
    *,
    source_root: str | os.PathLike[str],
    package_root: str,
) -> VerificationReport:
    """Check explicit Python files of ``package_root`` (under ``source_root``) statically.

    Returns one check named ``package_root`` in scope ``public-contract-references``: failed
    on a private core reference, unverified when some reference cannot be followed or no file
    was given, passed otherwise.
    """
    segments = package_root.split(".") if isinstance(package_root, str) else []
    if not segments or not all(segment.isidentifier() for segment in segments):
        raise VerificationInputError(
            "scanner-package",
            why="package_root names the scanned package",
            what=f"package_root={package_root!r}",
            how="pass a dotted Python package name such as 'pixtreme.infer.example'",
        )
    root = Path(source_root).resolve()
    if not root.joinpath(*segments).is_dir():
        raise VerificationInputError(
            "scanner-package",
            why="the scanned package is a folder under source_root",
            what=f"{root.joinpath(*segments)} is not a directory",
            how="pass the folder that holds the top-level package as source_root",
        )
    sources: dict[str, Path] = {}
    for raw in paths:
        candidate = Path(raw)
        resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
        try:
            relative = resolved.relative_to(root).as_posix()
        except ValueError as error:
            raise VerificationInputError(
                "scanner-path",
                why="scanned files lie under source_root",
                what=f"{os.fspath(raw)!r} resolves outside {str(root)!r}",
                how="list files of the package only",
            ) from error
        if resolved.suffix != ".py" or not resolved.is_file():
            raise VerificationInputError(
                "scanner-path",
                why="the scanner reads explicit Python files",
                what=f"{os.fspath(raw)!r} is not a regular .py file",
                how="list the package's .py files",
            )
        sources[relative] = resolved
    return _scan(sources, package_root)
