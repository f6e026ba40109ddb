"""Read built wheels and sdists without importing them, and check a distribution policy."""

from __future__ import annotations

import configparser
import re
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from email.message import Message
from email.parser import HeaderParser
from pathlib import Path, PurePosixPath
from typing import Literal

from pixtreme.infer import _validate as v
from pixtreme.infer.errors import RecordError
from pixtreme.infer.verification._records import portable_path_problem
from pixtreme.infer.verification._results import (
    CheckResult,
    VerificationFinding,
    VerificationReport,
)

_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def normalize_name(name: str) -> str:
    """PEP 503 normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    """The normalized project name at the start of a Requires-Dist string."""
    match = _REQUIREMENT_NAME.match(requirement)
    return normalize_name(match.group(1)) if match else ""


@dataclass(frozen=True, slots=True, kw_only=True)
class DistributionFacts:
    """What a built distribution declares and contains (paths relative to its root)."""

    kind: Literal["wheel", "sdist"]
    name: str
    version: str
    requires_dist: tuple[str, ...]
    extras: tuple[str, ...]
    console_scripts: tuple[tuple[str, str], ...]
    files: tuple[str, ...]

    def __post_init__(self) -> None:
        owner = "DistributionFacts"
        v.one_of(owner, "kind", self.kind, ("wheel", "sdist"))
        v.non_empty_str(owner, "name", self.name)
        v.non_empty_str(owner, "version", self.version)
        v.str_tuple(owner, "requires_dist", self.requires_dist)
        v.str_tuple(owner, "extras", self.extras)
        scripts = self.console_scripts
        if not isinstance(scripts, tuple) or not all(
            isinstance(item, tuple)
            and len(item) == 2
            and all(isinstance(part, str) and part.strip() for part in item)
            for item in scripts
        ):
            v.fail(
                owner,
                "console_scripts",
                scripts,
                expected="a tuple of (name, 'module:function') string pairs",
                how="read them from the [console_scripts] entry points",
            )
        v.str_tuple(owner, "files", self.files)
        for name in self.files:
            problem = portable_path_problem(name)
            if problem is not None:
                v.fail(
                    owner,
                    "files",
                    name,
                    expected=f"portable relative POSIX paths (this one {problem})",
                    how="list archive members relative to the distribution root with '/' "
                    "separators",
                )


def _bad_archive(path: Path, detail: str) -> RecordError:
    return RecordError(
        why="a distribution is inspected from its archive metadata",
        what=f"{path.name}: {detail}",
        how="build it again (uv build) and pass the .whl or .tar.gz it produced",
    )


def _metadata(text: str) -> Message:
    return HeaderParser().parsestr(text)


def _facts(
    kind: Literal["wheel", "sdist"],
    meta: Message,
    scripts: tuple[tuple[str, str], ...],
    files: tuple[str, ...],
    path: Path,
) -> DistributionFacts:
    for field in ("Name", "Version"):
        if not str(meta.get(field, "")).strip():
            raise _bad_archive(path, f"the core metadata has no {field} field")
    unsafe = sorted(name for name in files if portable_path_problem(name) is not None)
    if unsafe:
        raise _bad_archive(path, f"member paths that are not portable relative paths: {unsafe}")
    return DistributionFacts(
        kind=kind,
        name=str(meta.get("Name", "")),
        version=str(meta.get("Version", "")),
        requires_dist=tuple(str(item) for item in meta.get_all("Requires-Dist") or ()),
        extras=tuple(str(item) for item in meta.get_all("Provides-Extra") or ()),
        console_scripts=scripts,
        files=tuple(sorted(files)),
    )


def inspect_wheel(path: str | Path) -> DistributionFacts:
    """Read a wheel's METADATA, entry points and file list (nothing is imported)."""
    file = Path(path)
    try:
        with zipfile.ZipFile(file) as archive:
            names = tuple(name for name in archive.namelist() if not name.endswith("/"))
            meta_names = [n for n in names if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
            if len(meta_names) != 1:
                raise _bad_archive(file, f"expected one *.dist-info/METADATA, found {meta_names}")
            meta = _metadata(archive.read(meta_names[0]).decode("utf-8"))
            entry_name = meta_names[0].replace("METADATA", "entry_points.txt")
            scripts: tuple[tuple[str, str], ...] = ()
            if entry_name in names:
                parser = configparser.ConfigParser(interpolation=None)
                parser.optionxform = str  # type: ignore[assignment,method-assign]
                parser.read_string(archive.read(entry_name).decode("utf-8"))
                if parser.has_section("console_scripts"):
                    scripts = tuple(sorted(parser.items("console_scripts")))
    except (OSError, zipfile.BadZipFile) as error:
        raise _bad_archive(file, f"{type(error).__name__}: {error}") from error
    return _facts("wheel", meta, scripts, names, file)


def inspect_sdist(path: str | Path) -> DistributionFacts:
    """Read an sdist's PKG-INFO, [project.scripts] and file list (nothing is built)."""
    file = Path(path)
    try:
        with tarfile.open(file, "r:*") as archive:
            members = [member for member in archive.getmembers() if member.isfile()]
            tops = {PurePosixPath(member.name).parts[0] for member in members}
            if len(tops) != 1:
                raise _bad_archive(file, f"expected one top-level folder, found {sorted(tops)}")
            top = tops.pop()
            relative = {
                PurePosixPath(*PurePosixPath(m.name).parts[1:]).as_posix(): m for m in members
            }
            if "PKG-INFO" not in relative:
                raise _bad_archive(file, "no PKG-INFO at the top level")

            def read(name: str) -> str:
                handle = archive.extractfile(relative[name])
                if handle is None:
                    raise _bad_archive(file, f"cannot read {top}/{name}")
                return handle.read().decode("utf-8")

            meta = _metadata(read("PKG-INFO"))
            scripts: tuple[tuple[str, str], ...] = ()
            if "pyproject.toml" in relative:
                project = tomllib.loads(read("pyproject.toml")).get("project", {})
                scripts = tuple(sorted(project.get("scripts", {}).items()))
    except (OSError, tarfile.TarError, tomllib.TOMLDecodeError) as error:
        raise _bad_archive(file, f"{type(error).__name__}: {error}") from error
    return _facts("sdist", meta, scripts, tuple(relative), file)


@dataclass(frozen=True, slots=True, kw_only=True)
class DistributionPolicy:
    """What a distribution may ship and require.

    ``allowed_prefixes`` apply to wheel files outside ``*.dist-info/``; ``forbidden_files``
    apply to every archive path; requirement names are compared PEP 503 normalized.
    """

    name: str
    allowed_prefixes: tuple[str, ...]
    forbidden_files: tuple[str, ...] = ()
    forbidden_requirements: tuple[str, ...] = ()
    required_console_scripts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        v.non_empty_str("DistributionPolicy", "name", self.name)
        if not self.allowed_prefixes or not all(
            isinstance(prefix, str) and prefix.endswith("/") for prefix in self.allowed_prefixes
        ):
            v.fail(
                "DistributionPolicy",
                "allowed_prefixes",
                self.allowed_prefixes,
                expected="a non-empty tuple of folder prefixes ending in '/'",
                how="pass allowed_prefixes=('pixtreme/infer/',)",
            )
        for field in ("forbidden_files", "forbidden_requirements", "required_console_scripts"):
            v.str_tuple("DistributionPolicy", field, getattr(self, field))


def core_policy() -> DistributionPolicy:
    """The policy for pixtreme-infer itself."""
    return DistributionPolicy(
        name="pixtreme-infer",
        allowed_prefixes=("pixtreme/infer/",),
        forbidden_files=("pixtreme/__init__.py",),
        forbidden_requirements=("tensorrt", "tensorrt-cu13", "tensoracle", "torch"),
        required_console_scripts=("pixtreme-infer",),
    )


def architecture_policy(architecture: str, distribution: str) -> DistributionPolicy:
    """The policy for an architecture distribution: only pixtreme/infer/<architecture>/."""
    v.identifier("architecture_policy", "architecture", architecture)
    return DistributionPolicy(
        name=distribution,
        allowed_prefixes=(f"pixtreme/infer/{architecture}/",),
        forbidden_files=("pixtreme/__init__.py", "pixtreme/infer/__init__.py"),
    )


def check_distribution_policy(
    facts: DistributionFacts, policy: DistributionPolicy
) -> VerificationReport:
    """Check name, file layout, requirements and console scripts against ``policy``."""
    path = f"{facts.kind}:{facts.name}"
    name_findings: tuple[VerificationFinding, ...] = ()
    if normalize_name(facts.name) != normalize_name(policy.name):
        name_findings = (
            VerificationFinding(
                code="name-mismatch", path=path, observed=facts.name, expected=policy.name
            ),
        )
    forbidden = tuple(
        VerificationFinding(code="forbidden-file", path=name, observed=name, expected="absent")
        for name in facts.files
        if any(
            name == item or (facts.kind == "sdist" and name.endswith(f"/{item}"))
            for item in policy.forbidden_files
        )
    )
    outside: tuple[VerificationFinding, ...] = ()
    if facts.kind == "wheel":
        outside = tuple(
            VerificationFinding(
                code="file-outside-subtree",
                path=name,
                observed=name,
                expected=f"under {' or '.join(policy.allowed_prefixes)}",
            )
            for name in facts.files
            if ".dist-info/" not in name and not name.startswith(policy.allowed_prefixes)
        )
    banned = {normalize_name(item) for item in policy.forbidden_requirements}
    requirements = tuple(
        VerificationFinding(
            code="forbidden-requirement", path=f"{path}.requires_dist", observed=item
        )
        for item in facts.requires_dist
        if requirement_name(item) in banned
    )
    declared = {name for name, _ in facts.console_scripts}
    scripts = tuple(
        VerificationFinding(
            code="console-script-missing",
            path=f"{path}.console_scripts",
            observed=sorted(declared),
            expected=name,
        )
        for name in policy.required_console_scripts
        if name not in declared
    )
    return VerificationReport(
        scope=path,
        checks=(
            CheckResult.from_findings("distribution-name", name_findings),
            CheckResult.from_findings("distribution-files", forbidden + outside),
            CheckResult.from_findings("distribution-requirements", requirements),
            CheckResult.from_findings("distribution-console-scripts", scripts),
        ),
    )
