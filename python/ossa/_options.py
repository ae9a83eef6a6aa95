"""Options by keyword: the shared load and write options, and each format's
named options ("fbx.keep_units" is the keyword ``fbx_keep_units``), listed
from ``ossa_format_options`` so that a format or option added to the
library needs no change here."""

import ctypes
import math
import os

from . import _errors as E
from . import _lib
from . import _structs as S

# -- Formats ----------------------------------------------------------------------


def _formats():
    n = _lib.ossa_format_list(None, 0)
    arr = (ctypes.c_int * n)()
    _lib.ossa_format_list(arr, n)
    return list(arr)


FORMAT_IDS = _formats()
FORMAT_NAMES = {f: _lib.ossa_format_name(f).decode() for f in FORMAT_IDS}


class FormatOption:
    """One option of a format: ``name`` ("fbx.keep_units"), ``keyword``
    ("fbx_keep_units"), ``type`` ("switch", "choice" or "number"),
    ``choices`` (a tuple of words for choices), ``default`` (text) and
    ``description`` (one line)."""

    __slots__ = ("name", "keyword", "type", "choices", "default", "description")

    def __init__(self, info):
        self.name = info.name.decode()
        self.keyword = self.name.replace(".", "_")
        self.type = ("switch", "choice", "number")[info.type] if 0 <= info.type < 3 else "?"
        self.choices = tuple((info.choices or b"").decode().split())
        self.default = (info.default_value or b"").decode()
        self.description = (info.description or b"").decode()

    def __repr__(self):
        return "FormatOption(%r, %s, default %r)" % (self.name, self.type, self.default)


def _format_options(writing):
    out = {}
    for f in FORMAT_IDS:
        table = ctypes.POINTER(S.OptionInfo)()
        n = _lib.ossa_format_options(f, writing, ctypes.byref(table))
        for i in range(n):
            o = FormatOption(table[i])
            out.setdefault(o.keyword, o)
    return out


READ_OPTIONS = _format_options(0)
WRITE_OPTIONS = _format_options(1)


def format_id(name):
    """The ossa_format of a name ("iqm", "glb") or file name; ArgumentError
    when there is none."""
    f = _lib.ossa_format_from_name(E.c_string(os.fspath(name)))
    if f == 0:
        raise E.argument_error("unknown format '%s' (%s)" % (
            name, ", ".join(FORMAT_NAMES[i] for i in FORMAT_IDS)))
    return f


def _value_text(keyword, value):
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise E.argument_error("%s needs a finite number, not %r" % (keyword, value))
        return repr(value)
    return str(value)


class OptionList:
    """A C array of ossa_option and the bytes it points to."""

    def __init__(self, pairs):
        self._keep = [(E.c_string(n), E.c_string(v)) for n, v in pairs]
        self.array = (S.Option * max(1, len(self._keep)))()
        for i, (n, v) in enumerate(self._keep):
            self.array[i].name = n
            self.array[i].value = v
        self.count = len(self._keep)


def take_format_options(kwargs, table):
    """Removes the format options of ``table`` from ``kwargs`` and returns
    their (name, text) pairs; None means not given."""
    pairs = []
    for kw in list(kwargs):
        if kw in table:
            value = kwargs.pop(kw)
            if value is not None:
                pairs.append((table[kw].name, _value_text(kw, value)))
    return pairs


def unknown_keywords(kwargs, known, what, other=None):
    """TypeError for keywords nobody took, naming the ones that exist (and
    those that are options of the other direction, ``other``)."""
    if not kwargs:
        return
    names = sorted(kwargs)
    hint = ""
    if other:
        wrong = [k for k in names if k in other]
        if wrong:
            hint = " (%s %s for %s)" % (", ".join(wrong), "is an option" if len(wrong) == 1
                                        else "are options", "writing" if what == "load" else "reading")
    raise TypeError("%s() got unexpected keyword argument%s %s%s; the known ones are: %s" % (
        what, "s" if len(names) > 1 else "", ", ".join(repr(k) for k in names), hint,
        ", ".join(sorted(known))))


# -- Loading ------------------------------------------------------------------------

LOAD_FLAG_ALLOW_PARENT_PATHS = 1
LOAD_FLAG_NO_IMAGES = 2
LOAD_FLAG_KEEP_DEGENERATE = 4

LOAD_KEYWORDS = ("format", "name", "fps", "influences", "allow_parent_paths", "images",
                 "keep_degenerate", "front", "threads")
FRONTS = {"x": 2, "+x": 2, "-x": 4, "y": 3, "+y": 3, "-y": 1}


class LoadSettings:
    """ossa_load_options from keywords (what the tool's reading options are,
    plus format, name, images and threads), kept with what it points to."""

    def __init__(self, kwargs):
        kwargs = dict(kwargs)
        self.options = o = S.LoadOptions()
        o.struct_size = ctypes.sizeof(S.LoadOptions)
        self.empty = True
        fmt = kwargs.pop("format", None)
        if fmt is not None:
            o.format = format_id(fmt)
            self.empty = False
        self.name = kwargs.pop("name", None)
        fps = kwargs.pop("fps", None)
        if fps is not None:
            if not (isinstance(fps, (int, float)) and 0 < fps <= 1e6):
                raise E.argument_error("--fps wants a positive number, not '%s'" % (fps,))
            o.framerate = fps
            self.empty = False
        influences = kwargs.pop("influences", None)
        if influences is not None:
            if not (isinstance(influences, int) and 1 <= influences <= 8):
                raise E.argument_error("--influences wants 1..8, not '%s'" % (influences,))
            o.max_influences = influences
            self.empty = False
        if kwargs.pop("allow_parent_paths", False):
            o.flags |= LOAD_FLAG_ALLOW_PARENT_PATHS
            self.empty = False
        if not kwargs.pop("images", True):
            o.flags |= LOAD_FLAG_NO_IMAGES
            self.empty = False
        if kwargs.pop("keep_degenerate", False):
            o.flags |= LOAD_FLAG_KEEP_DEGENERATE
            self.empty = False
        front = kwargs.pop("front", None)
        if front is not None:
            # content that breaks its format's convention (a Blender export
            # to MD5 faces -Y)
            if front not in FRONTS:
                raise E.argument_error("--front is x, -x, y or -y, not '%s'" % (front,))
            o.front = FRONTS[front]
            self.empty = False
        threads = kwargs.pop("threads", None)
        if threads is not None:
            if not (isinstance(threads, int) and 0 <= threads <= 64):
                raise E.argument_error("threads wants 0..64, not %r" % (threads,))
            o.threads = threads
            self.empty = self.empty and threads <= 1
        pairs = take_format_options(kwargs, READ_OPTIONS)
        self.extra = kwargs  # for the caller to take more from, or refuse
        self.format_options = OptionList(pairs)
        if pairs:
            o.format_options = self.format_options.array
            o.num_format_options = self.format_options.count
            self.empty = False

    def refuse_rest(self, what="load", known=LOAD_KEYWORDS):
        unknown_keywords(self.extra, list(known) + list(READ_OPTIONS), what, WRITE_OPTIONS)

    def pointer(self):
        """The options for one load: NULL when every one is the default."""
        if self.name is None and self.empty:
            return None
        if self.name is not None:
            self._file_name = E.c_string(self.name)
            self.options.file_name = self._file_name
        return ctypes.byref(self.options)


# -- Writing ------------------------------------------------------------------------

BOUNDS_MODES = {"conservative": 1, "exact": 2, "stored": 3, "none": 4}
IMAGES_MODES = {"beside": 1, "embed": 2, "none": 3}
WRITE_NO_REPLACE = 1
WRITE_KEEP_FRONT = 2
HOLDS_ANIMATIONS = 4
HOLDS_PICKS_ANIMATION = 16

WRITE_KEYWORDS = ("format", "bounds", "anim", "time", "embed", "images", "sparse_channels",
                  "error", "shell", "no_clobber", "force", "keep_front", "threads")


def _positive(keyword, value):
    """What the tool's --error and --shell take: a positive number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3e38:
        raise E.argument_error("--%s needs a positive number, not '%s'" % (keyword, value))
    return repr(float(value))


class WriteSettings:
    """ossa_write_options from the keywords of ``ossa convert``'s output
    options: format, bounds, anim, time, embed, images, sparse_channels,
    error and shell (.ossaclip), no_clobber, force, keep_front and threads,
    plus each format's writing options."""

    def __init__(self, kwargs, path=None, default_threads=1, image_output=False):
        kwargs = dict(kwargs)
        self.options = o = S.WriteOptions()
        o.struct_size = ctypes.sizeof(S.WriteOptions)
        fmt = kwargs.pop("format", None)
        # image_output (ossa.convert): a path that no format names and that
        # ends in .png takes the input's one image, as ossa convert -o
        # OUT.png does (the format stays 0).
        self.image_output = False
        if fmt is not None:
            o.format = format_id(fmt)
        elif path is not None:
            f = _lib.ossa_format_from_name(E.c_string(os.fspath(path)))
            name = os.fspath(path)
            if f == 0 and image_output and len(name) > 4 and name[-4:].lower() == ".png":
                self.image_output = True
            elif f == 0:
                raise E.argument_error(
                    "cannot tell the output format from '%s'; use format=" % os.fspath(path))
            o.format = f
        else:
            raise TypeError("a format is needed (format='glb', ...)")
        bounds = kwargs.pop("bounds", None)
        if bounds is not None:
            if bounds not in BOUNDS_MODES:
                raise E.argument_error(
                    "unknown bounds mode '%s' (conservative, exact, stored, none)" % bounds)
            o.bounds = BOUNDS_MODES[bounds]
        self.anim = kwargs.pop("anim", None)
        pairs = []
        if kwargs.pop("embed", False):
            pairs.append(("gltf.embed", "on"))
        if kwargs.pop("sparse_channels", False):
            pairs.append(("gltf.sparse_channels", "on"))
        time = kwargs.pop("time", None)
        if time is not None:
            if isinstance(time, bool) or not isinstance(time, (int, float)) or not math.isfinite(time):
                raise E.argument_error(
                    "--time needs a finite number of seconds, not '%s'" % (time,))
            pairs.append(("obj.pose_time", repr(float(time))))
        for keyword in ("error", "shell"):
            value = kwargs.pop(keyword, None)
            if value is not None:
                pairs.append(("ossaclip." + keyword, _positive(keyword, value)))
        images = kwargs.pop("images", None)
        if images is not None:
            if images not in IMAGES_MODES:
                raise E.argument_error("unknown --images mode '%s' (beside, embed, none)" % images)
            o.images = IMAGES_MODES[images]
        # Existing files are replaced, as the tool replaces them (force says
        # so, and is taken); no_clobber replaces nothing.
        force = kwargs.pop("force", False)
        if kwargs.pop("no_clobber", False):
            if force:
                raise E.argument_error("--force and --no-clobber exclude each other")
            o.flags |= WRITE_NO_REPLACE
        # writers turn a model to face their format's front unless told
        if kwargs.pop("keep_front", False):
            o.flags |= WRITE_KEEP_FRONT
        threads = kwargs.pop("threads", None)
        threads = default_threads if threads is None else threads
        if not (isinstance(threads, int) and 0 <= threads <= 64):
            raise E.argument_error("threads wants 0..64, not %r" % (threads,))
        o.threads = threads
        pairs = take_format_options(kwargs, WRITE_OPTIONS) + pairs
        self.extra = kwargs
        self.format_options = OptionList(pairs)
        o.format_options = self.format_options.array
        o.num_format_options = self.format_options.count

    def refuse_rest(self, what="save", known=WRITE_KEYWORDS):
        unknown_keywords(self.extra, list(known) + list(WRITE_OPTIONS), what, READ_OPTIONS)

    @property
    def format(self):
        return self.options.format
