"""A planned graph: its reservations, and the steps that run it on the shared device.

See :mod:`pillow_gpu.gpu._planner` for the life cycle (plan, allocate, encode, build, release).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, NamedTuple

from PIL import Image as PILImage

from pillow_gpu import _cpu
from pillow_gpu._convert_info import palette_of, probe
from pillow_gpu._graph import Node, undecoded_file
from pillow_gpu._leaves import stray_palette_bearer
from pillow_gpu._palette_inside import POINTED_MODES, palette_bearer
from pillow_gpu._palette_state import PaletteState
from pillow_gpu._snapshot import Snapshot
from pillow_gpu.errors import DecodeError, DeviceError, Unsupported
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._layout import (
    BYTE_TERMINALS,
    PACKED_UPLOADS,
    PAIR_MODES,
    WIDE16_MODES,
    image_from_terminal,
    stored_nbytes,
    upload_bytes,
    upload_nbytes,
)
from pillow_gpu.gpu._program import Program, aligned
from pillow_gpu.gpu._slots import Slot
from pillow_gpu.gpu._stack import allocate_together, encode_together, slot_key
from pillow_gpu.gpu.kernels import pack16, pack_l, unpack

__all__ = [
    "Plan",
    "Upload",
    "record_terminal",
    "record_upload",
    "undecodable",
]


class Upload(NamedTuple):
    """A leaf whose host pixels (:func:`~pillow_gpu.gpu._layout.upload_bytes`) are written
    into buffer ``buffer``: the working image itself, or the packed buffer ``unpack`` widens.
    (A tuple, for speed: every job of a batch has its own.)"""

    buffer: int
    node: Node

    @property
    def nbytes(self) -> int:
        """Bytes this upload writes (Pillow's stored bytes, padded to four)."""
        return upload_nbytes(self.node.mode, self.node.size)


def record_upload(program: Program, node: Node) -> tuple[Upload, int]:
    """Record the upload of leaf ``node``; return it and the node's working image buffer.

    Packed modes (``_layout.PACKED_UPLOADS``) upload Pillow's bytes into a buffer of their own
    and one ``unpack`` dispatch widens them into the working image.
    """
    if node.mode not in PACKED_UPLOADS:
        buffer = program.image(node.size)
        return Upload(buffer=buffer, node=node), buffer
    packed = program.words(upload_nbytes(node.mode, node.size) // 4)
    kind = PACKED_UPLOADS[node.mode][1]
    return Upload(buffer=packed, node=node), unpack.unpack(program, packed, node.size, kind)


def record_terminal(program: Program, root: Node, buffer: int) -> int:
    """The buffer the terminal copy reads: results of modes stored in fewer than four bytes
    per pixel (L, P, 1; I;16*, LA, La, PA) packed to Pillow's bytes."""
    if root.mode in BYTE_TERMINALS:
        return pack_l.pack_l(program, buffer, root.size)
    if root.mode in WIDE16_MODES:
        kind = pack16.BIG_ENDIAN if root.mode == "I;16B" else pack16.LITTLE_ENDIAN
        return pack16.pack16(program, buffer, root.size, kind=kind)
    if root.mode in PAIR_MODES:
        return pack16.pack16(program, buffer, root.size, kind=pack16.PAIR)
    return buffer


class Plan:
    """Native GPU work for one graph. Planning touches neither the device nor any decoder."""

    # The allocation state, set from _UNALLOCATED until allocate() or assign().
    _slot: Slot | None
    _lane: int
    _key: Hashable
    _fresh: bool
    _released: bool
    _device: SharedDevice | None

    def __init__(
        self,
        *,
        root: Node,
        program: Program,
        uploads: tuple[Upload, ...],
        terminal: int,
        terminal_nbytes: int,
        host_bytes: int,
    ) -> None:
        self.root = root
        self.program = program
        self.uploads = uploads
        self.terminal = terminal
        self.terminal_nbytes = terminal_nbytes
        #: Conservative host reservation: decode/upload temporaries, encoded bytes, metadata,
        #: the staging copy and the output CPU pixels.
        self.host_bytes = host_bytes
        # Reservations and bounds are plain attributes: the executor reads them several times
        # per job, and nothing they derive from changes after planning.
        #: Mode and size of the output image.
        self.mode: str = root.mode
        self.size: tuple[int, int] = root.size
        #: Length of the output's ``tobytes()``.
        self.output_nbytes = stored_nbytes(root.mode, root.size)
        #: Staging bytes this plan's terminal copy needs, rounded up to 256.
        self.staging_nbytes = aligned(terminal_nbytes)
        #: Conservative GPU reservation: working buffers, uploads, tables, parameters and
        #: staging, every buffer rounded up to 256 bytes (allocation granularity).
        work, _, charged = program.totals()
        self.gpu_bytes = charged + self.staging_nbytes
        #: Number of compute dispatches (kernels) the plan records.
        self.dispatch_count = len(program.dispatches)
        #: Shader-work estimate of all dispatches (units: :mod:`pillow_gpu.gpu._work`).
        self.shader_work = work
        #: :func:`~pillow_gpu.gpu._stack.slot_key`, computed on first use.
        self.slot_key: Hashable | None = None
        vars(self).update(self._UNALLOCATED)

    #: What every plan of one graph shape shares (see :meth:`shape` and :meth:`of_shape`).
    _SHAPE_ATTRIBUTES = (
        "program",
        "terminal",
        "terminal_nbytes",
        "mode",
        "size",
        "output_nbytes",
        "staging_nbytes",
        "gpu_bytes",
        "dispatch_count",
        "shader_work",
        "slot_key",
    )
    #: The allocation state of a new plan (read only, copied into each plan).
    _UNALLOCATED: dict[str, Any] = {  # noqa: RUF012
        "_slot": None,
        "_lane": 0,
        "_key": (),
        "_fresh": True,
        "_released": False,
        "_device": None,
    }

    def shape(self) -> dict[str, Any]:
        """This plan's attributes that depend only on its graph's shape (no node references),
        for :meth:`of_shape`; the slot key is computed now."""
        slot_key(self)  # computed and kept on the plan
        return {name: getattr(self, name) for name in self._SHAPE_ATTRIBUTES}

    @classmethod
    def of_shape(
        cls, shape: dict[str, Any], *, root: Node, uploads: tuple[Upload, ...], host_bytes: int
    ) -> Plan:
        """The plan of ``root``, a graph of the shape :meth:`shape` described: what
        ``Plan(...)`` builds, without deriving the shape's attributes again (every job of a
        batch of same-shaped graphs plans this way)."""
        plan = cls.__new__(cls)
        attributes = vars(plan)
        attributes.update(shape)
        attributes.update(cls._UNALLOCATED)
        plan.root = root
        plan.uploads = uploads
        plan.host_bytes = host_bytes
        return plan

    # -- reservations (no device needed) ------------------------------------------------------
    @property
    def sources(self) -> tuple[Node, ...]:
        """Leaves that still need decoding (encoded files not yet completed)."""
        return tuple(upload.node for upload in self.uploads if undecoded_file(upload.node))

    # -- device steps ----------------------------------------------------------------------------
    def allocate(self, device: SharedDevice | None = None) -> None:
        """Decode sources, take or create every buffer and bind group, and queue the uploads.

        Working images get one buffer each. All parameter blocks and host tables of the plan
        share one read-only constants buffer, each at its own 256-byte-aligned range written
        once at creation, so every dispatch keeps its own stable parameters. A released plan
        of the same shape (and the same constants) lends its allocation: see
        :mod:`pillow_gpu.gpu._slots`. The executor allocates a submission's plans together
        instead (:func:`~pillow_gpu.gpu._stack.allocate_together`).
        """
        failed = allocate_together([self], device)
        if failed:
            raise failed[0][1]

    def upload_pixels(self) -> dict[int, bytes | memoryview]:
        """Each upload buffer's host pixels, decoding sources (the first allocation step)."""
        if self._slot is not None or self._released:
            raise DeviceError(
                "a plan can be allocated once",
                observed="allocate() called on an allocated plan",
                fix="plan the graph again for a second run",
                stage="allocation",
            )
        return {upload.buffer: _host_pixels(upload.node) for upload in self.uploads}

    def assign(
        self, device: SharedDevice, slot: Slot, lane: int, key: Hashable, *, fresh: bool
    ) -> None:
        """Hold lane ``lane`` of ``slot`` (pool key ``key``; ``fresh``: never used before)."""
        self._device, self._slot, self._lane, self._key, self._fresh = (
            device,
            slot,
            lane,
            key,
            fresh,
        )

    def encode(self, encoder: Any, staging: Any, offset: int) -> int:
        """Record every dispatch and the terminal copy into ``staging`` at ``offset``; return
        the dispatch calls recorded."""
        return encode_together(encoder, [(self, staging, offset)])

    @property
    def palette(self) -> PaletteState | PILImage.Image | None:
        """A P or PA output's palette as Pillow gives it (both levels); for an L, 1, I or F
        output, an image keeping the palette Pillow's output keeps inside, if any; for another,
        the image of a ``from_pil`` leaf that is the whole graph and holds a palette object
        (a GIF frame after the first), which Pillow's image of that graph holds too."""
        if self.mode in ("P", "PA"):
            return palette_of(self.root)
        if self.mode in POINTED_MODES:
            return palette_bearer(self.root)
        return stray_palette_bearer(self.root)

    def build(self, mapped: memoryview | bytes) -> PILImage.Image:
        """Build the output ``PIL.Image.Image`` from this plan's terminal bytes (copied)."""
        image = image_from_terminal(self.mode, self.size, mapped, self.palette)
        image.info.update(self.root.info)
        return image

    def drop_graph(self) -> None:
        """Let go of the graph once its uploads are written and its work submitted: the plan
        keeps its program and allocation (all that :meth:`release` needs), so the nodes, their
        parameters and the sources' snapshots are freed while the work runs, not after it.

        ``root`` and ``uploads`` are gone afterwards (reading ``root`` raises AttributeError).
        """
        self.uploads = ()
        vars(self).pop("root", None)

    def release(self) -> None:
        """Give this plan's lane back; its slot goes to the device's pool with the last lane
        (idempotent).

        Call it once the plan's submitted work is no longer needed; the queue orders any reuse
        after that work. The pool destroys what it cannot keep.
        """
        slot, shared = self._slot, self._device
        self._slot = None
        self._released = True
        if slot is not None and shared is not None:
            slot.holders -= 1
            if slot.holders <= 0:
                shared.slots.give(self._key, slot)


def undecodable(error: Exception) -> DecodeError:
    """The job's error for a source whose pixels Pillow's decoder failed on with ``error``."""
    return DecodeError(
        "a source could not be decoded",
        observed=f"{type(error).__name__}: {error}",
        fix="check the file (Image.open() read its header, its pixels failed to decode) "
        "and any edit of the image's info made before it loaded",
        stage="decode",
    )


def _host_pixels(node: Node) -> bytes | memoryview:
    stored: Snapshot | None = node.params.get("stored") if node.op == "pil" else None
    if stored is not None:  # from_pil's copy of Pillow's storage: already the upload's bytes
        return memoryview(stored)
    header = _recorded_palette(node)
    try:
        image = node.cache.get() or _cpu.decode_leaf(node)
    except Unsupported:  # a refusal of the decode itself (pillow_gpu._info_edits), as it is
        raise
    # Whatever Pillow's decoder raises for this file (OSError and ValueError mostly; its AVIF
    # plugin a RuntimeError, a bomb DecompressionBombError, a plugin missing an info entry it
    # reads a KeyError) fails this job's decode, never the executor.
    except FileNotFoundError as error:
        raise DecodeError(
            "the file was removed or renamed after Image.open() read its header: a lazy image "
            "reads its pixels when they are first needed (Pillow's reads them at the first "
            "operation)",
            observed=f"{type(error).__name__}: {error}",
            fix="keep the file in place until the result is evaluated, or call load() on the "
            "opened image before moving it (its pixels are then read at once)",
            stage="decode",
        ) from error
    except Exception as error:
        raise undecodable(error) from error
    if image.im.mode != image.mode:
        raise Unsupported(
            "Pillow's load left this file's pixels in another mode than its image says (a GIF "
            "whose global palette is in colour and whose first frame has a grey palette of its "
            "own: Pillow applies the global palette to that frame's pixels), and Pillow's "
            "operations then read them as that image's mode, or raise",
            observed=f"a {node.params.get('format')} file opened as {image.mode}, loaded as "
            f"{image.im.mode} pixels",
            fix="run it through Pillow (to_pil(); --cpu-fallback with pillow-gpu apply), or "
            "convert it with Pillow first and wrap the result with Image.from_pil",
            stage="decode",
        )
    if image.mode != node.mode or image.size != node.size:
        raise Unsupported(
            "Pillow's load gave this file another mode or size than its header, which the GPU "
            "plan was made from (a damaged file its decoder reads past, such as an icon whose "
            "mask is missing; or a file changed since Image.open() read it)",
            observed=f"a {node.params.get('format')} file loaded as {image.mode} "
            f"{image.size}, its header {node.mode} {node.size}",
            fix="run it through Pillow (to_pil(); --cpu-fallback with pillow-gpu apply), whose "
            "operations start from what the load gave; open a file changed since again",
            stage="decode",
        )
    if header is not None and header != _palette_state(image):
        raise DecodeError(
            "the decoded palette differs from the file header's, which the GPU tables and the "
            "result's palette were planned from",
            observed=f"mode {node.mode} {node.params.get('format')} palette {header[0]} of "
            f"{len(header[1]) // max(1, len(header[0]))} entries, decoded another",
            fix="evaluate this file with to_pil(), or convert it with Pillow first",
            stage="decode",
        )
    if "header_info" in node.params and dict(image.info) != dict(node.info):
        # The results' info was recorded from what Pillow's reader read after the pixels at
        # open (pillow_gpu._png_tail.loaded_info); the decode must have read the same.
        missing = sorted(map(str, set(image.info) ^ set(node.info)))
        raise DecodeError(
            "the decoded file's info differs from the one read at open, which the results' "
            "info was recorded from",
            observed=f"{node.params.get('format')} info keys differing: {missing or 'values'}",
            fix="do not change files between Image.open() and evaluation; a damaged file its "
            "decoder reads past can differ so too: evaluate it with to_pil()",
            stage="decode",
        )
    return upload_bytes(image)


def _palette_state(image: PILImage.Image) -> tuple[str, bytes]:
    """The mode and entries of a P or PA image's palette, as Pillow applies them."""
    palette = image.palette
    return (palette.mode if palette else ""), bytes(image.getpalette(None) or ())


def _recorded_palette(node: Node) -> tuple[str, bytes] | None:
    """An undecoded P/PA file's palette as its header gave it (None for other leaves)."""
    if node.op != "open" or node.mode not in ("P", "PA") or node.cache.get() is not None:
        return None
    header = probe(node)
    try:
        return None if header is None else _palette_state(header)
    except ValueError as error:  # admission applies it first; a file changed since then
        raise DecodeError(
            "the file header's palette cannot be applied by Pillow",
            observed=f"ValueError: {error}",
            fix="check the file; evaluate it with to_pil() to see Pillow's error",
            stage="decode",
        ) from error
