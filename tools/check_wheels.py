"""Check every built wheel and sdist of this workspace against its distribution policy.

Reads the archives without importing or installing them and checks, per distribution:

- the file list: each wheel ships only its own import subtree (pixtreme-infer only
  ``pixtreme/infer/**``; an architecture wheel only ``pixtreme/infer/<arch>/**``; never the
  namespace roots it does not own), and every source file under ``src/`` is in the wheel;
- the metadata: name, a version shared by the wheel and sdist, Requires-Python, the license,
  the declared dependencies and extras, and dependencies that must never appear (pixtreme-infer
  must not depend on TensorRT, tensoracle or torch);
- the sdist: pyproject.toml, README, LICENSE and the sources are present.

Usage: python tools/check_wheels.py DIST_DIR [--expect-version DIST=VERSION ...]
Exits 1 and lists every violation when any archive breaks its policy.
"""

from __future__ import annotations

import argparse
import re
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field
from email.message import Message
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """What one distribution's archives must and must not contain."""

    name: str
    source_dir: str
    package_prefix: str
    required_files: tuple[str, ...]
    forbidden_files: tuple[str, ...] = ()
    forbidden_prefixes: tuple[str, ...] = ()
    required_dependencies: tuple[str, ...] = ()
    forbidden_dependencies: tuple[str, ...] = ()
    required_extras: tuple[str, ...] = ()
    console_scripts: tuple[str, ...] = field(default=())


POLICIES = {
    policy.name: policy
    for policy in (
        Policy(
            name="pillow-gpu",
            source_dir="packages/pillow-gpu/src",
            package_prefix="pillow_gpu/",
            required_files=("pillow_gpu/__init__.py", "pillow_gpu/py.typed"),
            required_dependencies=("pillow", "numpy", "wgpu"),
            required_extras=("bench",),
            console_scripts=("pillow-gpu",),
        ),
        Policy(
            name="pixtreme-infer",
            source_dir="packages/pixtreme-infer/src",
            package_prefix="pixtreme/infer/",
            required_files=("pixtreme/infer/__init__.py", "pixtreme/infer/py.typed"),
            forbidden_files=("pixtreme/__init__.py",),
            forbidden_prefixes=("pixtreme/infer/example/",),
            required_dependencies=("pixtreme",),
            forbidden_dependencies=(
                "tensorrt",
                "tensorrt-cu12",
                "tensorrt-cu13",
                "tensoracle",
                "torch",
            ),
            required_extras=("ort", "verify"),
            console_scripts=("pixtreme-infer",),
        ),
        Policy(
            name="pixtreme-arch-example",
            source_dir="packages/pixtreme-arch-example/src",
            package_prefix="pixtreme/infer/example/",
            required_files=("pixtreme/infer/example/__init__.py",),
            forbidden_files=("pixtreme/__init__.py", "pixtreme/infer/__init__.py"),
            required_dependencies=("pixtreme-infer", "tensoracle"),
            forbidden_dependencies=("torch",),
        ),
    )
}

_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    match = _REQUIREMENT_NAME.match(requirement)
    return _normalize(match.group(1)) if match else requirement


def _base_requirements(metadata: Message) -> set[str]:
    names = set()
    for requirement in metadata.get_all("Requires-Dist") or []:
        if "extra ==" not in requirement:
            names.add(_requirement_name(requirement))
    return names


def _all_requirements(metadata: Message) -> set[str]:
    return {_requirement_name(r) for r in metadata.get_all("Requires-Dist") or []}


def _source_files(policy: Policy) -> set[str]:
    base = ROOT / policy.source_dir
    files = set()
    for path in (base / policy.package_prefix).rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files.add(path.relative_to(base).as_posix())
    return files


def check_wheel(path: Path, policy: Policy) -> tuple[list[str], str]:
    """Return the violations found in one wheel and its version."""
    problems: list[str] = []
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if not n.endswith("/")]
        dist_info = [n for n in names if ".dist-info/" in n.split("/", 1)[0] + "/"]
        metadata_name = next((n for n in dist_info if n.endswith(".dist-info/METADATA")), None)
        if metadata_name is None:
            return [f"{path.name}: no .dist-info/METADATA"], ""
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
        entry_points = next((n for n in dist_info if n.endswith("entry_points.txt")), None)
        entry_text = archive.read(entry_points).decode() if entry_points else ""
    payload = [n for n in names if n not in dist_info]
    for name in payload:
        if not name.startswith(policy.package_prefix):
            problems.append(f"{path.name}: ships {name!r} outside {policy.package_prefix!r}")
        if name in policy.forbidden_files:
            problems.append(f"{path.name}: ships {name!r}, which another distribution owns")
        if name.startswith(policy.forbidden_prefixes):
            problems.append(f"{path.name}: ships {name!r}, which belongs to another distribution")
    for required in policy.required_files:
        if required not in payload:
            problems.append(f"{path.name}: missing required file {required!r}")
    missing_sources = _source_files(policy) - set(payload)
    for name in sorted(missing_sources):
        problems.append(f"{path.name}: source file {name!r} is not in the wheel")
    if _normalize(metadata.get("Name", "")) != policy.name:
        problems.append(f"{path.name}: metadata Name is {metadata.get('Name')!r}")
    requires_python = [s.strip() for s in metadata.get("Requires-Python", "").split(",")]
    if ">=3.12" not in requires_python:
        problems.append(f"{path.name}: Requires-Python is {metadata.get('Requires-Python')!r}")
    if metadata.get("License-Expression") != "MIT":
        problems.append(
            f"{path.name}: License-Expression is {metadata.get('License-Expression')!r}"
        )
    if not any(n.endswith("/licenses/LICENSE") for n in dist_info):
        problems.append(f"{path.name}: no LICENSE under .dist-info/licenses/")
    base = _base_requirements(metadata)
    for dependency in policy.required_dependencies:
        if dependency not in base:
            problems.append(f"{path.name}: does not depend on {dependency!r} (has {sorted(base)})")
    everything = _all_requirements(metadata)
    for dependency in policy.forbidden_dependencies:
        if dependency in everything:
            problems.append(f"{path.name}: must not depend on {dependency!r}")
    extras = set(metadata.get_all("Provides-Extra") or [])
    for extra in policy.required_extras:
        if extra not in extras:
            problems.append(f"{path.name}: missing extra {extra!r} (has {sorted(extras)})")
    for script in policy.console_scripts:
        if f"{script} =" not in entry_text:
            problems.append(f"{path.name}: missing console script {script!r}")
    return problems, metadata.get("Version", "")


def check_sdist(path: Path, policy: Policy) -> tuple[list[str], str]:
    """Return the violations found in one sdist and its version."""
    problems: list[str] = []
    with tarfile.open(path) as archive:
        members = [m.name for m in archive.getmembers() if m.isfile()]
        top = members[0].split("/", 1)[0] if members else ""
        relative = {m.split("/", 1)[1] for m in members if "/" in m}
        pkg_info = archive.extractfile(f"{top}/PKG-INFO")
        metadata = Parser().parsestr(pkg_info.read().decode()) if pkg_info else Message()
    for required in ("pyproject.toml", "README.md", "LICENSE", "PKG-INFO"):
        if required not in relative:
            problems.append(f"{path.name}: missing {required!r}")
    src_prefix = "src/" + policy.package_prefix
    if not any(name.startswith(src_prefix) for name in relative):
        problems.append(f"{path.name}: no sources under {src_prefix!r}")
    for name in relative:
        if name.startswith("src/") and not name.startswith(src_prefix):
            problems.append(f"{path.name}: ships {name!r} outside {src_prefix!r}")
    return problems, metadata.get("Version", "")


def _distribution_of(archive: Path) -> str | None:
    stem = archive.name.split("-")
    for length in range(len(stem), 0, -1):
        candidate = _normalize("-".join(stem[:length]))
        if candidate in POLICIES:
            return candidate
    return None


def check_directory(directory: Path, expected: dict[str, str]) -> list[str]:
    """Check every archive in a directory; every distribution must have a wheel."""
    problems: list[str] = []
    versions: dict[str, set[str]] = {}
    seen_wheels: set[str] = set()
    archives = sorted([*directory.glob("*.whl"), *directory.glob("*.tar.gz")])
    if not archives:
        return [f"no wheels or sdists in {directory}"]
    for archive in archives:
        name = _distribution_of(archive)
        if name is None:
            problems.append(f"{archive.name}: not a distribution of this workspace")
            continue
        policy = POLICIES[name]
        if archive.suffix == ".whl":
            seen_wheels.add(name)
            found, version = check_wheel(archive, policy)
        else:
            found, version = check_sdist(archive, policy)
        problems.extend(found)
        versions.setdefault(name, set()).add(version)
    for name, found_versions in versions.items():
        if len(found_versions) != 1:
            problems.append(f"{name}: wheel and sdist versions differ: {sorted(found_versions)}")
        if name in expected and found_versions != {expected[name]}:
            problems.append(f"{name}: version {sorted(found_versions)}, expected {expected[name]}")
    for name in expected:
        if name not in seen_wheels:
            problems.append(f"{name}: no wheel in {directory}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Check built wheels and sdists against each distribution's policy "
        "(file list, metadata, dependencies).",
    )
    parser.add_argument("dist_dir", type=Path, help="folder holding the built archives")
    parser.add_argument(
        "--expect-version",
        action="append",
        default=[],
        metavar="DIST=VERSION",
        help="require this version for a distribution (repeatable)",
    )
    parser.add_argument(
        "--require-all",
        action="store_true",
        help="fail unless every workspace distribution has a wheel in the folder",
    )
    args = parser.parse_args(argv)
    expected: dict[str, str] = {}
    for item in args.expect_version:
        name, _, version = item.partition("=")
        if not version or _normalize(name) not in POLICIES:
            parser.error(f"--expect-version wants DIST=VERSION with DIST in {sorted(POLICIES)}")
        expected[_normalize(name)] = version
    problems = check_directory(args.dist_dir, expected)
    if args.require_all:
        wheels = {_distribution_of(p) for p in args.dist_dir.glob("*.whl")}
        problems += [f"{n}: no wheel in {args.dist_dir}" for n in POLICIES if n not in wheels]
    if problems:
        print(f"check_wheels: {len(problems)} problem(s):", file=sys.stderr)
        for problem in problems:
            print(f"  - {problem}", file=sys.stderr)
        return 1
    archives = sorted(p.name for p in args.dist_dir.iterdir() if p.suffix in {".whl", ".gz"})
    print(f"check_wheels: {len(archives)} archive(s) pass: {', '.join(archives)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
