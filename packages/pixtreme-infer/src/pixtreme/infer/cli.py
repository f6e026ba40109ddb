"""The ``pixtreme-infer`` command: ``list`` architectures and extras, ``verify <arch>``."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TextIO

from pixtreme.infer import _dispatch
from pixtreme.infer.errors import ArchitectureNotInstalledError

__all__ = ("main",)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
RECORD_KIND = "verification"
RECORD_VERSION = 1


def _module_available(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _distribution_version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def _table(rows: Sequence[Sequence[str]], out: TextIO) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for index, row in enumerate(rows):
        out.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() + "\n")
        if index == 0:
            out.write("  ".join("-" * width for width in widths) + "\n")


def _nvml_state() -> str:
    if not _module_available("pynvml"):
        return "no: pip install 'pixtreme-infer[verify]'"
    from pixtreme.infer.errors import TelemetryUnavailableError
    from pixtreme.infer.verification._telemetry import NvidiaTelemetrySource

    try:
        source = NvidiaTelemetrySource()
    except TelemetryUnavailableError as error:
        return f"installed, unusable: {error.what}"
    source.close()
    return f"yes ({source.device_uuid})"


def _list(out: TextIO) -> int:
    rows = [["architecture", "distribution", "installed"]]
    for name, distribution in sorted(_dispatch.ARCHITECTURES.items()):
        found = _module_available(f"pixtreme.infer.{name}")
        installed = _distribution_version(distribution)
        state = f"yes ({installed})" if found and installed else "yes" if found else "no"
        rows.append([name, distribution, state if found else f"no: pip install {distribution}"])
    _table(rows, out)
    out.write("\n")
    ort = _module_available("onnxruntime")
    extras = [
        ["extra", "usable here"],
        ["ort", "yes" if ort else "no: pip install 'pixtreme-infer[ort]'"],
        ["verify", _nvml_state()],
    ]
    _table(extras, out)
    return EXIT_OK


def _first_finding(check: object) -> str:
    from pixtreme.infer.verification import CheckResult

    assert isinstance(check, CheckResult)
    if not check.findings:
        return check.detail
    finding = check.findings[0]
    detail = finding.detail or str(finding.observed)
    if "what=" in detail:  # an actionable message: its "what" part says the most in a table
        detail = detail.split("what=", 1)[1].split("; how=", 1)[0]
    text = f"{finding.code}: {detail}"
    return text if len(text) <= 90 else text[:87] + "..."


def _verify(name: str, output: Path | None, strict: bool, out: TextIO, err: TextIO) -> int:
    from pixtreme.infer.verification._architecture import verify_architecture
    from pixtreme.infer.verification._records import record_header, validate_record, write_record
    from pixtreme.infer.verification._results import CheckStatus, overall_status

    if name not in _dispatch.ARCHITECTURES:
        known = ", ".join(sorted(_dispatch.ARCHITECTURES))
        err.write(
            f"pixtreme-infer verify: {name!r} is not a known architecture (known: {known})."
            f"{_dispatch.suggestion(name)}\n"
        )
        return EXIT_USAGE
    try:
        reports = verify_architecture(name)
    except ArchitectureNotInstalledError as error:
        err.write(f"pixtreme-infer verify: {error}\n")
        return EXIT_USAGE
    rows = [["scope", "check", "status", "finding"]]
    rows.extend(
        [report.scope, check.name, check.status.value, _first_finding(check)]
        for report in reports
        for check in report.checks
    )
    _table(rows, out)
    status = overall_status(tuple(report.status for report in reports))
    counts = {
        item.value: sum(c.status is item for r in reports for c in r.checks) for item in CheckStatus
    }
    record = {
        **record_header(RECORD_KIND, version=RECORD_VERSION),
        "architecture": name,
        "distribution": _dispatch.ARCHITECTURES[name],
        "distribution_version": _distribution_version(_dispatch.ARCHITECTURES[name]),
        "status": status.value,
        "counts": counts,
        "reports": [report.as_record() for report in reports],
    }
    target = output or Path(f"pixtreme-infer-verify-{name}.json")
    digest = write_record(target, validate_record(record, kind=RECORD_KIND, version=RECORD_VERSION))
    summary = ", ".join(f"{count} {label}" for label, count in counts.items())
    out.write(f"\n{name}: {status.value} ({summary})\nrecord: {target} sha256={digest}\n")
    if status is CheckStatus.FAILED or (strict and status is not CheckStatus.PASSED):
        return EXIT_FAILED
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pixtreme-infer", description="pixtreme-infer architectures and verification"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="known architectures, installed or not, and usable extras")
    verify = commands.add_parser("verify", help="run the verification an architecture publishes")
    verify.add_argument("architecture", help="architecture name, for example 'example'")
    verify.add_argument("--output", type=Path, help="where to write the canonical JSON record")
    verify.add_argument(
        "--strict", action="store_true", help="exit 1 when any check is unverified, too"
    )
    return parser


def main(
    argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run the command; returns the exit status (0 ok, 1 a check failed, 2 usage error)."""
    stdout = out or sys.stdout
    stderr = err or sys.stderr
    try:
        arguments = _parser().parse_args(argv)
    except SystemExit as error:
        return int(error.code) if isinstance(error.code, int) else EXIT_USAGE
    if arguments.command == "list":
        return _list(stdout)
    return _verify(arguments.architecture, arguments.output, arguments.strict, stdout, stderr)


def console_main() -> None:
    """Entry point of the ``pixtreme-infer`` console script."""
    raise SystemExit(main())


if __name__ == "__main__":
    console_main()
