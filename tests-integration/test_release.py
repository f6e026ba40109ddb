"""Versions and releases: pixtreme-infer's version scheme and tools/release.py's release floor.

The release floor is tested against package indexes in local folders (PEP 503 simple pages
under file://) and a closed local port, so no test here needs the network. release.py runs
in a scratch git repository holding copies of tools/ and the three pyproject.toml files, so
neither the tags of this checkout nor a later fallback-version change alter the outcomes.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from integration_support import ROOT, clean_env, release

DISTRIBUTIONS = ("pillow-gpu", "pixtreme-infer", "pixtreme-arch-example")
_GIT_USER = ["-c", "user.name=release test", "-c", "user.email=release@test.invalid"]


def _git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", *_GIT_USER, *args], cwd=repo, capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


@pytest.fixture
def scratch_repo(tmp_path: Path) -> Path:
    """A git repository with tools/ and the pyproject files, pixtreme-infer's base at 0.16.0."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "tools", repo / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    for name in DISTRIBUTIONS:
        target = repo / "packages" / name / "pyproject.toml"
        target.parent.mkdir(parents=True)
        shutil.copy(ROOT / "packages" / name / "pyproject.toml", target)
    core = repo / "packages" / "pixtreme-infer" / "pyproject.toml"
    text, count = re.subn(
        r'(?m)^fallback-version = "[^"]*"$', 'fallback-version = "0.16.0"', core.read_text()
    )
    assert count == 1, "packages/pixtreme-infer/pyproject.toml has no fallback-version line"
    core.write_text(text)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "scratch")
    return repo


def _simple_index(
    tmp_path: Path, projects: dict[str, list[str]], yanked: tuple[str, ...] = ()
) -> str:
    """A PEP 503 index in a folder: one page per project listing the given file names."""
    index = tmp_path / "simple"
    index.mkdir(exist_ok=True)
    for project, filenames in projects.items():
        page = index / project
        page.mkdir()
        anchors = "\n".join(
            f'<a href="../../files/{name}#sha256=00"{" data-yanked" if name in yanked else ""}>'
            f"{name}</a>"
            for name in filenames
        )
        (page / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{anchors}\n</body></html>")
    return index.as_uri()


PUBLISHED_CORE = [
    "pixtreme_infer-0.14.6-py3-none-any.whl",
    "pixtreme-infer-0.15.0.tar.gz",
    "pixtreme_infer-0.15.1-py3-none-any.whl",
    "pixtreme_infer-0.15.1.tar.gz",
]


def _release(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(repo / "tools" / "release.py"), *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("version", ["0.15.1", "0.15.0", "0.1.0"])
def test_version_not_above_the_newest_release_on_the_index_is_refused(
    scratch_repo: Path, tmp_path: Path, version: str
) -> None:
    index = _simple_index(tmp_path, {"pixtreme-infer": PUBLISHED_CORE})
    result = _release(scratch_repo, "check", "pixtreme-infer", version, "--index-url", index)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "does not sort above 0.15.1, the newest release" in result.stderr


def test_version_above_the_newest_release_passes(scratch_repo: Path, tmp_path: Path) -> None:
    index = _simple_index(tmp_path, {"pixtreme-infer": PUBLISHED_CORE})
    result = _release(scratch_repo, "check", "pixtreme-infer", "0.16.0", "--index-url", index)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0.16.0 sorts above 0.15.1" in result.stdout
    assert _git(scratch_repo, "tag", "--list") == "", "check must not tag"


def test_pre_releases_and_yanked_files_on_the_index_count(
    scratch_repo: Path, tmp_path: Path
) -> None:
    yanked = "pixtreme_infer-0.16.0rc2.tar.gz"
    index = _simple_index(tmp_path, {"pixtreme-infer": [*PUBLISHED_CORE, yanked]}, (yanked,))
    refused = _release(scratch_repo, "check", "pixtreme-infer", "0.16.0rc1", "--index-url", index)
    assert refused.returncode == 1
    assert "does not sort above 0.16.0rc2" in refused.stderr
    passed = _release(scratch_repo, "check", "pixtreme-infer", "0.16.0", "--index-url", index)
    assert passed.returncode == 0, passed.stderr


def test_distribution_not_on_the_index_yet_passes(scratch_repo: Path, tmp_path: Path) -> None:
    index = _simple_index(tmp_path, {"pixtreme-infer": PUBLISHED_CORE})
    result = _release(scratch_repo, "check", "pixtreme-arch-example", "0.1.0", "--index-url", index)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "has no release of pixtreme-arch-example yet" in result.stdout


def test_unreachable_index_refuses_unless_offline(scratch_repo: Path) -> None:
    with socket.socket() as probe:  # a local port nothing listens on: connection refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    index = f"http://127.0.0.1:{port}/simple/"
    refused = _release(scratch_repo, "check", "pixtreme-infer", "0.16.0", "--index-url", index)
    assert refused.returncode == 1
    assert "cannot reach the package index" in refused.stderr
    assert "--offline" in refused.stderr
    offline = _release(scratch_repo, "check", "pixtreme-infer", "0.16.0", "--offline")
    assert offline.returncode == 0, offline.stderr
    assert "was not checked against the package index" in offline.stdout


def test_missing_index_folder_counts_as_unreachable(scratch_repo: Path, tmp_path: Path) -> None:
    index = (tmp_path / "no-such-index").as_uri()
    result = _release(scratch_repo, "check", "pixtreme-infer", "0.16.0", "--index-url", index)
    assert result.returncode == 1
    assert "cannot reach the package index" in result.stderr


def test_tag_is_refused_before_anything_is_tagged(scratch_repo: Path, tmp_path: Path) -> None:
    index = _simple_index(tmp_path, {"pixtreme-infer": PUBLISHED_CORE})
    result = _release(
        scratch_repo, "tag", "pixtreme-infer", "0.15.1", "--dry-run", "--index-url", index
    )
    assert result.returncode == 1
    assert "does not sort above 0.15.1" in result.stderr
    assert _git(scratch_repo, "tag", "--list") == ""


def test_version_above_the_tagless_base_is_refused(scratch_repo: Path, tmp_path: Path) -> None:
    index = _simple_index(tmp_path, {"pixtreme-infer": PUBLISHED_CORE})
    result = _release(scratch_repo, "check", "pixtreme-infer", "0.16.1", "--index-url", index)
    assert result.returncode == 1
    assert 'set fallback-version = "0.16.1"' in result.stderr


def test_version_not_above_the_newest_local_tag_is_refused(
    scratch_repo: Path, tmp_path: Path
) -> None:
    index = _simple_index(tmp_path, {"pixtreme-infer": PUBLISHED_CORE})
    _git(scratch_repo, "tag", "-a", "pixtreme-infer-v0.16.0", "-m", "released")
    result = _release(scratch_repo, "check", "pixtreme-infer", "0.16.0", "--index-url", index)
    assert result.returncode == 1
    assert "is not newer than the tagged 0.16.0" in result.stderr


def test_status_shows_the_newest_release_on_the_index(scratch_repo: Path, tmp_path: Path) -> None:
    index = _simple_index(tmp_path, {"pixtreme-infer": PUBLISHED_CORE})
    result = _release(scratch_repo, "status", "--index-url", index)
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()[1:4]}
    assert rows["pixtreme-infer"][:2] == ["-", "0.15.1"], result.stdout
    assert rows["pixtreme-infer"][2].startswith("0.16.0.post1+g"), result.stdout
    assert rows["pixtreme-arch-example"][1] == "-", result.stdout


def test_simple_api_json_pages_are_read() -> None:
    page = {
        "meta": {"api-version": "1.1"},
        "name": "pixtreme-infer",
        "versions": ["0.14.6", "0.15.1"],
        "files": [
            {"filename": "pixtreme_infer-0.15.1-py3-none-any.whl", "yanked": False},
            {"filename": "pixtreme_infer-0.16.0rc1.tar.gz", "yanked": "broken"},
            {"filename": "pixtreme_infer_span-9.0.0-py3-none-any.whl"},
        ],
    }
    versions = release.versions_from_simple_page(
        json.dumps(page).encode(), "application/vnd.pypi.simple.v1+json", "pixtreme_infer"
    )
    assert [str(v) for v in versions] == ["0.14.6", "0.15.1", "0.16.0rc1"]


# -- the version scheme (packages/pixtreme-infer/pyproject.toml) ----------------------------


def _build_version(repo: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "hatchling", "version"],
        cwd=repo / "packages" / "pixtreme-infer",
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_versions_without_tags_at_a_tag_and_after_it(scratch_repo: Path) -> None:
    """Every build is a release version: tag-less ones sort above the published 0.15.1."""

    def assert_post1_of(version: str, suffix: str = "") -> None:
        head = _git(scratch_repo, "rev-parse", "HEAD")
        match = re.fullmatch(rf"0\.16\.0\.post1\+g([0-9a-f]{{7,}}){suffix}", version)
        assert match is not None, version
        assert head.startswith(match.group(1)), (version, head)

    assert_post1_of(_build_version(scratch_repo))  # no tag: fallback-version, 1 commit
    _git(scratch_repo, "tag", "-a", "pillow-gpu-v3.0.0", "-m", "another series")
    assert_post1_of(_build_version(scratch_repo))
    _git(scratch_repo, "tag", "-a", "pixtreme-infer-v0.16.0", "-m", "release")
    assert _build_version(scratch_repo) == "0.16.0"
    _git(scratch_repo, "commit", "-q", "--allow-empty", "-m", "after the release")
    assert_post1_of(_build_version(scratch_repo))
    pyproject = scratch_repo / "packages" / "pixtreme-infer" / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n")
    assert_post1_of(_build_version(scratch_repo), suffix=r"\.d\d{8}")
