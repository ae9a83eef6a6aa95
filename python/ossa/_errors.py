"""Errors and warnings: the library's ossa_diagnostic as Python objects.

A failing call raises a subclass of ``ossa.Error`` chosen by the
diagnostic's code; ``str()`` of it is what the command-line tool prints
after ``ossa: `` ("guy.iqe:120:14: expected 3 numbers ..."). Warnings (of a
load, a merge or a write) go through Python's ``warnings`` module as
``ossa.OssaWarning``, whose text is the tool's warning line without its
``ossa: `` and ``warning: ``.
"""

import threading
import warnings

from . import _lib
from . import _structs as S

NO_OFFSET = 2 ** 64 - 1
SEVERITIES = {0: "note", 1: "warning", 2: "error"}


_CODE_NAMES = {}


def _code_name(code):
    name = _CODE_NAMES.get(code)
    if name is None:
        name = _CODE_NAMES[code] = _lib.ossa_code_name(code).decode()
    return name


def _text(raw):
    return raw.decode("utf-8", "surrogateescape")


class Diagnostic:
    """One error, warning, note or validation finding.

    Attributes: ``code`` (the stable number, see ``ossa_code`` in
    ossa/common.h), ``code_name`` ("format", "truncated", "ignored", ...),
    ``severity`` ("note", "warning" or "error"), ``file`` ("" for data
    loaded from memory without a name; None for an argument refused before
    any file was involved),
    ``line`` and ``column`` (1-based, text formats; None when unknown),
    ``offset`` (byte offset, binary formats; None when unknown) and
    ``message`` (what was expected and found, without the file).
    """

    __slots__ = ("code", "code_name", "severity", "file", "line", "column", "offset", "message")

    def __init__(self, code, severity, file, line, column, offset, message):
        self.code = code
        self.code_name = _code_name(code)
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.offset = offset
        self.message = message

    @classmethod
    def from_c(cls, d, file=None):
        """From an ossa_diagnostic; ``file`` stands for an empty file name
        ("" for data from memory, None when no file is involved)."""
        name = _text(d.file) or file
        return cls(int(d.code), SEVERITIES.get(int(d.severity), "error"), name,
                   d.line or None, d.column if d.line else None,
                   None if d.offset == NO_OFFSET else int(d.offset), _text(d.message))

    @property
    def where(self):
        """"LINE:COLUMN", "byte N" or "" (the tool's notation)."""
        if self.line:
            return "%d:%d" % (self.line, self.column)
        if self.offset is not None:
            return "byte %d" % self.offset
        return ""

    def __str__(self):
        # As ossa_error_format writes it; a diagnostic made here without a
        # file (an argument checked before any call) is its message alone.
        where = self.where
        if self.file is None:
            return "%s: %s" % (where, self.message) if where else self.message
        return "%s%s: %s" % (self.file or "<memory>", ":" + where if where else "", self.message)

    def __repr__(self):
        return "Diagnostic(%s %s: %r)" % (self.severity, self.code_name, str(self))


class Error(Exception):
    """A call of the library failed: bad input, a file that cannot be read or
    written, an invalid argument. ``str()`` gives "FILE:WHERE: MESSAGE" as
    the command-line tool prints it; the parts are attributes (see
    ``Diagnostic``), and ``diagnostic`` holds them all."""

    def __init__(self, diagnostic):
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic
        for name in Diagnostic.__slots__:
            setattr(self, name, getattr(diagnostic, name))

    def __reduce__(self):
        d = self.diagnostic
        return (_rebuild, (type(self), d.code, d.severity, d.file, d.line, d.column, d.offset,
                           d.message))


def _rebuild(cls, *fields):
    return cls(Diagnostic(*fields))


class ReadWriteError(Error):
    """Opening, reading, mapping, writing or renaming a file failed (code io)."""


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed (code nomem)."""


class FormatError(Error):
    """Not a file of the expected (or any known) format (code format)."""


class TruncatedError(Error):
    """The data ends before a structure it declares (code truncated)."""


class CorruptError(Error):
    """A count, offset, index or value is out of range (code corrupt)."""


class UnsupportedError(Error):
    """Valid input that ossa cannot represent (code unsupported)."""


class ArgumentError(Error, ValueError):
    """An invalid argument or option (code argument)."""


class MismatchError(Error):
    """Inputs that cannot be combined, such as skeletons that differ (code mismatch)."""


class AccessError(Error):
    """A file that a model names lies outside its folder (code access); load
    with ``allow_parent_paths=True`` to read it."""


class ExistsError(Error):
    """An output file exists and may not be replaced (code exists); save with
    ``force=True`` to replace it."""


_BY_CODE = {1: ReadWriteError, 2: OutOfMemoryError, 3: FormatError, 4: TruncatedError,
            5: CorruptError, 6: UnsupportedError, 7: ArgumentError, 8: MismatchError,
            9: AccessError, 10: ExistsError}


def error_from(diagnostic):
    return _BY_CODE.get(diagnostic.code, Error)(diagnostic)


def argument_error(message, file=None):
    """An ArgumentError made here (not by the library), for checks the
    command-line tool also makes before calling it."""
    return ArgumentError(Diagnostic(7, "error", file, None, None, None, message))


class OssaWarning(UserWarning):
    """A warning of a load, merge or write (the tool's "warning:" lines).
    ``diagnostic`` holds its code, place and message."""

    def __init__(self, diagnostic):
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


class OssaNote(OssaWarning):
    """A note of a write (an encoder's summary, such as the encodings a SOTC
    .anb writer chose): information, not a problem."""


# -- Errors of one thread -----------------------------------------------------

_local = threading.local()


def error_buffer():
    """This thread's ossa_error for calls that may fail (calls from several
    threads each fill their own)."""
    try:
        return _local.error
    except AttributeError:
        e = _local.error = S.Diagnostic()
        return e


def raise_error(err, file=None):
    """Raises the error a failed call left in ``err``."""
    raise error_from(Diagnostic.from_c(err, file))


def check(status, err, file=None):
    if status != 0:
        raise_error(err, file)


def warn(diagnostic, stacklevel=3):
    category = OssaNote if diagnostic.severity == "note" else OssaWarning
    warnings.warn(category(diagnostic), stacklevel=stacklevel)


class Collector:
    """An ossa_diagnostic_fn that keeps every diagnostic it receives (a write
    may report from its worker threads: the callback only appends)."""

    def __init__(self, file=""):
        self.file = file
        self.items = []
        self.fn = S.DIAGNOSTIC_FN(self._receive)

    def _receive(self, user, d):
        self.items.append(Diagnostic.from_c(d.contents, self.file))

    def emit(self, stacklevel=4):
        for d in self.items:
            warn(d, stacklevel)
        self.items = []


def c_string(value):
    """str or bytes as the NUL-terminated bytes a call takes (a NUL inside
    would cut the text short, so it is refused)."""
    if type(value) is str and "\0" not in value:
        try:
            return value.encode()
        except UnicodeEncodeError:  # lone surrogates: bytes decoded with surrogateescape
            pass
    b = value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogateescape")
    if b"\0" in b:
        raise ValueError("ossa: a text with a NUL character: %r" % (value,))
    return b


__all__ = ["Diagnostic", "Error", "ReadWriteError", "OutOfMemoryError", "FormatError",
           "TruncatedError", "CorruptError", "UnsupportedError", "ArgumentError",
           "MismatchError", "AccessError", "ExistsError", "OssaWarning", "OssaNote"]
