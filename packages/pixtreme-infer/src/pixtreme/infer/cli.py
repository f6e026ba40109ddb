"""The ``pixtreme-infer`` command: ``list`` architectures and extras, ``verify <arch>``.

Exit status: 0 when verification passed (or, without ``--strict``, was unverified only),
1 when a check failed (with ``--strict``: also when any was unverified), 2 for a usage error
(an unknown or absent architecture, bad arguments), 3 when the record cannot be written.
A closed output pipe (``| head``) ends the command quietly.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import textwrap
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pixtreme.infer import _dispatch
from pixtreme.infer.errors import ArchitectureNotInstalledError

if TYPE_CHECKING:
    from pixtreme.infer.verification import VerificationReport

__all__ = ["main"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_IO = 3
_PIPE_CLOSED = 141  # what a shell reports for a process ended by SIGPIPE
_WIDTH = 100
_UNVERIFIED_MEANING = (
    "unverified means the evidence for a check could not be produced here (for example, no "
    "CUDA GPU or no TensorRT on this machine). It is not a pass: run the same command where the "
    "reason no longer applies."
)


class _UsageError(Exception):
    """A problem with the command line itself (exit status 2)."""


class _OutputError(Exception):
    """The record cannot be written where the user asked (exit status 3)."""


def _distribution_version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def _module_available(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _table(rows: Sequence[Sequence[str]], out: TextIO) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for index, row in enumerate(rows):
        out.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() + "\n")
        if index == 0:
            out.write("  ".join("-" * width for width in widths) + "\n")


def _nvml_state() -> str:
    if not _module_available("pynvml"):
        return "no: pip install 'pixtreme-infer[verify]'"
    from pixtreme.infer.verification.measurement import NvidiaTelemetrySource

    try:
        source = NvidiaTelemetrySource(0)
    except Exception as error:  # NVML reports a missing library or device in many ways
        cause = error.__cause__ or error
        return f"installed, no NVIDIA device: {type(cause).__name__}"
    return f"yes ({source.device})"


def _list(out: TextIO) -> int:
    rows = [["architecture", "distribution", "known through", "installed"]]
    for name, architecture in _dispatch.architectures().items():
        found = _module_available(architecture.module)
        installed = _distribution_version(architecture.distribution)
        state = (
            f"yes ({installed})"
            if found and installed
            else "yes"
            if found
            else f"no: pip install {architecture.distribution}"
        )
        rows.append([name, architecture.distribution, architecture.source, state])
    _table(rows, out)
    out.write("\n")
    extras = [
        ["extra", "usable here"],
        [
            "ort",
            "yes" if _module_available("onnxruntime") else "no: pip install 'pixtreme-infer[ort]'",
        ],
        ["verify", _nvml_state()],
    ]
    _table(extras, out)
    return EXIT_OK


def _check_output(path: Path | None) -> Path | None:
    """Refuse an output path that cannot take a record, before any verification runs."""
    if path is None:
        return None
    text = os.fspath(path)
    if not text or "\x00" in text:
        raise _OutputError(f"--output {text!r} is not a file name")
    target = Path(os.path.abspath(text))
    if target.is_dir():
        raise _OutputError(
            f"--output {text!r} is a folder; name a file in it, such as "
            f"{Path(text) / 'verify.json'}"
        )
    if target.exists() and not target.is_file():
        raise _OutputError(f"--output {text!r} exists and is not a regular file")
    if not target.parent.is_dir():
        raise _OutputError(f"the folder of --output {text!r} does not exist; create it first")
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise _OutputError(f"the folder of --output {text!r} is not writable")
    return target


def _finding_text(report: VerificationReport) -> list[tuple[str, str, str, str]]:
    rows: list[tuple[str, str, str, str]] = []
    for check in report.checks:
        finding = check.findings[0] if check.findings else None
        if finding is None:
            text = ""
        else:
            detail = str(finding.detail or finding.observed)
            if "what=" in detail:  # an actionable message: its "what" part says the most
                detail = detail.split("what=", 1)[1].split("; how=", 1)[0]
            more = f" (+{len(check.findings) - 1} more)" if len(check.findings) > 1 else ""
            text = f"{finding.code}: {detail}{more}"
        rows.append((report.scope, check.name, check.status, text))
    return rows


def _print_reports(reports: Sequence[VerificationReport], out: TextIO) -> None:
    """One line per check; a finding too long for the line follows it, wrapped and indented."""
    rows = [row for report in reports for row in _finding_text(report)]
    scope_width = max([len("scope"), *(len(row[0]) for row in rows)])
    name_width = max([len("check"), *(len(row[1]) for row in rows)])
    status_width = len("not-applicable")
    header = f"{'scope':<{scope_width}}  {'check':<{name_width}}  {'status':<{status_width}}"
    out.write(f"{header}  finding\n{'-' * min(len(header) + 9, _WIDTH)}\n")
    for scope, name, status, text in rows:
        lead = f"{scope:<{scope_width}}  {name:<{name_width}}  {status:<{status_width}}  "
        if len(lead) + len(text) <= _WIDTH:
            out.write((lead + text).rstrip() + "\n")
            continue
        out.write(lead.rstrip() + "\n")
        out.write(
            textwrap.fill(text, width=_WIDTH, initial_indent="    ", subsequent_indent="    ")
            + "\n"
        )


def _verify(name: str, output: Path | None, strict: bool, out: TextIO, err: TextIO) -> int:
    from pixtreme.infer.verification import overall_status, verify_architecture
    from pixtreme.infer.verification.records import verification_record, write_record

    known = _dispatch.architectures()
    if name not in known:
        import difflib

        close = difflib.get_close_matches(name, list(known), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise _UsageError(
            f"{name!r} is not a known architecture (known: {', '.join(known)}).{hint}"
        )
    target = _check_output(output)
    try:
        reports = verify_architecture(name)
    except ArchitectureNotInstalledError as error:
        raise _UsageError(f"{error}") from error
    architecture = known[name]
    status = overall_status(reports)
    digest = ""
    if target is not None:
        record = verification_record(
            reports,
            architecture={
                "name": name,
                "module": architecture.module,
                "distribution": architecture.distribution,
                "distribution_version": _distribution_version(architecture.distribution),
            },
            artifacts={"record": target.name},
        )
        try:
            digest = write_record(target, record)
        except (OSError, ValueError, RuntimeError) as error:
            raise _OutputError(f"the record could not be written to {output}: {error}") from error
    _print_reports(reports, out)
    counts = {
        label: sum(check.status == label for report in reports for check in report.checks)
        for label in ("passed", "failed", "unverified", "not-applicable")
    }
    summary = ", ".join(f"{count} {label}" for label, count in counts.items())
    out.write(f"\n{name}: {status} ({summary})\n")
    if counts["unverified"]:
        out.write(textwrap.fill(_UNVERIFIED_MEANING, width=_WIDTH) + "\n")
    if target is not None and target.is_file():
        out.write(f"record: {target} sha256={digest}\n")
    if status == "failed" or (strict and status != "passed"):
        return EXIT_FAILED
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pixtreme-infer",
        description="pixtreme-infer architectures and verification",
        epilog="exit status: 0 ok, 1 a check failed, 2 usage error, 3 the record could not be "
        "written",
    )
    installed = _distribution_version("pixtreme-infer") or "unknown (not installed)"
    parser.add_argument("--version", action="version", version=f"pixtreme-infer {installed}")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="known architectures, installed or not, and usable extras")
    verify = commands.add_parser("verify", help="run the verification an architecture publishes")
    verify.add_argument("architecture", help="architecture name, for example 'example'")
    verify.add_argument(
        "--output", type=Path, help="write the canonical JSON record of the run to this file"
    )
    verify.add_argument(
        "--strict", action="store_true", help="exit 1 when any check is unverified, too"
    )
    return parser


def main(
    argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run the command and return its exit status (see the module docstring)."""
    stdout = out or sys.stdout
    stderr = err or sys.stderr
    try:
        arguments = _parser().parse_args(argv)
    except SystemExit as error:
        return int(error.code) if isinstance(error.code, int) else EXIT_USAGE
    try:
        if arguments.command == "list":
            return _list(stdout)
        return _verify(arguments.architecture, arguments.output, arguments.strict, stdout, stderr)
    except _UsageError as error:
        stderr.write(f"pixtreme-infer {arguments.command}: {error}\n")
        return EXIT_USAGE
    except _OutputError as error:
        stderr.write(f"pixtreme-infer {arguments.command}: {error}\n")
        return EXIT_IO


def console_main() -> None:
    """Entry point of the ``pixtreme-infer`` console script."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python's exit-time flush
        # of the closed stdout from printing a second traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = _PIPE_CLOSED
    raise SystemExit(status)


if __name__ == "__main__":
    console_main()
