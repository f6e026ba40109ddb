"""One parse for the C types wgpu-py looks up while a device starts and runs its first work.

cffi parses a C type string the first time it is used (``ffi.new("WGPUBufferDescriptor *")``)
and each such parse reads again one line for every type it knows: about 400 for wgpu-native,
some 9 ms a string. A process that creates its device and runs a first chain asks for about 40
of them (``pillow-gpu apply`` of one file: some 0.3 s of its 1 s on the 2-core lavapipe VM,
2026-12-06). :func:`parse_wgpu_types` parses them in one go, with cffi's own parser and type
cache: every declared ``WGPU*`` type as ``"T *"`` and ``"T[]"``, and the other strings wgpu-py
asks for, as one parameter list (each parameter goes through what ``FFI.typeof`` does for the
string alone).

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


def parse_wgpu_types() -> int:
    """Fill wgpu-py's cffi type cache in one parse; return how many strings were added (0
    where the cache could not be filled, which only costs the time this saves)."""
    try:
        from wgpu.backends.wgpu_native._ffi import ffi  # type: ignore[import-untyped]

        return _fill(ffi)
    except Exception:  # another cffi or wgpu-py: cffi parses on demand, as before
        return 0


def _fill(ffi: Any) -> int:
    names = [name for name in ffi.list_types()[0] if name.startswith("WGPU")]
    wanted = [*(f"{name} *" for name in names), *(f"{name}[]" for name in names), *_OTHER_TYPES]
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
                kind = parser._get_type_and_quals(param.type)[0]
                raw_function = kind.is_raw_function
                if raw_function:
                    kind = kind.as_function_pointer()
                parsed[cdecl] = (ffi._get_cached_btype(kind), raw_function)
            except Exception:  # a type cffi refuses (an array of an opaque struct): left out
                continue
        if not parsed:
            return 0
        checked = next(iter(parsed))  # one of them against cffi's own parse of it alone
        alone = parser.parse_type(checked)
        if parsed[checked] != (ffi._get_cached_btype(alone), alone.is_raw_function):
            return 0
        cache.update(parsed)
    return len(parsed)
