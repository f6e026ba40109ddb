"""Architecture-independent inference core for pixtreme.

Architectures live in separate distributions and are imported only on attribute access:
``pixtreme.infer.example`` imports the ``pixtreme-arch-example`` distribution's module the
first time it is touched. Importing this package imports no architecture module, no
onnxruntime, no NVML and no TensorRT.
"""

from pkgutil import extend_path
from types import ModuleType as _ModuleType

from pixtreme.infer import _dispatch

# Architecture distributions add modules under pixtreme/infer/. In an editable (workspace)
# install each lives in its own src/ folder, so this package extends its own __path__ too.
__path__ = extend_path(__path__, __name__)

__all__ = ("ARCHITECTURES",)

ARCHITECTURES = _dispatch.ARCHITECTURES
"""Known architecture attribute names mapped to the distribution that provides each."""


def __getattr__(name: str) -> _ModuleType:
    module = _dispatch.resolve(__name__, name)
    globals()[name] = module
    return module


def __dir__() -> list[str]:
    return sorted({*globals(), *_dispatch.ARCHITECTURES, *_dispatch.CORE_MODULES})
