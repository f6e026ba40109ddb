"""The corpus of real image files: ``Tests/images/`` of the installed Pillow's sdist.

Pillow's source distribution on the package index holds its own test images (about 1,100
files: every format Pillow reads, files written by many other programs, fuzzer ``crash-*`` and
``timeout-*`` files, decompression bombs). The fixture downloads that sdist with pip, exactly as
pip is configured here (``pip config list``; nothing special is passed), and extracts only
``Tests/images/**`` into pytest's cache (``.pytest_cache/d/pillow-gpu-corpus``), so a rerun
neither downloads nor extracts again. Nothing of it is committed.

The test skips only when the package index cannot be reached, naming the index URL and pip's
error. Any other failure to obtain the corpus (no pip at all, a missing release, an unsafe
archive) fails the test with the reason.
"""

from __future__ import annotations

import collections
import contextlib
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import urllib.parse
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

import PIL
import pytest
from PIL import Image as PILImage

#: Signs in pip's output that the index itself could not be reached (not a missing release).
_UNREACHABLE = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Max retries exceeded|"
    r"Name or service not known|Temporary failure in name resolution|Network is unreachable|"
    r"ConnectTimeout|ReadTimeout|timed out|ProxyError|SSLError|Connection refused|"
    r"No route to host|ConnectionResetError|RemoteDisconnected"
)

#: Complete extractions carry this marker (written last), so a partial one is redone.
_COMPLETE = ".complete"


def _pip() -> list[str]:
    """A pip command: the running interpreter's, else the first ``pip3``/``pip`` on PATH.

    The workspace virtual environment has no pip; any pip reads the same configuration.
    """
    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip"]
    for name in ("pip3", "pip"):
        found = shutil.which(name)
        if found is not None:
            return [found]
    python3 = shutil.which("python3")
    if python3 is not None:
        return [python3, "-m", "pip"]
    pytest.fail(
        "the corpus test downloads Pillow's sdist with pip, and no pip was found "
        f"(not in {sys.executable}, nor pip3/pip/python3 on PATH); install pip"
    )


def _index_urls(output: str) -> str:
    found = re.search(r"Looking in indexes: (.+)", output)
    return found.group(1).strip() if found else "the package index configured for pip"


def _unreachable(urls: str) -> str | None:
    """Why none of the network indexes in ``urls`` accepts a connection, or None if one does.

    pip without retries (``PIP_RETRIES=0``) reports an unreachable index only as "no matching
    distribution", so the network indexes it looked in are probed directly.
    """
    problems = []
    for url in urls.replace(",", " ").split():
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            continue
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            socket.create_connection((parts.hostname, port), timeout=15).close()
        except OSError as error:
            problems.append(f"{url}: {type(error).__name__}: {error}")
        else:
            return None
    return "; ".join(problems) or None


def _download(requirement: str, archive: str, into: Path) -> Path:
    """``pip download`` the sdist of ``requirement`` (``name==version``), whose file name
    ``archive`` globs, into ``into``; skip if the index is unreachable."""
    into.mkdir(parents=True, exist_ok=True)
    command = [
        *_pip(),
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        requirement,
        "-d",
        str(into),
    ]
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=900, env=env, check=False
        )
    except subprocess.TimeoutExpired as error:
        pytest.skip(
            f"the package index could not be reached: `{' '.join(command)}` timed out after "
            f"{error.timeout:.0f} s"
        )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        if _UNREACHABLE.search(output):
            lines = [line for line in output.splitlines() if _UNREACHABLE.search(line)]
            pytest.skip(
                f"the package index could not be reached ({_index_urls(output)}): "
                f"{lines[-1].strip()[:300]}"
            )
        why = _unreachable(_index_urls(output))
        if why is not None:
            pytest.skip(f"the package index could not be reached: {why}")
        pytest.fail(f"`{' '.join(command)}` failed ({done.returncode}):\n{output[-3000:]}")
    archives = sorted(into.glob(archive))
    if not archives:
        pytest.fail(f"pip reported success but wrote no {archive}:\n{output}")
    return archives[0]


def _safe_relative(name: str) -> PurePosixPath | None:
    """The path under ``Tests/images/`` of an archive member, or None to leave it out."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or "" in path.parts or "\\" in name:
        return None
    parts = path.parts
    # pillow-13.0.0/Tests/images/<relative>: the sdist's top folder, then Tests/images.
    if len(parts) < 4 or parts[1:3] != ("Tests", "images"):
        return None
    return PurePosixPath(*parts[3:])


def extract_images(archive: Path, target: Path) -> int:
    """Extract the regular files under ``Tests/images/`` of ``archive`` into ``target``.

    Links, devices, absolute paths and ``..`` components are never extracted; a member whose
    resolved destination would leave ``target`` fails. Returns the number of files written.
    """
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    root = target.resolve()
    count = 0
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar:
            relative = _safe_relative(member.name)
            if relative is None or not member.isreg():
                continue
            destination = (root / relative).resolve()
            if root not in destination.parents:
                pytest.fail(f"unsafe member {member.name!r} in {archive.name}")
            destination.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None  # a regular file
            with source, open(destination, "xb") as out:
                shutil.copyfileobj(source, out)
            count += 1
    (target / _COMPLETE).write_text(f"{count}\n")
    return count


def _cache_folder(request: pytest.FixtureRequest, factory: pytest.TempPathFactory) -> Path:
    """pytest's cache folder of the corpora (``.pytest_cache/d/pillow-gpu-corpus``), or a
    temporary one where the cache is disabled (``-p no:cacheprovider``)."""
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return factory.mktemp("pillow-gpu-corpus")
    return Path(cache.mkdir("pillow-gpu-corpus"))


@pytest.fixture(scope="session")
def pillow_corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding the installed Pillow's ``Tests/images`` (cached across runs)."""
    version = PIL.__version__
    base = _cache_folder(request, tmp_path_factory)
    images = base / f"pillow-{version}-images"
    if not (images / _COMPLETE).is_file():
        download = base / "download"
        archive = _download(f"pillow=={version}", f"[pP]illow-{version}.tar.gz", download)
        extract_images(archive, images)
        shutil.rmtree(download, ignore_errors=True)  # the extracted files are what is kept
    return images


#: The distribution whose sdist holds the camera photos (``tests/images``): piexif's test
#: images, JPEGs from Canon, Casio, Olympus, Panasonic, Pentax, Ricoh, Sigma and Sony cameras
#: with their maker notes, a TIFF with EXIF, and a few without any.
CAMERA_SDIST = ("piexif", "1.1.3")


def extract_camera_images(archive: Path, target: Path) -> int:
    """Extract the regular files under ``tests/images/`` of the zip ``archive`` into
    ``target`` (flat; no links, absolute paths or ``..``); returns the number written."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    count = 0
    with zipfile.ZipFile(archive) as bundle:
        for member in bundle.infolist():
            parts = PurePosixPath(member.filename).parts
            # piexif-1.1.3/tests/images/<name>: one level, plain names only.
            if member.is_dir() or len(parts) != 4 or parts[1:3] != ("tests", "images"):
                continue
            name = parts[3]
            if name in ("", ".", "..") or "\\" in name or (member.external_attr >> 28) == 0xA:
                continue  # not a plain file name, or a symlink
            with bundle.open(member) as source, open(target / name, "xb") as out:
                shutil.copyfileobj(source, out)
            count += 1
    (target / _COMPLETE).write_text(f"{count}\n")
    return count


@pytest.fixture(scope="session")
def camera_corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding piexif's camera test images (cached across runs, as the corpus)."""
    name, version = CAMERA_SDIST
    base = _cache_folder(request, tmp_path_factory)
    images = base / f"{name}-{version}-images"
    if not (images / _COMPLETE).is_file():
        download = base / "download-cameras"
        archive = _download(f"{name}=={version}", f"{name}-{version}.zip", download)
        extract_camera_images(archive, images)
        shutil.rmtree(download, ignore_errors=True)
    return images


class Tally:
    """Corpus cases run on Pillow and on pillow_gpu: how many agree, and those that do not.

    An outcome is the case's answer, or the type name of the exception it raised (a ``str``).
    """

    def __init__(self) -> None:
        self.shares: collections.Counter[str] = collections.Counter()
        self.differing: list[str] = []

    def add(self, label: str, expected: Any, actual: Any, *, same: bool | None = None) -> None:
        """Count ``actual`` against Pillow's ``expected`` (``same`` where equality is not the
        test)."""
        if actual == expected if same is None else same:
            self.shares["same error" if isinstance(expected, str) else "equal"] += 1
        else:
            self.differing.append(f"{label}: {str(actual)[:100]}")

    def check(self, title: str) -> None:
        """Print the shares; every case must agree, and more answers than errors."""
        print(f"\n{title}: {dict(self.shares)}")
        assert not self.differing, "\n".join(self.differing)
        assert self.shares["equal"] > self.shares["same error"]


def opened_files(pillow_corpus: Path, keep: Callable[[PILImage.Image], bool]) -> list[Path]:
    """The corpus files Pillow opens whose header ``keep`` accepts, sorted (a file Pillow cannot
    open, or whose header ``keep`` cannot read, is left out)."""
    files = []
    with warnings.catch_warnings():  # the same files whatever warnings were issued before
        warnings.simplefilter("ignore")
        for path in sorted(pillow_corpus.rglob("*")):
            try:
                with PILImage.open(path) as opened:
                    if keep(opened):
                        files.append(path)
            except Exception:  # not an image Pillow opens, or a header it cannot read: no case
                continue
    return files


def outcome(module: Any, path: Path, use: Callable[[Any], Any]) -> Any:
    """``use(image)`` of ``module.open(path)`` (closed after), or the type name of what it
    raised: a corpus case's answer, compared across Pillow and pillow_gpu."""
    try:
        with contextlib.closing(module.open(path)) as image:
            return use(image)
    except Exception as error:  # the exception type is the answer
        return type(error).__name__
