"""C objects owned from Python, and numpy arrays that view their memory.

An ``Owner`` holds one C pointer and frees it when the last reference to
it goes. Arrays made by ``view`` keep the owner alive through their
``base``, so that a view outlives the Python object it came from (a
``Model`` dropped while its positions are still used) and the C memory is
freed only when neither is left.
"""

import ctypes

import numpy as np

_char, _addressof = ctypes.c_char, ctypes.addressof


class Owner:
    """One C object (a model, a clip) and the call that frees it."""

    __slots__ = ("ptr", "_free", "__weakref__")

    def __init__(self, ptr, free):
        self.ptr = ptr
        self._free = free

    def __del__(self):
        ptr, self.ptr = self.ptr, None
        if ptr:
            try:
                self._free(ptr)
            except Exception:  # interpreter shutdown: the library may be gone
                pass


class _Base:
    """What a view's ``base`` is: the array interface of C memory and the
    owner of that memory."""

    __slots__ = ("__array_interface__", "owner")


def view(owner, address, dtype, shape, strides=None, writable=False):
    """A numpy array of ``shape`` at ``address`` (C memory that ``owner``
    keeps alive), read-only unless ``writable``. An empty shape or a NULL
    address gives an empty read-only array."""
    dtype = np.dtype(dtype)
    shape = tuple(int(n) for n in shape)
    if not address or 0 in shape:
        a = np.zeros(shape if 0 in shape else (0,) + shape[1:], dtype)
        a.flags.writeable = False
        return a
    base = _Base()
    base.owner = owner
    base.__array_interface__ = {
        "version": 3,
        "shape": shape,
        "typestr": dtype.str if dtype.fields is None else "|V%d" % dtype.itemsize,
        "data": (int(address), not writable),
        "strides": strides,
    }
    a = np.asarray(base)
    # Structured types travel as raw bytes of their size: the array
    # interface's "descr" would name their padding as fields.
    return a if dtype.fields is None else a.view(dtype)


def readonly(a):
    a.flags.writeable = False
    return a


def address(a):
    """The address of a numpy array's data (the arrays passed to C calls).
    A writable contiguous array exports its buffer to ctypes, a few times
    cheaper than ``a.ctypes.data``, which serves the others."""
    try:
        return _addressof(_char.from_buffer(a))
    except (TypeError, ValueError, BufferError):
        return a.ctypes.data
