"""The corpora of real image files, downloaded from the package index at test time.

* ``pillow_corpus``: ``Tests/images/`` of the installed Pillow's sdist (about 1,100 files:
  every format Pillow reads, files written by many other programs, fuzzer ``crash-*`` and
  ``timeout-*`` files, decompression bombs);
* ``camera_corpus``: piexif's test photos, JPEGs straight from eight makers' cameras;
* ``program_corpus``: image files other programs wrote, from the sdists of
  :data:`PROGRAM_SDISTS` (ImageMagick's through Wand, and small samples of many formats);
* ``real_corpus``: the Pillow and program corpora in turn, for the tests that take any folder.

Each fixture downloads its sdist with pip, exactly as pip is configured here (``pip config
list``; nothing special is passed), and extracts only the image folders into pytest's cache
(``.pytest_cache/d/pillow-gpu-corpus``), so a rerun neither downloads nor extracts again.
Nothing of it is committed.

The tests skip only when the package index cannot be reached, naming the index URL and pip's
error. Any other failure to obtain a corpus (no pip at all, a missing release, an unsafe
archive) fails the test with the reason.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
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
from collections.abc import Callable, Iterator, Sized
from pathlib import Path, PurePosixPath
from typing import IO, Any

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


def _member_path(name: str, folders: tuple[str, ...]) -> PurePosixPath | None:
    """Where an archive member named ``name`` goes: its path under the one of ``folders``
    (each relative to the archive's top folder, as ``Tests/images``) that holds it; None to
    leave it out (outside them, or not a plain relative path)."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or "" in path.parts or "\\" in name:
        return None
    inside = PurePosixPath(*path.parts[1:]) if len(path.parts) > 1 else PurePosixPath()
    for folder in folders:
        if inside.is_relative_to(folder) and inside != PurePosixPath(folder):
            return inside.relative_to(folder)
    return None


def _members(archive: Path) -> Iterator[tuple[str, Callable[[], IO[bytes]]]]:
    """``(name, open)`` of each regular file of the tar.gz or zip ``archive`` (no links,
    devices or folders)."""
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as bundle:
            for info in bundle.infolist():
                if info.is_dir() or (info.external_attr >> 28) == 0xA:  # a folder or a symlink
                    continue
                yield info.filename, functools.partial(bundle.open, info)
        return
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar:
            if member.isreg():
                yield member.name, functools.partial(_tar_file, tar, member)


def _tar_file(tar: tarfile.TarFile, member: tarfile.TarInfo) -> IO[bytes]:
    found = tar.extractfile(member)
    assert found is not None  # a regular file
    return found


def extract_images(
    archive: Path,
    target: Path,
    folders: tuple[str, ...] = ("Tests/images",),
    keep: Callable[[PurePosixPath], bool] = lambda path: True,
) -> int:
    """Extract the regular files under ``folders`` of ``archive`` (a tar.gz or zip source
    distribution; each folder relative to its top folder) that ``keep`` accepts into
    ``target``, at their paths under that folder.

    Links, devices, absolute paths and ``..`` components are never extracted; a member whose
    resolved destination would leave ``target`` fails. Returns the number of files written.
    """
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    root = target.resolve()
    count = 0
    for name, open_member in _members(archive):
        relative = _member_path(name, folders)
        if relative is None or not keep(relative):
            continue
        destination = (root / relative).resolve()
        if root not in destination.parents:
            pytest.fail(f"unsafe member {name!r} in {archive.name}")
        destination.parent.mkdir(parents=True, exist_ok=True)
        with open_member() as source, open(destination, "xb") as out:
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


def _sdist_images(
    request: pytest.FixtureRequest,
    factory: pytest.TempPathFactory,
    sdist: tuple[str, str, str],
    folders: tuple[str, ...],
    keep: Callable[[PurePosixPath], bool] = lambda path: True,
    images: Path | None = None,
) -> Path:
    """The folder (``images``, by default ``NAME-VERSION-images`` in the corpus cache) of the
    files under ``folders`` of the sdist ``(name, version, archive glob)``, downloaded and
    extracted once."""
    name, version, archive_glob = sdist
    base = _cache_folder(request, factory)
    images = images or base / f"{name}-{version}-images"
    if not (images / _COMPLETE).is_file():
        download = base / f"download-{name}"
        archive = _download(f"{name}=={version}", archive_glob, download)
        extract_images(archive, images, folders, keep)
        shutil.rmtree(download, ignore_errors=True)  # the extracted files are what is kept
    return images


@pytest.fixture(scope="session")
def pillow_corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding the installed Pillow's ``Tests/images`` (cached across runs)."""
    version = PIL.__version__
    sdist = ("pillow", version, f"[pP]illow-{version}.tar.gz")
    return _sdist_images(request, tmp_path_factory, sdist, ("Tests/images",))


#: The distribution whose sdist holds the camera photos (``tests/images``): piexif's test
#: images, JPEGs from Canon, Casio, Olympus, Panasonic, Pentax, Ricoh, Sigma and Sony cameras
#: with their maker notes, a TIFF with EXIF, and a few without any.
CAMERA_SDIST = ("piexif", "1.1.3", "piexif-1.1.3.zip")


@pytest.fixture(scope="session")
def camera_corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding piexif's camera test images (cached across runs, as the corpus)."""
    return _sdist_images(request, tmp_path_factory, CAMERA_SDIST, ("tests/images",))


#: Source distributions holding image files other programs wrote, and the folders of them
#: kept: ImageMagick's (Wand's test assets and the pictures of its documentation: photos,
#: a CMYK JPEG, EXIF orientations, animated GIFs, icons, effects written as JPEG, PNG and GIF),
#: small files of many formats from imagesize and filetype (JPEG 2000, AVIF, WebP VP8X,
#: ASCII PNM, multi-page and rotated TIFFs), and pillow-heif's 16-bit PNGs and XMP-tagged
#: JPEG, PNG, TIFF and WebP files.
PROGRAM_SDISTS = (
    (("wand", "0.7.2", "[wW]and-0.7.2.tar.gz"), ("tests/assets", "docs/_images", "docs/_static")),
    (("imagesize", "2.0.1", "imagesize-2.0.1.tar.gz"), ("test/images",)),
    (("filetype", "1.2.0", "filetype-1.2.0.tar.gz"), ("tests/fixtures",)),
    (("pillow-heif", "1.9.0", "pillow_heif-1.9.0.tar.gz"), ("tests/images/non_heif",)),
)


def _image_extension(path: PurePosixPath) -> bool:
    return path.suffix.lower() in PILImage.registered_extensions()


@pytest.fixture(scope="session")
def program_corpus(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A folder of the image files of :data:`PROGRAM_SDISTS`, one subfolder per distribution
    (cached across runs, as the corpus; files under an extension no Pillow format has, such
    as the videos and archives beside them, are left out)."""
    base = _cache_folder(request, tmp_path_factory) / "programs-images"
    for sdist, folders in PROGRAM_SDISTS:
        name, version, _ = sdist
        images = base / f"{name}-{version}"
        _sdist_images(request, tmp_path_factory, sdist, folders, _image_extension, images)
    return base


@dataclasses.dataclass(frozen=True)
class RealCorpus:
    """One folder of real files: ``pillow`` (:func:`pillow_corpus`) or ``program``
    (:func:`program_corpus`)."""

    name: str
    root: Path

    def check_found(self, found: Sized | int, what: str, **least: int) -> None:
        """Fail unless this corpus gave at least ``least[name]`` ``what`` (files, or a count of
        cases): a download that kept too few files fails, not passes over nothing."""
        count, wanted = found if isinstance(found, int) else len(found), least[self.name]
        assert count >= wanted, (
            f"{count} {what} in the {self.name} corpus, where at least {wanted} are expected"
        )


@pytest.fixture(scope="session", params=["pillow", "program"], ids=["pillow-tests", "programs"])
def real_corpus(request: pytest.FixtureRequest) -> RealCorpus:
    """Each folder of real files in turn: Pillow's test images, then other programs' files."""
    return RealCorpus(request.param, Path(request.getfixturevalue(f"{request.param}_corpus")))


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


def files_up_to(real_corpus: RealCorpus, max_pixels: int) -> list[Path]:
    """The corpus files Pillow opens whose header has at most ``max_pixels`` pixels, checked
    to be as many as a full download gives (900 of Pillow's, 200 of other programs')."""
    files = opened_files(
        real_corpus.root, lambda opened: opened.size[0] * opened.size[1] <= max_pixels
    )
    real_corpus.check_found(files, "files", pillow=900, program=200)
    return files


def first_frames(path: Path) -> list[int]:
    """The frames a corpus case runs on: ``[0, 1]`` for a file Pillow counts several frames in,
    else ``[0]`` (a count that raises too)."""
    with PILImage.open(path) as header:
        try:
            return [0, 1] if getattr(header, "n_frames", 1) > 1 else [0]
        except Exception:  # Pillow's count raises on this file: its first frame only
            return [0]


def outcome(module: Any, path: Path, use: Callable[[Any], Any]) -> Any:
    """``use(image)`` of ``module.open(path)`` (closed after), or the type name of what it
    raised: a corpus case's answer, compared across Pillow and pillow_gpu."""
    try:
        with contextlib.closing(module.open(path)) as image:
            return use(image)
    except Exception as error:  # the exception type is the answer
        return type(error).__name__
