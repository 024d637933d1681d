"""A compiled kernel run as plain Python throughout, for the tests that compare a kernel's
compiled version with its Python execution bit for bit.

A numba dispatcher's ``py_func`` is the kernel's own code in Python, but the compiled helpers it
calls (``jit`` or ``jit_inlined`` functions: dispatchers too) would still run compiled, so a
difference between the compiled and the Python arithmetic of a helper would go unseen.
`plain_python` rebuilds the kernel and every compiled function it reaches through its module's
globals from their Python code (one namespace per module, the dispatchers in it replaced), so
that nothing on the Python side of such a comparison is compiled."""
from __future__ import annotations

import types


def plain_python(function):
    """`function` (a numba dispatcher; anything else is returned as it is) as plain Python, with
    every dispatcher reachable from it through module globals replaced by its plain Python."""
    namespaces: dict[str, dict] = {}
    made: dict[int, types.FunctionType] = {}

    def plain(f):
        py = getattr(f, "py_func", None)
        if py is None:
            return f
        if id(f) in made:
            return made[id(f)]
        fresh = py.__module__ not in namespaces
        if fresh:
            namespaces[py.__module__] = dict(py.__globals__)
        namespace = namespaces[py.__module__]
        rebuilt = types.FunctionType(py.__code__, namespace, py.__name__, py.__defaults__, py.__closure__)
        rebuilt.__kwdefaults__ = py.__kwdefaults__
        made[id(f)] = rebuilt
        if fresh:
            for name, value in list(namespace.items()):
                if getattr(value, "py_func", None) is not None:
                    namespace[name] = plain(value)
        return rebuilt

    result = plain(function)
    result.namespaces = namespaces   # for a test to check that no dispatcher is left in them
    return result


def compiled_left(function) -> list[str]:
    """The names of the dispatchers still reachable from `plain_python(...)`'s result: none."""
    return [f"{module}.{name}" for module, namespace in function.namespaces.items()
            for name, value in namespace.items() if getattr(value, "py_func", None) is not None]
