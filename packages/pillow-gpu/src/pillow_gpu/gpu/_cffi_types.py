"""One parse for the C types wgpu-py looks up while a device starts and runs its first work.

cffi parses a C type string the first time it is used (``ffi.new("WGPUBufferDescriptor *")``)
and each such parse reads again one line for every type it knows: about 400 for wgpu-native,
some 9 ms a string. A process that creates its device and runs a first chain asks for about 40
of them (``pillow-gpu apply`` of one file: 0.93 s, and 0.58 s with them parsed here, on the
2-core lavapipe VM, 2026-12-06). :func:`parse_wgpu_types` parses them in one go, with cffi's
own parser and type cache: every declared ``WGPU*`` type as ``"T *"`` and ``"T[]"``, and the
other strings wgpu-py asks for, as one parameter list (each parameter goes through what
``FFI.typeof`` does for the string alone); then its callbacks' signatures, as a second list.

It uses cffi's internals (``FFI._parser``, ``_parsed_types``, ``_get_cached_btype``,
``_lock``) as ``FFI.typeof`` does. Where they are not what it expects (another cffi version),
or a type it parsed is not the one cffi's own parse of that string gives, it keeps nothing and
cffi parses each string when it is first used, as before.
"""

from __future__ import annotations

from typing import Any

__all__ = ["parse_wgpu_types"]

#: The strings wgpu-py asks for besides ``"WGPU... *"`` and ``"WGPU...[]"`` (wgpu 0.31).
_OTHER_TYPES = (
    "char []",
    "uint8_t []",
    "uint8_t *",
    "uint32_t []",
    "intptr_t",
    "uintptr_t",
    "WGPUChainedStruct * ",
)
#: The signatures of wgpu-py's callbacks (``ffi.callback``) as wgpu 0.31 spells them; parsed
#: apart, so that another version's other spelling or types leave the rest warmed.
_CALLBACKS = (
    "void(WGPURequestAdapterStatus, WGPUAdapter, WGPUStringView, void *, void *)",
    "void(WGPURequestDeviceStatus, WGPUDevice, WGPUStringView, void *, void *)",
    "void(WGPUDevice const *, WGPUDeviceLostReason, WGPUStringView, void *, void *)",
    "void(WGPUDevice const *, WGPUErrorType, WGPUStringView, void *, void *)",
    "void(WGPUMapAsyncStatus, WGPUStringView, void *, void *)",
)


def parse_wgpu_types() -> int:
    """Fill wgpu-py's cffi type cache in one parse; return how many strings were added (0
    where the cache could not be filled, which only costs the time this saves)."""
    try:
        from wgpu.backends.wgpu_native._ffi import ffi  # type: ignore[import-untyped]

        names = [name for name in ffi.list_types()[0] if name.startswith("WGPU")]
    except Exception:  # another wgpu-py: cffi parses on demand, as before
        return 0
    types = [*(f"{name} *" for name in names), *(f"{name}[]" for name in names), *_OTHER_TYPES]
    added = 0
    for wanted in (types, _CALLBACKS):
        try:
            added += _fill(ffi, wanted)
        except Exception:  # another cffi, or types this wgpu-native lacks: parsed on demand
            continue
    return added


def _fill(ffi: Any, wanted: list[str] | tuple[str, ...]) -> int:
    """Add to ``ffi``'s type cache each of ``wanted`` it lacks, parsed in one go; 0 where the
    result is not what cffi's own parse gives."""
    parser, cache = ffi._parser, ffi._parsed_types
    with ffi._lock:
        wanted = [cdecl for cdecl in wanted if cdecl not in cache]
        if not wanted:
            return 0
        parameters = ",\n".join(wanted)
        ast = parser._parse(f"void __dummy(\n{parameters}\n);")[0]  # as parse_type wraps one
        params = ast.ext[-1].type.args.params
        if len(params) != len(wanted):
            return 0
        parsed = {}
        for cdecl, param in zip(wanted, params, strict=True):
            try:
                parsed[cdecl] = _cached(ffi, parser._get_type_and_quals(param.type)[0])
            except Exception:  # a type cffi refuses (an array of an opaque struct): left out
                continue
        if not parsed:
            return 0
        checked = next(iter(parsed))  # one of them against cffi's own parse of it alone
        if parsed[checked] != _cached(ffi, parser.parse_type(checked)):
            return 0
        cache.update(parsed)
    return len(parsed)


def _cached(ffi: Any, kind: Any) -> tuple[Any, bool]:
    """What ``FFI.typeof`` caches for a parsed type: its C type (a function type as a function
    pointer), and whether it was a function type."""
    raw_function = bool(kind.is_raw_function)
    if raw_function:
        kind = kind.as_function_pointer()
    return ffi._get_cached_btype(kind), raw_function
