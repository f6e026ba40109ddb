"""Archive inventories, distribution policies and the static public-contract check.

inspect_wheel and inspect_sdist read a built archive without importing, building or extracting
it (see the limits MAX_MEMBER_BYTES, MAX_INFLATION_RATIO and MAX_ARCHIVE_MEMBERS);
verify_distribution applies the caller's policy to the inventory; and
scan_public_contract_references checks that architecture sources use only public core names.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from pixtreme.infer.verification._archives import (
    MAX_ARCHIVE_MEMBERS,
    MAX_INFLATION_RATIO,
    MAX_MEMBER_BYTES,
    DistributionInventory,
    _normalized,
    inspect_sdist,
    inspect_wheel,
)
from pixtreme.infer.verification._results import (
    CheckResult,
    CheckStatus,
    VerificationFinding,
    VerificationInputError,
    VerificationReport,
    _finding,
)
from pixtreme.infer.verification._scan import scan_public_contract_references

_CORE_DISTRIBUTION = "pixtreme-infer"
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?([^;]*)(?:;(.*))?\Z")


@dataclass(frozen=True)
class DistributionPolicy:
    """What one distribution's archive must be called and must not contain.

    ``forbidden_suffixes`` end member names (``".so"``); ``forbidden_path_patterns`` are
    fnmatch patterns over member paths (``"pixtreme/__init__.py"``);
    ``required_core_extras`` are extras of pixtreme-infer the distribution must require
    unconditionally (``pixtreme-infer[ort]``), as an architecture does for the core
    capabilities it uses.
    """

    expected_name: str
    forbidden_suffixes: tuple[str, ...] = ()
    forbidden_path_patterns: tuple[str, ...] = ()
    required_core_extras: frozenset[str] = frozenset()


def _policy_error(what: str, how: str) -> VerificationInputError:
    return VerificationInputError(
        "distribution-policy", why="a distribution policy is checked before use", what=what, how=how
    )


def _checked_policy(policy: DistributionPolicy) -> None:
    if not isinstance(policy.expected_name, str) or not policy.expected_name:
        raise _policy_error(f"expected_name={policy.expected_name!r}", "name the distribution")
    for suffix in policy.forbidden_suffixes:
        if not isinstance(suffix, str) or not suffix or "/" in suffix or "\\" in suffix:
            raise _policy_error(
                f"forbidden suffix {suffix!r}", "use nonempty suffixes without path separators"
            )
    for pattern in policy.forbidden_path_patterns:
        posix = PurePosixPath(pattern) if isinstance(pattern, str) else None
        if (
            posix is None
            or not pattern
            or "\\" in pattern
            or "\x00" in pattern
            or posix.is_absolute()
            or ".." in posix.parts
            or posix.as_posix() != pattern
        ):
            raise _policy_error(
                f"forbidden path pattern {pattern!r}", "use canonical relative POSIX patterns"
            )
    for extra in policy.required_core_extras:
        if not isinstance(extra, str) or not extra:
            raise _policy_error(f"required core extra {extra!r}", "name each extra")


def _core_extras(requires_dist: tuple[str, ...]) -> set[str]:
    """Extras of pixtreme-infer named by unconditional requirements on it."""
    extras: set[str] = set()
    for requirement in requires_dist:
        match = _REQUIREMENT.match(requirement)
        if match is None or _normalized(match.group(1)) != _CORE_DISTRIBUTION:
            continue
        marker = match.group(4) or ""
        if "extra" in marker:
            continue
        extras.update(_normalized(item.strip()) for item in (match.group(2) or "").split(","))
    extras.discard("")
    return extras


def verify_distribution(
    inventory: DistributionInventory, policy: DistributionPolicy, /
) -> VerificationReport:
    """Apply ``policy`` to ``inventory``: its name, forbidden members and required core extras.

    One check named after the distribution in scope ``distribution``. Native artifacts are
    not prescribed; the caller's policy decides what is forbidden.
    """
    if not isinstance(inventory, DistributionInventory) or not isinstance(
        policy, DistributionPolicy
    ):
        raise _policy_error(
            f"received {type(inventory).__name__} and {type(policy).__name__}",
            "pass an inventory from inspect_wheel/inspect_sdist and a DistributionPolicy",
        )
    _checked_policy(policy)
    findings: list[VerificationFinding] = []
    expected = _normalized(policy.expected_name)
    if inventory.name != expected:
        findings.append(
            _finding(
                "distribution-name",
                "Name",
                inventory.name,
                expected,
                "the archive's metadata names another distribution",
            )
        )
    for path in inventory.files:
        findings.extend(
            _finding("forbidden-suffix", path, suffix, None, "the member has a forbidden suffix")
            for suffix in policy.forbidden_suffixes
            if path.endswith(suffix)
        )
        findings.extend(
            _finding("forbidden-path", path, pattern, None, "the member path is forbidden")
            for pattern in policy.forbidden_path_patterns
            if fnmatch.fnmatchcase(path, pattern)
        )
    if policy.required_core_extras:
        declared = _core_extras(inventory.requires_dist)
        missing = sorted({_normalized(extra) for extra in policy.required_core_extras} - declared)
        if missing:
            findings.append(
                _finding(
                    "core-extra-missing",
                    "Requires-Dist",
                    sorted(declared),
                    missing,
                    f"the distribution does not require {_CORE_DISTRIBUTION}[{','.join(missing)}]",
                )
            )
    status: CheckStatus = "failed" if findings else "passed"
    return VerificationReport(
        "distribution", (CheckResult(inventory.name, status, tuple(findings)),)
    )


__all__ = [
    "MAX_ARCHIVE_MEMBERS",
    "MAX_INFLATION_RATIO",
    "MAX_MEMBER_BYTES",
    "DistributionInventory",
    "DistributionPolicy",
    "inspect_sdist",
    "inspect_wheel",
    "scan_public_contract_references",
    "verify_distribution",
]
