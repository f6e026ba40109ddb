"""Host side of ``binary64.wgsli``: doubles as the IEEE words the kernels unpack."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["double_words"]


def double_words(values: npt.ArrayLike) -> npt.NDArray[np.uint32]:
    """Each double of ``values`` as its (low, high) little-endian u32 words, flattened in
    order: what ``f64_from_bits(lo, hi)`` reads."""
    return np.ascontiguousarray(values, dtype="<f8").reshape(-1).view("<u4")
