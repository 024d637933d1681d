"""3-vectors and wrenches as tuples of floats, for compiled physics that allocates nothing.

A NumPy array of 3 or 6 floats made inside a compiled function is a heap allocation (and its
reference counting) that costs more than the arithmetic it holds; a tuple of floats stays in
registers. The AUV's derivative is a sum of a dozen small wrenches, evaluated seven times a
communication step, so its forces return wrenches as tuples and add them with these helpers.

Every helper takes arrays or tuples alike (anything indexable) and returns a tuple. Each one
does exactly the floating-point operations of the NumPy expression named in its docstring, in
the same order, so that code moved from arrays onto these helpers keeps its results bit for
bit (`rotation.cross`, `rotation.rotate` and `rotation.rotate_back` are the array forms).

A wrench is (Fx, Fy, Fz, Mx, My, Mz): force (N) then moment (N m), body frame.
"""
from ..compiled.jit import jit


@jit
def triple(values, start):
    """values[start:start + 3] as a tuple (a slice of a state or of a constant vector)."""
    return (values[start], values[start + 1], values[start + 2])


@jit
def add3(a, b):
    """a + b."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@jit
def sub3(a, b):
    """a - b."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@jit
def neg3(a):
    """-a."""
    return (-a[0], -a[1], -a[2])


@jit
def scale3(s, a):
    """s * a for a scalar s."""
    return (s * a[0], s * a[1], s * a[2])


@jit
def mul3(a, b):
    """a * b element by element."""
    return (a[0] * b[0], a[1] * b[1], a[2] * b[2])


@jit
def cross3(a, b):
    """a x b, the formula of `rotation.cross`."""
    return (a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0])


@jit
def rotate3(r, v):
    """R v for a 3 x 3 array R, the sums of `rotation.rotate`."""
    return (r[0, 0] * v[0] + r[0, 1] * v[1] + r[0, 2] * v[2],
            r[1, 0] * v[0] + r[1, 1] * v[1] + r[1, 2] * v[2],
            r[2, 0] * v[0] + r[2, 1] * v[1] + r[2, 2] * v[2])


@jit
def rotate_back3(r, v):
    """R^T v for a 3 x 3 array R, the sums of `rotation.rotate_back`."""
    return (r[0, 0] * v[0] + r[1, 0] * v[1] + r[2, 0] * v[2],
            r[0, 1] * v[0] + r[1, 1] * v[1] + r[2, 1] * v[2],
            r[0, 2] * v[0] + r[1, 2] * v[1] + r[2, 2] * v[2])


@jit
def wrench(force, moment):
    """The wrench (force, moment) of two 3-vectors."""
    return (force[0], force[1], force[2], moment[0], moment[1], moment[2])


@jit
def wrench_at_origin(force):
    """The wrench of a force at the body origin: (force, 0)."""
    return (force[0], force[1], force[2], 0.0, 0.0, 0.0)


@jit
def wrench_add(a, b):
    """a + b for two wrenches, element by element."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5])
