"""Lowerings: one module per operation family, mirroring :mod:`pillow_gpu.gpu.kernels`.

Each module exports ``LOWERINGS`` (recorded operation -> lowering) and ``ROUTES`` (its rows of
the native route table). They are joined here into the one :data:`LOWERINGS` table the planner
dispatches on and the one :data:`ROUTES` table ``docs/routes.md`` is generated from; a family
is added by writing its module and listing it in :data:`_FAMILIES`.
"""

from __future__ import annotations

from types import ModuleType

from pillow_gpu.gpu._layout import NATIVE_MODES, WIDE_MODES
from pillow_gpu.gpu.lowering import (
    affine,
    autocontrast,
    bands,
    chops,
    composite,
    contrast,
    convert,
    equalize,
    filters,
    geometry,
    indexed,
    limited,
    pointwise,
    resample,
    wide,
)
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route

__all__ = ["LEAF_ROUTE", "LOWERINGS", "ROUTES", "Inputs", "Lowering", "Route"]

#: Leaves have no lowering: the planner uploads or fills them.
LEAF_ROUTE = Route(
    operation="leaf upload / Image.new / cached result",
    modes=(*NATIVE_MODES, *WIDE_MODES),
    kernel="fill",
    contexts="decoded or PIL pixels uploaded once (L, LA, P, 1 and I;16* as Pillow's packed "
    "bytes, widened by unpack); Image.new filled on the device",
)

#: The families, in the order docs/routes.md lists them.
_FAMILIES: tuple[ModuleType, ...] = (
    pointwise,
    geometry,
    resample,
    affine,
    convert,
    indexed,
    bands,
    chops,
    composite,
    filters,
    contrast,
    equalize,
    autocontrast,
    wide,
    limited,
)


def _joined() -> dict[str, Lowering]:
    table: dict[str, Lowering] = {}
    for family in _FAMILIES:
        for op, lowering in getattr(family, "LOWERINGS", {}).items():
            if op in table:
                msg = f"operation {op!r} is lowered by two families ({family.__name__})"
                raise RuntimeError(msg)
            table[op] = lowering
    return table


#: Recorded operation -> its lowering (operations not listed have no GPU route).
LOWERINGS: dict[str, Lowering] = _joined()
#: The native route table: anything not listed here is rejected as Unsupported.
ROUTES: tuple[Route, ...] = (LEAF_ROUTE, *(row for f in _FAMILIES for row in f.ROUTES))
