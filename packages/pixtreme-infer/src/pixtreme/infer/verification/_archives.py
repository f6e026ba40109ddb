"""Read built wheels and sdists without importing, building or extracting them.

Hostile archives are expected. Every member path must be a canonical relative POSIX path;
links and special files are refused; every member read is bounded by MAX_MEMBER_BYTES and,
above a small floor, by MAX_INFLATION_RATIO of its stored size; an sdist's members together
may inflate to at most MAX_INFLATION_RATIO times the archive (plus MAX_MEMBER_BYTES); an archive
holds at most MAX_ARCHIVE_MEMBERS members. Only the one top-level ``<name>-<version>.dist-info/``
folder of a wheel is metadata.

Errors: VerificationInputError for archive content that breaks these rules (the message starts
with ``archive-...``), VerificationExecutionError for an archive that cannot be read at all
(missing, truncated, corrupt).
"""

from __future__ import annotations

import bz2
import configparser
import gzip
import io
import lzma
import os
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import policy
from email.parser import HeaderParser
from pathlib import Path, PurePosixPath
from typing import IO, Any, Literal, NoReturn, cast

from pixtreme.infer.verification._results import (
    VerificationExecutionError,
    VerificationInputError,
)

MAX_MEMBER_BYTES = 16 * 1024 * 1024
"""The most bytes read from one archive member (METADATA, PKG-INFO, entry_points.txt)."""
MAX_INFLATION_RATIO = 200
"""The most a member (wheel) or the whole archive (sdist) may inflate over its stored size."""
MAX_ARCHIVE_MEMBERS = 100_000
"""The most members an archive may hold."""

_RATIO_FLOOR = 64 * 1024  # members this small are never refused for their ratio
_NAME_SEPARATORS = re.compile(r"[-_.]+")
_UNFOLD = re.compile(r"\r?\n(?=[ \t])")
# Corrupt or unreadable archives raise these from the standard library's readers.
_READ_ERRORS = (
    OSError,
    EOFError,
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    tarfile.TarError,
    zlib.error,
    lzma.LZMAError,
    struct.error,
    RuntimeError,
    OverflowError,
)


@dataclass(frozen=True)
class DistributionInventory:
    """What a built distribution declares and contains (member paths relative to its root)."""

    kind: Literal["wheel", "sdist"]
    source: Path = field(compare=False)
    files: tuple[str, ...]
    name: str
    version: str
    requires_dist: tuple[str, ...]
    extras: tuple[str, ...]
    console_scripts: tuple[tuple[str, str], ...]


def _normalized(name: str) -> str:
    return _NAME_SEPARATORS.sub("-", name).lower()


def _refuse(code: str, source: Path, what: str, how: str) -> NoReturn:
    raise VerificationInputError(
        code,
        why="a distribution is judged from archive content that follows the packaging rules",
        what=f"{source.name}: {what}",
        how=how,
    )


def _member_path(source: Path, raw: object) -> str:
    """``raw`` when it is a canonical relative POSIX path of valid UTF-8 text."""
    problem = None
    if not isinstance(raw, str) or not raw:
        problem = "is empty"
    elif "\\" in raw or "\x00" in raw:
        problem = "holds a backslash or NUL byte"
    else:
        posix = PurePosixPath(raw)
        if posix.is_absolute() or ".." in posix.parts or posix.as_posix() != raw:
            problem = "is absolute, climbs with '..' or is not canonical"
        else:
            try:
                raw.encode("utf-8")
            except UnicodeEncodeError:
                problem = "is not valid UTF-8"
    if problem is not None:
        _refuse(
            "archive-path",
            source,
            f"member path {raw!r} {problem}",
            "rebuild the distribution with a standard build backend",
        )
    return raw  # type: ignore[return-value]


def _bounded(source: Path, member: str, stream: IO[bytes], stored: int, declared: int) -> bytes:
    """Read one member, refusing more than MAX_MEMBER_BYTES or an excessive inflation."""
    if declared > MAX_MEMBER_BYTES:
        _refuse(
            "archive-limit",
            source,
            f"{member} declares {declared} bytes, above the {MAX_MEMBER_BYTES}-byte limit",
            "metadata files are small; rebuild the distribution",
        )
    data = stream.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        _refuse(
            "archive-limit",
            source,
            f"{member} holds more than {MAX_MEMBER_BYTES} bytes",
            "metadata files are small; rebuild the distribution",
        )
    if len(data) > _RATIO_FLOOR and len(data) > MAX_INFLATION_RATIO * max(stored, 1):
        _refuse(
            "archive-limit",
            source,
            f"{member} inflates from {stored} to {len(data)} bytes, more than "
            f"{MAX_INFLATION_RATIO} times",
            "this looks like a decompression bomb; rebuild the distribution",
        )
    return data


class _KeepCase(configparser.ConfigParser):
    def optionxform(self, optionstr: str) -> str:
        return optionstr


def _text(source: Path, member: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        _refuse(
            "archive-metadata",
            source,
            f"{member} is not UTF-8 (byte {error.start})",
            "metadata files are UTF-8; rebuild the distribution",
        )


def _console_scripts(source: Path, member: str, data: bytes | None) -> tuple[tuple[str, str], ...]:
    if data is None:
        return ()
    parser = _KeepCase(interpolation=None)
    try:
        parser.read_string(_text(source, member, data), source=member)
        if not parser.has_section("console_scripts"):
            return ()
        items = parser.items("console_scripts")
    except (configparser.Error, ValueError) as error:
        if isinstance(error, VerificationInputError):
            raise
        _refuse(
            "archive-entry-points",
            source,
            f"{member} is not a valid entry-points file: {type(error).__name__}",
            "write entry points as an INI file with unique sections and keys",
        )
    return tuple(sorted((name, (target or "").strip()) for name, target in items))


def _header(value: object) -> str:
    return _UNFOLD.sub("", str(value)).strip()


def _inventory(
    kind: Literal["wheel", "sdist"],
    source: Path,
    files: tuple[str, ...],
    metadata: tuple[str, bytes],
    scripts: tuple[str, bytes | None],
) -> DistributionInventory:
    member, data = metadata
    headers = HeaderParser(policy=policy.compat32).parsestr(_text(source, member, data))
    name, version = _header(headers.get("Name", "")), _header(headers.get("Version", ""))
    if not name or not version:
        _refuse(
            "archive-metadata",
            source,
            f"{member} lacks Name or Version",
            "rebuild the distribution; core metadata names both",
        )
    return DistributionInventory(
        kind=kind,
        source=source,
        files=tuple(sorted(files)),
        name=_normalized(name),
        version=version,
        requires_dist=tuple(_header(item) for item in headers.get_all("Requires-Dist") or ()),
        extras=tuple(
            sorted({_normalized(_header(item)) for item in headers.get_all("Provides-Extra") or ()})
        ),
        console_scripts=_console_scripts(source, scripts[0], scripts[1]),
    )


@contextmanager
def _reading(source: Path, kind: str) -> Iterator[None]:
    """Turn the standard library's read failures into the documented error types."""
    try:
        yield
    except VerificationInputError:
        raise
    except NotImplementedError as error:
        _refuse(
            "archive-compression",
            source,
            f"a member uses an unsupported compression method ({error})",
            "rebuild the distribution with deflate compression",
        )
    except UnicodeDecodeError as error:
        _refuse(
            "archive-path",
            source,
            f"a member name is not valid UTF-8 ({error.reason})",
            "rebuild the distribution with UTF-8 member names",
        )
    except (*_READ_ERRORS, ValueError) as error:
        raise VerificationExecutionError(
            "archive-read",
            why=f"a {kind} is inspected by reading its archive",
            what=f"{source}: {type(error).__name__}: {error}",
            how="download or build the archive again; it is missing, truncated or corrupt",
        ) from error


def _source(path: object) -> Path:
    try:
        return Path(path)  # type: ignore[arg-type]
    except TypeError as error:
        raise VerificationInputError(
            "archive-path",
            why="an archive is named by a filesystem path",
            what=f"received {type(path).__name__}",
            how="pass a str or Path",
        ) from error


def _wheel_metadata_folder(source: Path, files: Mapping[str, zipfile.ZipInfo]) -> str:
    folders = sorted({name.split("/", 1)[0] for name in files if "/" in name})
    dist_infos = [folder for folder in folders if folder.endswith(".dist-info")]
    if len(dist_infos) != 1 or f"{dist_infos[0]}/METADATA" not in files:
        _refuse(
            "archive-metadata",
            source,
            f"expected one top-level <name>-<version>.dist-info/METADATA, found {dist_infos}",
            "rebuild the wheel with a standard build backend",
        )
    return dist_infos[0]


def inspect_wheel(path: str | os.PathLike[str], /) -> DistributionInventory:
    """Read a wheel's member paths and core metadata without importing anything from it."""
    source = _source(path)
    with _reading(source, "wheel"), zipfile.ZipFile(source) as archive:
        members: dict[str, zipfile.ZipInfo] = {}
        infos = archive.infolist()
        if len(infos) > MAX_ARCHIVE_MEMBERS:
            _refuse(
                "archive-limit",
                source,
                f"{len(infos)} members, above the {MAX_ARCHIVE_MEMBERS}-member limit",
                "a wheel this large is not a Python distribution",
            )
        for info in infos:
            if info.is_dir():
                continue
            name = _member_path(source, info.filename)
            if stat.S_ISLNK(info.external_attr >> 16):
                _refuse(
                    "archive-link", source, f"{name} is a symbolic link", "ship regular files only"
                )
            if name in members:
                _refuse("archive-member", source, f"duplicate member {name!r}", "rebuild the wheel")
            members[name] = info
        folder = _wheel_metadata_folder(source, members)
        dist_name = folder.removesuffix(".dist-info").rpartition("-")[0]

        def read(member: str) -> bytes:
            info = members[member]
            with archive.open(info) as stream:
                return _bounded(source, member, stream, info.compress_size, info.file_size)

        metadata = (f"{folder}/METADATA", read(f"{folder}/METADATA"))
        scripts_member = f"{folder}/entry_points.txt"
        scripts = (scripts_member, read(scripts_member) if scripts_member in members else None)
    inventory = _inventory("wheel", source, tuple(members), metadata, scripts)
    if _normalized(dist_name) != inventory.name:
        _refuse(
            "archive-metadata",
            source,
            f"the metadata folder {folder!r} does not belong to {inventory.name!r}",
            "rebuild the wheel with a standard build backend",
        )
    return inventory


class _Capped(io.RawIOBase):
    """A seekable decompressed stream that refuses to reach past ``budget`` bytes.

    tarfile reads headers (pax and GNU long names included) and skips member data through
    this stream, so no position past the budget is ever decompressed or allocated.
    """

    def __init__(self, inner: IO[bytes], budget: int, source: Path) -> None:
        super().__init__()
        self._inner, self._budget, self._source = inner, budget, source

    def _check(self, position: int) -> None:
        if position > self._budget:
            _refuse(
                "archive-limit",
                self._source,
                f"members inflate past {self._budget} bytes "
                f"({MAX_INFLATION_RATIO} times the archive plus {MAX_MEMBER_BYTES})",
                "this looks like a decompression bomb; rebuild the sdist",
            )

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._inner.tell()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = offset if whence == io.SEEK_SET else self._inner.tell() + offset
        if whence not in (io.SEEK_SET, io.SEEK_CUR):
            raise OSError("only absolute and relative seeks are supported")
        self._check(target)
        return self._inner.seek(target)

    def read(self, size: int | None = -1) -> bytes:
        wanted = self._budget + 1 - self._inner.tell() if size is None or size < 0 else size
        self._check(self._inner.tell() + wanted - 1)
        return self._inner.read(wanted)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _decompressed(raw: IO[bytes]) -> IO[bytes]:
    magic = raw.read(6)
    raw.seek(0)
    if magic.startswith(b"\x1f\x8b"):
        return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
    if magic.startswith(b"BZh"):
        return cast(IO[bytes], bz2.BZ2File(raw))
    if magic.startswith(b"\xfd7zXZ\x00"):
        return cast(IO[bytes], lzma.LZMAFile(raw))
    return raw


class _SdistReader:
    """Walks an sdist's members once, enforcing the limits and keeping the metadata bytes."""

    def __init__(self, source: Path, archive: tarfile.TarFile) -> None:
        self.source = source
        self.archive = archive
        self.files: list[str] = []
        self.wrappers: set[str] = set()
        self.wanted: dict[str, bytes] = {}
        self._seen: set[str] = set()

    def _member(self, member: tarfile.TarInfo) -> None:
        if member.isdir():
            return
        raw = _member_path(self.source, member.name)
        if member.issym() or member.islnk():
            _refuse(
                "archive-link",
                self.source,
                f"{raw} is a {'symbolic' if member.issym() else 'hard'} link",
                "ship regular files only; a link could hide a forbidden path",
            )
        if not member.isfile():
            _refuse(
                "archive-member",
                self.source,
                f"{raw} is not a regular file",
                "ship regular files only",
            )
        wrapper, _, relative = raw.partition("/")
        if not relative:
            _refuse(
                "archive-wrapper",
                self.source,
                f"{raw} is outside the single top-level folder",
                "put every member under <name>-<version>/",
            )
        if relative in self._seen:
            _refuse(
                "archive-member", self.source, f"duplicate member {relative!r}", "rebuild the sdist"
            )
        self._seen.add(relative)
        self.wrappers.add(wrapper)
        self.files.append(relative)
        if relative == "PKG-INFO" or relative.endswith(".egg-info/entry_points.txt"):
            stream = self.archive.extractfile(member)
            if stream is None:
                _refuse(
                    "archive-metadata", self.source, f"{raw} cannot be read", "rebuild the sdist"
                )
            with stream:
                self.wanted[relative] = _bounded(self.source, raw, stream, member.size, member.size)

    def walk(self) -> None:
        for count, member in enumerate(self.archive, start=1):
            if count > MAX_ARCHIVE_MEMBERS:
                _refuse(
                    "archive-limit",
                    self.source,
                    f"more than {MAX_ARCHIVE_MEMBERS} members",
                    "an sdist this large is not a Python distribution",
                )
            self._member(member)


def inspect_sdist(path: str | os.PathLike[str], /) -> DistributionInventory:
    """Read an sdist's members under its one wrapper folder and its root PKG-INFO."""
    source = _source(path)
    with _reading(source, "sdist"), source.open("rb") as raw:
        budget = MAX_INFLATION_RATIO * max(source.stat().st_size, 1) + MAX_MEMBER_BYTES
        with (
            _decompressed(raw) as stream,
            tarfile.open(fileobj=_Capped(stream, budget, source), mode="r:") as archive,
        ):
            reader = _SdistReader(source, archive)
            reader.walk()
    if len(reader.wrappers) != 1 or "PKG-INFO" not in reader.wanted:
        _refuse(
            "archive-metadata",
            source,
            f"expected one wrapper folder with a PKG-INFO, found folders {sorted(reader.wrappers)}",
            "rebuild the sdist with a standard build backend",
        )
    scripts = sorted(name for name in reader.wanted if name != "PKG-INFO")
    if len(scripts) > 1:
        _refuse(
            "archive-entry-points",
            source,
            f"several entry-point files {scripts}",
            "keep one .egg-info folder",
        )
    script = (scripts[0], reader.wanted[scripts[0]]) if scripts else ("entry_points.txt", None)
    return _inventory(
        "sdist", source, tuple(reader.files), ("PKG-INFO", reader.wanted["PKG-INFO"]), script
    )
