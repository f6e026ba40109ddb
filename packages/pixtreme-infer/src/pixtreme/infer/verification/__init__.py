"""Architecture-independent verification: contracts, measurement, comparison, records and
distribution checks, plus the architecture hook behind ``pixtreme-infer verify``.

Importing this package needs no GPU, onnxruntime or NVML; those load only when used.
"""

from __future__ import annotations

from . import comparison, contracts, distribution, measurement, records
from ._architecture import (
    HOOK_NAME,
    ArchitectureCases,
    verify_architecture,
    verify_cases,
    verify_module,
)
from ._results import overall_status
from .comparison import *  # noqa: F403
from .contracts import *  # noqa: F403
from .distribution import *  # noqa: F403
from .measurement import *  # noqa: F403
from .records import *  # noqa: F403

__all__ = [  # noqa: PLE0604 (starred lists, as published, read by the static scan)
    *contracts.__all__,
    *measurement.__all__,
    *comparison.__all__,
    *records.__all__,
    *distribution.__all__,
    "HOOK_NAME",
    "ArchitectureCases",
    "overall_status",
    "verify_architecture",
    "verify_cases",
    "verify_module",
]
