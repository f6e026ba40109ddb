"""Release steps for the workspace's distributions; one git tag series per distribution.

A distribution's version comes from its newest tag ``<distribution>-v<version>`` (for example
``pixtreme-infer-v0.3.0``); an untagged checkout builds ``0.0.1.devN+g<commit>``.

Commands:
  status                     each distribution's newest tag and the version a build gets now
  tag DIST VERSION           check the tree, tag DIST at HEAD, build and check its wheel and
                             sdist with that version, and keep the tag only if every check passes
                             (--dry-run builds and checks without keeping the tag)

After `tag`, publish with the printed commands (push the tag, upload the archives).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from check_wheels import POLICIES, check_directory  # noqa: E402

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)((?:a|b|rc)\d+)?$")


def _git(*args: str, check: bool = True) -> str:
    result = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    if check and result.returncode != 0:
        raise SystemExit(f"release: git {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout.strip()


def _parse(version: str) -> tuple[int, int, int, str]:
    match = _VERSION.match(version)
    if match is None:
        raise SystemExit(
            f"release: version {version!r} is not X.Y.Z or X.Y.Z(a|b|rc)N; "
            "pass a version such as 0.3.0 or 0.3.0rc1"
        )
    major, minor, patch, pre = match.groups()
    # A final release sorts after its pre-releases.
    return int(major), int(minor), int(patch), pre or "~"


def latest_tag(distribution: str) -> str | None:
    """Return the newest version tagged for a distribution, or None."""
    tags = _git("tag", "--list", f"{distribution}-v*").split()
    versions = [t.removeprefix(f"{distribution}-v") for t in tags]
    valid = [v for v in versions if _VERSION.match(v)]
    return max(valid, key=_parse) if valid else None


def build_version(distribution: str) -> str:
    """Return the version a build of this checkout gets (as hatch-vcs computes it)."""
    package = ROOT / "packages" / distribution
    code = (
        "from setuptools_scm import get_version; import re;"
        f"print(get_version(root={str(ROOT)!r}, tag_regex=r'^{distribution}-v(?P<version>.+)$',"
        f" git_describe_command=['git','describe','--dirty','--tags','--long','--match',"
        f"'{distribution}-v*'], fallback_version='0.0.0'))"
    )
    result = subprocess.run(
        ["uv", "run", "--no-sync", "python", "-c", code],
        cwd=package,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        return f"unknown ({result.stderr.strip().splitlines()[-1:]})"
    return result.stdout.strip()


def _status() -> int:
    print(f"{'distribution':<24} {'newest tag':<12} build version now")
    for name in POLICIES:
        print(f"{name:<24} {latest_tag(name) or '-':<12} {build_version(name)}")
    return 0


def _tag(distribution: str, version: str, *, dry_run: bool) -> int:
    if distribution not in POLICIES:
        raise SystemExit(f"release: unknown distribution {distribution!r}; one of {list(POLICIES)}")
    newest = latest_tag(distribution)
    if newest is not None and _parse(version) <= _parse(newest):
        raise SystemExit(
            f"release: {distribution} {version} is not newer than the tagged {newest}; "
            "choose a higher version"
        )
    if _git("status", "--porcelain"):
        raise SystemExit("release: the working tree has uncommitted changes; commit or stash them")
    tag = f"{distribution}-v{version}"
    _git("tag", "-a", tag, "-m", f"{distribution} {version}")
    try:
        with tempfile.TemporaryDirectory() as out:
            subprocess.run(
                ["uv", "build", "--package", distribution, "--out-dir", out],
                cwd=ROOT,
                check=True,
            )
            problems = check_directory(Path(out), {distribution: version})
            if problems:
                for problem in problems:
                    print(f"  - {problem}", file=sys.stderr)
                raise SystemExit(f"release: {tag} failed its checks; the tag was removed")
            archives = sorted(p.name for p in Path(out).iterdir() if p.suffix in {".whl", ".gz"})
    except BaseException:
        _git("tag", "-d", tag)
        raise
    if dry_run:
        _git("tag", "-d", tag)
        print(f"release: dry run passed for {tag}: {', '.join(archives)} (tag not kept)")
        return 0
    print(f"release: tagged {tag}; archives checked: {', '.join(archives)}")
    print("next steps:")
    print(f"  git push origin {tag}")
    print(f"  uv build --package {distribution} --out-dir dist/{tag} && uv publish dist/{tag}/*")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("status", help="newest tag and build version of each distribution")
    tag = commands.add_parser("tag", help="tag, build and check one release")
    tag.add_argument("distribution", choices=sorted(POLICIES))
    tag.add_argument("version", help="X.Y.Z or X.Y.Z(a|b|rc)N")
    tag.add_argument("--dry-run", action="store_true", help="build and check, keep no tag")
    args = parser.parse_args(argv)
    if args.command == "status":
        return _status()
    _parse(args.version)
    return _tag(args.distribution, args.version, dry_run=args.dry_run)


if __name__ == "__main__":
    raise SystemExit(main())
