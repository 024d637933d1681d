"""Loading the physics' compiled code from numba's cache without numba's compiler set-up
(start-up time).

The first call of a compiled function in a process loads its machine code from the cache
(`__pycache__/*.nbi|*.nbc`, shipped inside the FMU: auv_cosim/compiled/shipped_cache.py). Before it
loads anything, numba's cache "refreshes" its target context: it imports and registers every
typing and lowering implementation numba has (the NumPy, typed-container, random, polynomial,
jitclass ... support), some 0.15-0.3 s of CPU, half of an Auv.fmu start-up once numba is
imported. Loading cached code needs none of it: the code is already compiled and linked
against nothing but numba's runtime (NRT), its C helpers and a few CPython symbols.

`load_cache_lightly(dispatcher)` makes the dispatcher's cache do only that part of the
refresh: start numba's runtime (`rtsys.initialize`, which registers the NRT symbols the
linker resolves) and import `numba.cpython.hashing` (the other module that registers symbols
when it is imported; the cached environments of numba's array functions import it anyway,
through numba.np.arrayobj); numba's C helpers and CPython's exception objects are registered when
numba itself is imported. numba compiles a few functions of its runtime (reference counts,
atomics) with LLVM whenever the runtime starts (about 30 ms): their machine code is cached
beside the physics' (`RUNTIME_CACHE`, keyed by numba, llvmlite and the CPU as numba's own
cache is) and loaded from there. Each cached function comes as machine code plus the LLVM
bitcode of everything it defines; numba parses that bitcode on every load only to list the
symbols the machine code defines (and in case a later compilation links the function into
its own code), some 10 ms a function for the H100's large ones: the light load reads the
defined symbols from the machine code's ELF symbol table instead (`defined_symbols`), and
parses the bitcode only when a compilation does link the function in (`_LazilyLinkable`).
What the cache does not hold (another CPU, another numba, a changed source) is compiled as
before, and numba's compiler does the whole refresh itself first. Any exception of the
light load sends that load the ordinary way.

Only for the numba versions it has been checked with (`CHECKED`: the cache's `load_overload`
must still be "refresh, then `_load_overload`"); `AUV_NUMBA_FULL_LOAD=1` turns it off (the
tests compare both ways, bit for bit).
"""
from __future__ import annotations

import hashlib
import inspect
import os
import pickle
import sys
import types
from contextlib import contextmanager

import llvmlite
import llvmlite.binding as ll
import numba
import numpy as np
from numba.core import entrypoints
from numba.core.caching import FunctionCache
from numba.core.dispatcher import Dispatcher
from numba.core.runtime import nrtdynmod, rtsys

#: numba versions (major, minor) whose FunctionCache.load_overload this replaces
CHECKED = {(0, 68)}


def _version() -> tuple[int, int]:
    major, minor = numba.__version__.split(".")[:2]
    return int(major), int(minor)


def _compiled_callees(py_func, found: dict) -> dict:
    """The compiled functions `py_func` calls, directly or through others, by their Python
    functions: each global name its code (and its nested functions' code) uses that is a numba
    dispatcher, or an attribute of such a name that is one (`rotation.skew`)."""
    names, codes = set(), [py_func.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    values = [py_func.__globals__.get(name) for name in names]
    values += [getattr(value, name, None) for value in values if isinstance(value, types.ModuleType)
               for name in names]
    for value in values:
        callee = getattr(value, "py_func", None) if isinstance(value, Dispatcher) else None
        if callee is not None and callee not in found:
            found[callee] = True
            _compiled_callees(callee, found)
    return found


_file_digests: dict[str, str] = {}


def _file_digest(path: str) -> str:
    digest = _file_digests.get(path)
    if digest is None:
        with open(path, "rb") as source:
            digest = _file_digests[path] = hashlib.sha256(source.read()).hexdigest()
    return digest


def callees_stamp(py_func) -> tuple:
    """What the cache of `py_func` must also match, beside numba's stamp of its own source
    file: (module, SHA-256 of its source) of every other module whose compiled functions it
    calls, directly or not.
    numba checks only the file of the function it compiled, but a compiled function carries
    the machine code of every compiled function it calls: with that check alone, a change to
    `forces.py` left the AUV's derivative in `dynamics.py` running the old forces from the
    cache, in this checkout's tests and flights. (Constants a compiled function reads are
    frozen into it too: they are declared in the file of the functions that read them,
    auv_cosim/vehicles/protocol.py.) Computed at the function's first load or save, when every
    module it calls into has been imported."""
    own = inspect.getfile(py_func)
    files = {(callee.__module__, inspect.getfile(callee)) for callee in _compiled_callees(py_func, {})}
    return tuple(sorted((module, _file_digest(path)) for module, path in files if path != own))


class _ForgivingCache(FunctionCache):
    """numba's cache of one function, where a cache file that cannot be read (a corrupt or
    truncated index or data file, shipped in an FMU or left by a crash) is a miss: the function
    is compiled, as with no cache at all, instead of the call raising numba's UnpicklingError
    (the cache is an optimisation, never a requirement: auv_cosim/compiled/shipped_cache.py). A cache
    that cannot be written then is left as it is (the code compiled stays in use). Valid only
    while the sources of the compiled functions it calls are unchanged too (`callees_stamp`)."""

    def _stamp_callees(self):
        cache_file = self._cache_file
        if not getattr(cache_file, "_callees_stamped", False):
            cache_file._source_stamp = (cache_file._source_stamp, callees_stamp(self._py_func))
            cache_file._callees_stamped = True

    def load_overload(self, sig, target_context):
        try:
            self._stamp_callees()
            return super().load_overload(sig, target_context)
        except Exception:
            return None

    def save_overload(self, sig, data):
        try:
            self._stamp_callees()
            super().save_overload(sig, data)
        except Exception:
            pass


class _LightlyLoadingCache(_ForgivingCache):
    """numba's cache of one function, loading from the cache with the runtime alone."""

    def load_overload(self, sig, target_context):
        try:
            import numba.cpython.hashing  # noqa: F401  (registers its symbols when imported)

            self._stamp_callees()
            start_runtime(target_context)
            with self._guard_against_spurious_io_errors(), _unserializing_lightly(target_context.codegen()):
                loaded = self._load_overload(sig, target_context)
        except Exception:
            loaded = super().load_overload(sig, target_context)  # the ordinary load (a miss if it fails)
        if loaded is None:
            entrypoints.init_all()  # numba compiles next: with its extensions, as it always does
        return loaded


def _extensions_when_compiling():
    """The dispatcher's `_compilation_chain_init_hook`, which numba calls before it types the
    arguments of a first call, to start numba's extensions (`numba.core.entrypoints.init_all`:
    it lists the entry points of every installed distribution, some 20 ms): loading cached code
    needs none, so the light load starts them only when the cache misses and numba compiles."""


#: where the machine code of numba's runtime functions is cached (beside the physics' cache,
#: so that tools/build_fmus.py ships it in the FMU with the rest)
RUNTIME_CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")


def runtime_cache_file(codegen) -> str:
    """The runtime's cache file for this numba, llvmlite, Python and CPU (`magic_tuple`: the
    target triple, CPU name and features, as in the key of numba's own cache index)."""
    key = repr((numba.__version__, llvmlite.__version__, sys.version_info[:2], codegen.magic_tuple()))
    return os.path.join(RUNTIME_CACHE, f"numba_runtime-{hashlib.sha256(key.encode()).hexdigest()[:20]}.nbc")


def start_runtime(target_context) -> None:
    """Start numba's runtime (`rtsys.initialize`) with its compiled functions loaded from
    RUNTIME_CACHE; compiled (and cached, where the folder is writable) when not there."""
    if not rtsys._init:
        with _runtime_library(_cached_or_compiled_runtime):
            rtsys.initialize(target_context)


def _cached_or_compiled_runtime(target_context):
    """The runtime's library: from its cache file, else compiled and saved there. Called
    where `rtsys.initialize` compiles it, once the runtime's C symbols are registered (LLVM
    aborts the process when code it links refers to a symbol it cannot find)."""
    codegen = target_context.codegen()
    path = runtime_cache_file(codegen)
    library = _cached_runtime(codegen, path)
    if library is None:
        library = _compiled_runtime(target_context)
        _save_runtime(library, path)
    return library


def _cached_runtime(codegen, path: str):
    """The runtime's library from its cache file, or None (no file, an unreadable one)."""
    try:
        with open(path, "rb") as cached:
            return unserialize_lightly(codegen, pickle.load(cached))
    except Exception:
        return None


def _compiled_runtime(target_context):
    """The runtime's library as numba's `compile_nrt_functions` makes it, its machine code
    kept (object caching) so that it can be saved."""
    module, library = nrtdynmod.create_nrt_module(target_context)
    library.enable_object_caching()
    library.add_ir_module(module)
    library.finalize()
    return library


def _save_runtime(library, path: str) -> None:
    """Write the runtime's library to its cache file; a folder that cannot be written is left
    alone (the cache is an optimisation)."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}.tmp"
        try:
            with open(partial, "wb") as out:
                pickle.dump(library.serialize_using_object_code(), out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(partial, path)  # whole or not at all, for a process loading it meanwhile
        finally:
            if os.path.exists(partial):
                os.remove(partial)
    except Exception:
        pass


@contextmanager
def _runtime_library(make_library):
    """`rtsys.initialize` taking the runtime's compiled functions from `make_library(target
    context)` in place of numba's `compile_nrt_functions` (it registers the runtime's C
    symbols as usual first)."""
    compile_nrt_functions = nrtdynmod.compile_nrt_functions
    nrtdynmod.compile_nrt_functions = make_library
    try:
        yield
    finally:
        nrtdynmod.compile_nrt_functions = compile_nrt_functions


#: ELF-64 little-endian section header and symbol (the System V ABI's Elf64_Shdr, Elf64_Sym)
ELF_SECTION = np.dtype([("name", "<u4"), ("type", "<u4"), ("flags", "<u8"), ("address", "<u8"),
                        ("offset", "<u8"), ("size", "<u8"), ("link", "<u4"), ("info", "<u4"),
                        ("alignment", "<u8"), ("entry_size", "<u8")])
ELF_SYMBOL = np.dtype([("name", "<u4"), ("info", "u1"), ("other", "u1"), ("section", "<u2"),
                       ("value", "<u8"), ("size", "<u8")])
SHT_SYMTAB, SHN_UNDEF, STB_LOCAL = 2, 0, 0


def defined_symbols(object_code: bytes) -> set[str] | None:
    """The global and weak symbols an ELF-64 little-endian object file defines (what numba's
    `JitEngine._load_defined_symbols` lists from the bitcode, but the module-private constants
    that no lookup asks for); None for any other object format (the ordinary load then)."""
    try:
        if object_code[:6] != b"\x7fELF\x02\x01":  # magic, 64-bit, little-endian
            return None
        table_offset = int.from_bytes(object_code[0x28:0x30], "little")
        count = int.from_bytes(object_code[0x3C:0x3E], "little")
        sections = np.frombuffer(object_code, ELF_SECTION, count=count, offset=table_offset)
        (symbol_table,) = sections[sections["type"] == SHT_SYMTAB]
        names = sections[symbol_table["link"]]
        strings = object_code[int(names["offset"]):int(names["offset"] + names["size"])]
        symbols = np.frombuffer(object_code, ELF_SYMBOL, count=int(symbol_table["size"]) // ELF_SYMBOL.itemsize,
                                offset=int(symbol_table["offset"]))
        defined = symbols[(symbols["section"] != SHN_UNDEF) & ((symbols["info"] >> 4) != STB_LOCAL)]
        return {strings[start:strings.index(b"\0", start)].decode() for start in defined["name"].tolist()}
    except Exception:
        return None


class _LazilyLinkable:
    """Mixed into a code library loaded from the cache: its module for linking (`_shared_module`,
    what a later compilation calling this function links in) is parsed from the cached bitcode
    on first use rather than on load."""

    @property
    def _shared_module(self):
        bitcode = self.__dict__.pop("_shared_bitcode", None)
        if bitcode is not None:
            self.__dict__["_shared_module"] = ll.parse_bitcode(bitcode)
        return self.__dict__.get("_shared_module")

    @_shared_module.setter
    def _shared_module(self, module):
        self.__dict__.pop("_shared_bitcode", None)
        self.__dict__["_shared_module"] = module


_lazily_linkable_classes: dict = {}


def _lazily_linkable(library_class):
    if library_class not in _lazily_linkable_classes:
        _lazily_linkable_classes[library_class] = type(f"LazilyLinkable{library_class.__name__}",
                                                       (_LazilyLinkable, library_class), {})
    return _lazily_linkable_classes[library_class]


def unserialize_lightly(codegen, state):
    """A code library from its cached state, as numba's `CPUCodeLibrary._unserialize` makes it
    from machine code ("object" kind), with the defined symbols read from the machine code and
    the bitcode kept unparsed (see the module); anything else the ordinary way."""
    name, kind, data = state
    defined = defined_symbols(data[0]) if kind == "object" else None
    if defined is None:
        return type(codegen).unserialize_library(codegen, state)
    object_code, shared_bitcode = data
    library = codegen.create_library(name)
    library.__class__ = _lazily_linkable(type(library))
    library.enable_object_caching()
    library._set_compiled_object(object_code)
    library._shared_bitcode = shared_bitcode
    library._finalize_final_module()
    codegen._engine._defined_symbols |= defined
    return library


@contextmanager
def _unserializing_lightly(codegen):
    """The codegen's `unserialize_library` is `unserialize_lightly` for the time of one load
    (made under numba's compiler lock: no other compilation uses the codegen meanwhile)."""
    codegen.unserialize_library = lambda state: unserialize_lightly(codegen, state)
    try:
        yield
    finally:
        del codegen.unserialize_library


#: True when the compiled functions load from the cache the light way (decided once, at import)
ENABLED = _version() in CHECKED and os.environ.get("AUV_NUMBA_FULL_LOAD", "") in ("", "0")


def load_cache_lightly(dispatcher):
    """The dispatcher, its cache valid only while the compiled functions it calls are unchanged
    too (`callees_stamp`), an unreadable cache file a miss (`_ForgivingCache`), loading lightly
    where that is known to work (see the module)."""
    if type(getattr(dispatcher, "_cache", None)) is FunctionCache:
        dispatcher._cache.__class__ = _LightlyLoadingCache if ENABLED else _ForgivingCache
        if ENABLED:
            dispatcher._compilation_chain_init_hook = _extensions_when_compiling
    return dispatcher
