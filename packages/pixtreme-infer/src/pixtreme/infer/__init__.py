"""Architecture-independent inference core for pixtreme."""

from pkgutil import extend_path

# Architecture distributions add modules under pixtreme/infer/. In an editable (workspace)
# install each lives in its own src/ folder, so this package extends its own __path__ too.
__path__ = extend_path(__path__, __name__)
