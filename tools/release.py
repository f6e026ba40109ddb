"""Release steps for the workspace's distributions; one git tag series per distribution.

A distribution's version comes from its newest tag ``<distribution>-v<version>`` (for example
``pixtreme-infer-v0.16.0``). pixtreme-infer continues the series published on the package
index: a checkout without its tags (CI clones have none) builds
``<fallback-version>.post<N>+g<commit>`` from the ``fallback-version`` in
packages/pixtreme-infer/pyproject.toml, and N commits after a tag build ``X.Y.Z.post<N>+g<commit>``;
the other distributions build ``0.0.1.devN+g<commit>`` without a tag.

Commands:
  status                     each distribution's newest tag, its newest release on the package
                             index and the version a build of this checkout gets now
  check DIST VERSION         the checks `tag` makes before it tags (no tag, no build)
  tag DIST VERSION           check, tag DIST at HEAD, build and check its wheel and sdist with
                             that version, and keep the tag only if every check passes
                             (--dry-run builds and checks without keeping the tag)

Release floor: VERSION must be X.Y.Z or X.Y.Z(a|b|rc)N and sort above
  - the newest tag of DIST in this repository, and
  - every version of DIST on the package index (pre-releases and yanked ones included; a
    distribution the index does not have yet passes). The index is --index-url, else
    PIP_INDEX_URL, else pip's configured global.index-url, else https://pypi.org/simple/; it is
    read through its simple API (PEP 691 JSON or PEP 503 HTML; file:// folders work). When it
    cannot be reached the release is refused, unless --offline says to skip this check.
  For a distribution that builds <fallback-version>.postN without tags (pixtreme-infer),
  VERSION must not sort above fallback-version: after the release, tag-less builds must still
  sort above it. Raise fallback-version to VERSION in its pyproject.toml and commit first.

After `tag`, publish with the printed commands (push the tag, upload the archives).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from check_wheels import POLICIES, check_directory  # noqa: E402

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)((?:a|b|rc)\d+)?$")
DEFAULT_INDEX = "https://pypi.org/simple/"
_SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


class IndexUnreachableError(RuntimeError):
    """The package index did not answer (network error, timeout, server error)."""


def _git(*args: str, check: bool = True) -> str:
    result = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    if check and result.returncode != 0:
        raise SystemExit(f"release: git {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout.strip()


def _parse(version: str) -> Version:
    if _VERSION.match(version) is None:
        raise SystemExit(
            f"release: version {version!r} is not X.Y.Z or X.Y.Z(a|b|rc)N; "
            "pass a version such as 0.3.0 or 0.3.0rc1"
        )
    return Version(version)


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def latest_tag(distribution: str) -> str | None:
    """Return the newest version tagged for a distribution, or None."""
    tags = _git("tag", "--list", f"{distribution}-v*").split()
    versions = [t.removeprefix(f"{distribution}-v") for t in tags]
    valid = [v for v in versions if _VERSION.match(v)]
    return max(valid, key=Version) if valid else None


def build_version(distribution: str) -> str:
    """Return the version a build of this checkout gets (hatchling reads the package's config)."""
    python = [sys.executable]
    if importlib.util.find_spec("hatchling") is None:
        python = ["uv", "run", "--no-sync", "python"]  # the workspace venv has hatch-vcs
    result = subprocess.run(
        [*python, "-m", "hatchling", "version"],
        cwd=ROOT / "packages" / distribution,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        return f"unknown ({result.stderr.strip().splitlines()[-1:]})"
    return result.stdout.strip().splitlines()[-1]


def tagless_base(distribution: str) -> str | None:
    """The fallback-version a tag-less checkout builds ``.postN`` versions from, or None."""
    config = tomllib.loads((ROOT / "packages" / distribution / "pyproject.toml").read_text())
    version_config = config.get("tool", {}).get("hatch", {}).get("version", {})
    if version_config.get("raw-options", {}).get("version_scheme") != "post-release":
        return None
    fallback = version_config.get("fallback-version")
    return fallback if isinstance(fallback, str) and fallback else None


# -- the package index ---------------------------------------------------------------------


def configured_index_url() -> str:
    """The index pip installs from: PIP_INDEX_URL, pip's global.index-url, or PyPI."""
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"]
    candidates = [[sys.executable, "-m", "pip"]]
    candidates += [[found] for found in (shutil.which("pip3"), shutil.which("pip")) if found]
    for pip in candidates:
        try:
            result = subprocess.run(
                [*pip, "config", "get", "global.index-url"],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if result.returncode == 0 and result.stdout.strip():
            return result.stdout.strip()
        if "No module named pip" not in result.stderr:
            break  # pip ran and has no index-url configured
    return DEFAULT_INDEX


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.filenames: list[str] = []
        self._href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href = dict(attrs).get("href") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            path = urllib.parse.urlsplit(self._href).path
            self.filenames.append(urllib.parse.unquote(path.rsplit("/", 1)[-1]))
            self._href = None


def _version_of(filename: str, distribution: str) -> Version | None:
    """The version in a wheel or sdist filename of ``distribution``, or None."""
    if filename.endswith(".whl"):
        parts = filename[: -len(".whl")].split("-")
        if len(parts) < 5 or _normalize(parts[0]) != distribution:
            return None
        raw = parts[1]
    else:
        stem = re.sub(r"\.(tar\.gz|tar\.bz2|tgz|zip)$", "", filename)
        if stem == filename:
            return None
        name, _, raw = stem.rpartition("-")
        if _normalize(name) != distribution:
            return None
    try:
        return Version(raw)
    except InvalidVersion:
        return None


def versions_from_simple_page(body: bytes, content_type: str, distribution: str) -> list[Version]:
    """Every version a simple-API project page lists (PEP 691 JSON or PEP 503 HTML)."""
    distribution = _normalize(distribution)
    found: set[Version] = set()
    if content_type.split(";", maxsplit=1)[0].strip() == _SIMPLE_JSON or body.lstrip().startswith(
        b"{"
    ):
        page = json.loads(body)
        for raw in page.get("versions", ()):
            try:
                found.add(Version(raw))
            except InvalidVersion:
                continue
        filenames = [entry.get("filename", "") for entry in page.get("files", ())]
    else:
        parser = _Anchors()
        parser.feed(body.decode("utf-8", "replace"))
        filenames = parser.filenames
    for filename in filenames:
        version = _version_of(filename, distribution)
        if version is not None:
            found.add(version)
    return sorted(found)


def index_versions(distribution: str, index_url: str, *, timeout: float = 20.0) -> list[Version]:
    """Every version of ``distribution`` on the index; [] when the index does not have it.

    Raises IndexUnreachableError when the index does not answer.
    """
    name = _normalize(distribution)
    url = f"{index_url.rstrip('/')}/{name}/"
    if urllib.parse.urlsplit(url).scheme == "file":
        # A folder index, as pip reads it: <index>/<name>/index.html.
        folder = Path(urllib.request.url2pathname(urllib.parse.urlsplit(url).path))
        if not folder.parent.is_dir():
            raise IndexUnreachableError(f"{index_url}: no such folder")
        page = folder / "index.html"
        if not page.is_file():
            return []
        return versions_from_simple_page(page.read_bytes(), "text/html", name)
    request = urllib.request.Request(url, headers={"Accept": f"{_SIMPLE_JSON}, text/html;q=0.1"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
            content_type = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return []
        raise IndexUnreachableError(f"{url}: HTTP {error.code} {error.reason}") from error
    except (urllib.error.URLError, OSError, TimeoutError) as error:
        reason = getattr(error, "reason", error)
        raise IndexUnreachableError(f"{url}: {reason}") from error
    return versions_from_simple_page(body, content_type, name)


# -- commands ------------------------------------------------------------------------------


def release_problems(
    distribution: str, version: str, *, index_url: str, offline: bool
) -> tuple[list[str], list[str]]:
    """The reasons not to release ``version`` of ``distribution``, and notes on what was checked."""
    if distribution not in POLICIES:
        raise SystemExit(f"release: unknown distribution {distribution!r}; one of {list(POLICIES)}")
    wanted = _parse(version)
    problems: list[str] = []
    notes: list[str] = []
    newest_tag = latest_tag(distribution)
    if newest_tag is not None and wanted <= Version(newest_tag):
        problems.append(
            f"{distribution} {version} is not newer than the tagged {newest_tag}; "
            "choose a higher version"
        )
    if offline:
        notes.append(f"--offline: {version} was not checked against the package index")
    else:
        try:
            published = index_versions(distribution, index_url)
        except IndexUnreachableError as error:
            problems.append(
                f"cannot reach the package index to check that {version} is above every "
                f"published {distribution} ({error}); retry when it is reachable, or pass "
                "--offline to release without that check"
            )
        else:
            if not published:
                notes.append(f"{index_url} has no release of {distribution} yet")
            elif wanted <= max(published):
                problems.append(
                    f"{distribution} {version} does not sort above {max(published)}, the newest "
                    f"release on {index_url}; choose a version above it"
                )
            else:
                notes.append(f"{version} sorts above {max(published)}, newest on {index_url}")
    base = tagless_base(distribution)
    if base is not None and wanted > Version(base):
        problems.append(
            f"checkouts without tags build {distribution} {base}.postN, which would sort below "
            f'{version} once it is released; set fallback-version = "{version}" under '
            f"[tool.hatch.version] in packages/{distribution}/pyproject.toml, commit, then tag"
        )
    return problems, notes


def _refuse_or_note(problems: list[str], notes: list[str]) -> None:
    for note in notes:
        print(f"release: {note}")
    if problems:
        for problem in problems:
            print(f"release: refused: {problem}", file=sys.stderr)
        raise SystemExit(1)


def _status(*, index_url: str, offline: bool) -> int:
    print(f"{'distribution':<24} {'newest tag':<12} {'newest on index':<16} build version now")
    for name in POLICIES:
        if offline:
            published = "(offline)"
        else:
            try:
                found = index_versions(name, index_url)
                published = str(max(found)) if found else "-"
            except IndexUnreachableError:
                published = "unreachable"
        print(f"{name:<24} {latest_tag(name) or '-':<12} {published:<16} {build_version(name)}")
    print(f"index: {'not queried (--offline)' if offline else index_url}")
    return 0


def _check(distribution: str, version: str, *, index_url: str, offline: bool) -> int:
    _refuse_or_note(*release_problems(distribution, version, index_url=index_url, offline=offline))
    print(f"release: {distribution} {version} passes the release checks (nothing tagged)")
    return 0


def _tag(distribution: str, version: str, *, dry_run: bool, index_url: str, offline: bool) -> int:
    _refuse_or_note(*release_problems(distribution, version, index_url=index_url, offline=offline))
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
    index_options = argparse.ArgumentParser(add_help=False)
    index_options.add_argument(
        "--index-url",
        help="the package index's simple API (default: PIP_INDEX_URL, pip's global.index-url, "
        f"else {DEFAULT_INDEX})",
    )
    index_options.add_argument(
        "--offline",
        action="store_true",
        help="do not query the package index (the release floor is then not checked)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "status", parents=[index_options], help="newest tag, newest release and build version"
    )
    for command, summary in (
        ("check", "the checks made before tagging; tags and builds nothing"),
        ("tag", "tag, build and check one release"),
    ):
        sub = commands.add_parser(command, parents=[index_options], help=summary)
        sub.add_argument("distribution", choices=sorted(POLICIES))
        sub.add_argument("version", help="X.Y.Z or X.Y.Z(a|b|rc)N")
        if command == "tag":
            sub.add_argument("--dry-run", action="store_true", help="build and check, keep no tag")
    args = parser.parse_args(argv)
    index_url = args.index_url or ("" if args.offline else configured_index_url())
    if args.command == "status":
        return _status(index_url=index_url, offline=args.offline)
    _parse(args.version)
    if args.command == "check":
        return _check(args.distribution, args.version, index_url=index_url, offline=args.offline)
    return _tag(
        args.distribution,
        args.version,
        dry_run=args.dry_run,
        index_url=index_url,
        offline=args.offline,
    )


if __name__ == "__main__":
    raise SystemExit(main())
