"""ossa.convert: what ``ossa convert`` does (cli/convert_*.c), on the same
library calls: load the inputs (comma-joined mesh lists appended), apply
each input's options, merge them into the first, apply the edits, write."""

import ctypes
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from . import _errors as E
from . import _lib
from . import _options as O
from . import _structs as S
from . import _write as W
from ._model import EXTRA_IMAGE, _warnings_of

WARNING_IGNORED = 100
ANIMATION_LOOP = 1


class Input:
    """One input of ``ossa.convert`` with its own options (the tool's
    per-input options, written before the file they apply to):

    ``path``: a file, or a list of mesh files that share a skeleton, whose
    meshes are joined (the tool's ``body.iqe,head.iqe``); ``name``: the name
    of its one animation; ``fps``: the frame rate of its animations, and the
    rate it is read at when it stores none; ``loop``: its animations loop;
    ``start``, ``end``: the frames kept (the IQM SDK's rules: ``end`` is the
    last frame kept, inclusive; negative counts from the end, -1 the last
    frame, -3 drops one)."""

    __slots__ = ("path", "name", "fps", "loop", "start", "end")

    def __init__(self, path, *, name=None, fps=None, loop=False, start=None, end=None):
        self.path = path if isinstance(path, (list, tuple)) else os.fspath(path)
        self.name, self.fps, self.loop, self.start, self.end = name, fps, loop, start, end
        if name is not None and not name:
            raise E.argument_error("--name needs a non-empty name")
        if fps is not None and not (_number(fps) and 0 < fps <= 1e6):
            raise E.argument_error("--fps wants a positive number, not '%s'" % (fps,))
        if start is not None and not (_integer(start) and start >= 0):
            raise E.argument_error("--start wants a frame number 0 or more, not '%s'" % (start,))
        if end is not None and not _integer(end):
            raise E.argument_error("--end wants a frame number, not '%s'" % (end,))

    @property
    def label(self):
        """The input as the tool names it in messages."""
        return ",".join(map(os.fspath, self.path)) if isinstance(self.path, (list, tuple)) else self.path

    def __repr__(self):
        return "Input(%r)" % (self.label,)


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _integer(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _inputs(inputs):
    if isinstance(inputs, (str, os.PathLike, Input)):
        inputs = [inputs]
    out = [i if isinstance(i, Input) else Input(i) for i in inputs]
    if not out:
        raise E.argument_error("no input file")
    return out


class Messages:
    """Warnings of one conversion, given in order when it ends (so that
    conversions running side by side give theirs whole, in input order)."""

    def __init__(self):
        self.items = []

    def add(self, d):
        self.items.append(d)

    def warning(self, file, message, code=WARNING_IGNORED, severity="warning"):
        self.items.append(E.Diagnostic(code, severity, file, None, None, None, message))

    def emit(self, stacklevel):
        for d in self.items:
            E.warn(d, stacklevel)
        self.items = []


def _fail(file, message, code=7):
    """The tool's "ossa: FILE: message" for an edit or option that failed."""
    return E.error_from(E.Diagnostic(code, "error", file, None, None, None, message))


# -- The plan (the command line, checked before any file is read) --


def _as_list(value, is_item):
    if value is None:
        return []
    return [value] if is_item(value) else list(value)


def _vectors(value):
    """One option value or a list of them (a repeated option): a number or
    a sequence of numbers is one value."""
    if value is None:
        return []
    if _number(value) or all(_number(x) for x in value):
        return [value]
    return list(value)


def _euler_quat(deg):
    """The IQM SDK's -r X,Y,Z: Euler degrees, q = qz * qy * qx."""
    axes = []
    for i in range(3):
        half = deg[i] * math.pi / 360
        q = [0.0, 0.0, 0.0, math.cos(half)]
        q[i] = math.sin(half)
        axes.append(q)
    return _quat_mul(_quat_mul(axes[2], axes[1]), axes[0])


def _quat_mul(a, b):
    return [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
            a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
            a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]]


def _f32(x):
    return ctypes.c_float(x).value


class Plan:
    """The edits after merging (the tool's global options)."""

    def __init__(self, o):
        self.scale = 1.0
        for s in _as_list(o.pop("scale", None), _number):
            if not (_number(s) and s > 0):
                raise E.argument_error("--scale wants a positive number, not '%s'" % (s,))
            self.scale = _f32(self.scale * s)
        self.rotation, self.has_rotation = [0.0, 0.0, 0.0, 1.0], False
        for r in _vectors(o.pop("rotate", None)):
            if len(r) != 3 or not all(_number(x) for x in r):
                raise E.argument_error("--rotate wants X,Y,Z in degrees, not '%s'" % (r,))
            self.rotation = _quat_mul(_euler_quat([float(x) for x in r]), self.rotation)
            self.has_rotation = True
        self.meshtrans, self.has_meshtrans = [0.0, 0.0, 0.0], False
        for t in _vectors(o.pop("meshtrans", None)):
            v = [t] if _number(t) else list(t)
            if not 1 <= len(v) <= 3 or not all(_number(x) for x in v):
                raise E.argument_error("--meshtrans wants Z, X,Y or X,Y,Z, not '%s'" % (t,))
            v = [0.0, 0.0, v[0]] if len(v) == 1 else v + [0.0] * (3 - len(v))
            self.meshtrans = [_f32(a + b) for a, b in zip(self.meshtrans, v)]
            self.has_meshtrans = True
        self.force_joints = bool(o.pop("forcejoints", False))
        self.drops = [str(d) for d in _as_list(o.pop("drop_anim", None),
                                                lambda v: isinstance(v, (str, int)))]
        if any(not d for d in self.drops):
            raise E.argument_error("--drop-anim needs a name or index")
        renames = o.pop("rename_anim", None)
        if isinstance(renames, dict):
            renames = ["%s=%s" % kv for kv in renames.items()]
        self.renames = _as_list(renames, lambda v: isinstance(v, str))
        for r in self.renames:
            eq = r.find("=")
            if eq <= 0 or eq == len(r) - 1:
                raise E.argument_error("--rename-anim wants OLD=NEW, not '%s'" % r)
        self.resample = o.pop("resample", None)
        if self.resample is not None and not (_number(self.resample) and 0 < self.resample <= 1e6):
            raise E.argument_error("--resample wants a positive frame rate, not '%s'"
                                   % (self.resample,))


# -- Loading --


STDIN_NAME = "(standard input)"


def _load_file(path, load, msgs):
    """One file; "-" is standard input, read whole (the tool's rule)."""
    err = S.Diagnostic()
    if path == "-":
        data = sys.stdin.buffer.read()
        o = S.LoadOptions()
        ctypes.memmove(ctypes.byref(o), ctypes.byref(load), ctypes.sizeof(o))
        o.file_name = STDIN_NAME.encode()
        ptr = _lib.ossa_load_memory(data, len(data), ctypes.byref(o), ctypes.byref(err))
        if not ptr:
            E.raise_error(err, STDIN_NAME)
    else:
        ptr = _lib.ossa_load_file(E.c_string(path), ctypes.byref(load), ctypes.byref(err))
    if not ptr:
        E.raise_error(err, path)
    for w in _warnings_of(ptr, 0, path):
        msgs.add(w)
    return ptr


def _load_input(inp, settings, msgs):
    """One input: a file, or a comma list of files whose meshes are joined."""
    load = S.LoadOptions()
    ctypes.memmove(ctypes.byref(load), ctypes.byref(settings.options), ctypes.sizeof(load))
    if inp.fps is not None:
        load.framerate = inp.fps
    parts = inp.path
    if not isinstance(parts, (list, tuple)):
        if "," not in parts or os.path.exists(parts):
            return _load_file(parts, load, msgs)
        parts = parts.split(",")
    parts = [os.fspath(p) for p in parts]
    if any(not p for p in parts):
        raise _fail(inp.label, "an empty file name in the comma-separated list")
    model = None
    try:
        for p in parts:
            part = _load_file(p, load, msgs)
            if model is None:
                model = part
                continue
            try:
                before = S.Model.from_address(model).num_warnings
                err = S.Diagnostic()
                if _lib.ossa_model_append_meshes(model, part, ctypes.byref(err)) != 0:
                    raise _fail(p, E.Diagnostic.from_c(err).message, int(err.code))
                for w in _warnings_of(model, before, p):
                    msgs.add(w)
                n = S.Model.from_address(part).num_animations
                if n:
                    msgs.warning(p, "its %d animations are not used: a comma-separated list "
                                 "joins meshes (name the file on its own for its animations)" % n)
            finally:
                _lib.ossa_model_free(part)
        done, model = model, None
        return done
    finally:
        if model:
            _lib.ossa_model_free(model)


def _names(ptr):
    m = S.Model.from_address(ptr)
    if not m.num_animations:
        return []
    return [(a.name or b"").decode("utf-8", "surrogateescape")
            for a in (S.Animation * m.num_animations).from_address(m.animations)]


def _apply_input_options(ptr, inp, msgs):
    given = (inp.name is not None or inp.fps is not None or inp.loop or inp.start is not None
             or inp.end is not None)
    if not given:
        return
    names = _names(ptr)
    if not names:
        msgs.warning(inp.label, "it has no animation: --name, --fps, --loop, --start and --end "
                     "before it are ignored")
        return
    if inp.name is not None and len(names) > 1:
        raise _fail(inp.label, "--name names one animation, and it has %d: %s (--rename-anim "
                    "OLD=NEW renames one of them)" % (len(names), ", ".join(names)))
    err = S.Diagnostic()
    anims = (S.Animation * len(names)).from_address(S.Model.from_address(ptr).animations)
    for a in range(len(names)):
        an = anims[a]
        if inp.start is not None or inp.end is not None:
            first, count = ctypes.c_uint32(), ctypes.c_uint32()
            frames = an.num_frames
            if (_lib.ossa_animation_range(frames, inp.start or 0,
                                          -1 if inp.end is None else inp.end,
                                          ctypes.byref(first), ctypes.byref(count),
                                          ctypes.byref(err)) or
                    _lib.ossa_model_trim_animation(ptr, a, first, count, ctypes.byref(err))):
                raise _fail(inp.label, "animation '%s' (%d frames): --start/--end: %s" % (
                    names[a], frames, E.Diagnostic.from_c(err).message), int(err.code))
        fps = inp.fps if inp.fps is not None else an.framerate
        flags = an.flags | (ANIMATION_LOOP if inp.loop else 0)
        if (inp.fps is not None or inp.loop) and _lib.ossa_model_set_animation_timing(
                ptr, a, fps, flags, ctypes.byref(err)):
            raise _fail(inp.label, E.Diagnostic.from_c(err).message, int(err.code))
    if inp.name is not None and _lib.ossa_model_rename_animation(
            ptr, 0, E.c_string(inp.name), ctypes.byref(err)):
        raise _fail(inp.label, E.Diagnostic.from_c(err).message, int(err.code))


def _find_animation(ptr, arg):
    """cli_find_animation: a name, else an index spelled as text."""
    names = _names(ptr)
    if arg in names:
        return names.index(arg)
    if arg.isdigit() and len(arg) < 10 and int(arg) < len(names):
        return int(arg)
    if not names:
        raise E.argument_error("unknown animation '%s': the model has no animations" % arg)
    raise E.argument_error("unknown animation '%s'; the animations are: %s" % (
        arg, ", ".join("%s (%d)" % (n, i) for i, n in enumerate(names))))


def _apply_global(ptr, plan, label):
    err = S.Diagnostic()

    def failed(st):
        if st:
            raise _fail(label, E.Diagnostic.from_c(err).message, int(err.code))

    if plan.drops:
        drop = {_find_animation(ptr, d) for d in plan.drops}
        for a in sorted(drop, reverse=True):
            _lib.ossa_model_remove_animation(ptr, a, None)
    for spec in plan.renames:
        old, new = spec.split("=", 1)
        k = _find_animation(ptr, old)
        if _lib.ossa_model_rename_animation(ptr, k, E.c_string(new), ctypes.byref(err)):
            raise _fail(None, "--rename-anim %s: %s" % (spec, E.Diagnostic.from_c(err).message),
                        int(err.code))
    if plan.resample is not None:
        for a in range(S.Model.from_address(ptr).num_animations):
            failed(_lib.ossa_model_resample_animation(ptr, a, plan.resample, ctypes.byref(err)))
    if plan.scale != 1:
        failed(_lib.ossa_model_scale(ptr, plan.scale, ctypes.byref(err)))
    if plan.has_rotation:
        failed(_lib.ossa_model_rotate(ptr, (ctypes.c_float * 4)(*plan.rotation), ctypes.byref(err)))
    if plan.has_meshtrans:
        failed(_lib.ossa_model_translate_meshes(ptr, (ctypes.c_float * 3)(*plan.meshtrans),
                                                ctypes.byref(err)))
    if plan.force_joints:
        _lib.ossa_model_force_joints(ptr)


def convert_load(inputs, settings, plan, msgs):
    """The inputs loaded, each one's options applied, merged in order and
    edited: an ossa_model pointer the caller frees."""
    dst = None
    try:
        for inp in inputs:
            m = _load_input(inp, settings, msgs)
            try:
                _apply_input_options(m, inp, msgs)
            except BaseException:
                _lib.ossa_model_free(m)
                raise
            if dst is None:
                dst = m
                continue
            try:
                before = S.Model.from_address(dst).num_warnings
                err = S.Diagnostic()
                st = _lib.ossa_model_merge(dst, m, ctypes.byref(err))
            finally:
                _lib.ossa_model_free(m)
            if st:
                # A merge failure is about the file being merged in.
                d = E.Diagnostic.from_c(err)
                d.file = inp.label
                raise E.error_from(d)
            for w in _warnings_of(dst, before, inp.label):
                msgs.add(w)
        _apply_global(dst, plan, inputs[0].label)
        done, dst = dst, None
        return done
    finally:
        if dst:
            _lib.ossa_model_free(dst)


# -- Writing --


class _Kept:
    """Files a write would make, kept to be written later in input order."""

    def __init__(self):
        self.files = []
        self.fn = S.WRITE_OUTPUT_FN(self._keep)

    def _keep(self, user, files, count, error):
        self.files = [((files[i].path or b""), ctypes.string_at(files[i].data, files[i].size))
                      for i in range(count)]
        return 0


def _write(ptr, out, settings, msgs, kept=None):
    o = S.WriteOptions()
    ctypes.memmove(ctypes.byref(o), ctypes.byref(settings.options), ctypes.sizeof(o))
    report = W.Report(out)
    report.attach(o)
    if kept is not None:
        o.output = kept.fn
    holds = _lib.ossa_format_holds(settings.format)
    if settings.anim is not None:
        if holds and not holds & O.HOLDS_PICKS_ANIMATION:
            msgs.warning(out, "--anim is ignored: %s files hold %s" % (
                O.FORMAT_NAMES[settings.format],
                "every animation" if holds & O.HOLDS_ANIMATIONS else "no animation"))
        else:
            o.animation = _find_animation(ptr, str(settings.anim))
    err = S.Diagnostic()
    st = _lib.ossa_write_file(ptr, E.c_string(out), ctypes.byref(o), ctypes.byref(err))
    for d in report.collector.items:
        msgs.add(d)
    if st:
        E.raise_error(err, out)
    return report.paths


def _write_image(ptr, out, settings):
    """``-o OUT.png`` (cli/convert_image.c): the one image the model holds
    (a .nto texture's level), which must be a PNG, written as it is."""
    m = S.Model.from_address(ptr)
    extras = (S.Extra * m.num_extras).from_address(m.extras) if m.num_extras else []
    prefix = EXTRA_IMAGE.encode()
    images = [x for x in extras if (x.key or b"").startswith(prefix)]

    def name(x):
        return x.key[len(prefix):].decode("utf-8", "surrogateescape")
    if not images:
        raise _fail(out, "the input holds no image to write as PNG (a .png output takes the "
                         "picture of a texture file, such as a .nto)")
    if len(images) > 1:
        raise _fail(out, "the input holds %d images (%s%s): a .png output takes one"
                    % (len(images), ", ".join("'%s'" % name(x)[:100] for x in images[:3]),
                       ", ..." if len(images) > 3 else ""))
    x = images[0]
    if x.size < 8 or ctypes.string_at(x.data, 8) != b"\x89PNG\r\n\x1a\n":
        raise _fail(out, "the image '%s' is not a PNG" % name(x), 6)
    f = S.OutputFile()
    f.path, f.data, f.size = E.c_string(out), x.data, x.size
    o = S.WriteOptions()
    ctypes.memmove(ctypes.byref(o), ctypes.byref(settings.options), ctypes.sizeof(o))
    err = S.Diagnostic()
    if _lib.ossa_write_output_files(ctypes.byref(f), 1, ctypes.byref(o), ctypes.byref(err)):
        E.raise_error(err, out)
    return [out]


def _commit(kept, out, settings, msgs):
    files = (S.OutputFile * max(1, len(kept.files)))()
    for i, (path, data) in enumerate(kept.files):
        files[i].path = path
        files[i].data = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p)
        files[i].size = len(data)
    o = S.WriteOptions()
    ctypes.memmove(ctypes.byref(o), ctypes.byref(settings.options), ctypes.sizeof(o))
    report = W.Report(out)
    report.attach(o)
    err = S.Diagnostic()
    st = _lib.ossa_write_output_files(files, len(kept.files), ctypes.byref(o), ctypes.byref(err))
    for d in report.collector.items:
        msgs.add(d)
    if st:
        E.raise_error(err, out)
    return report.paths


def _kept_dirs(folder):
    """The folders of an input kept under --out-dir (--keep-dirs): as given,
    without a leading "/" or "./", each ".." as "up"."""
    out = ""
    for part in folder.split("/"):
        if part == "..":
            out += "up/"
        elif part and part != ".":
            out += part + "/"
    return out


def _output_name(out_dir, inp, fmt, keep_dirs=False):
    """DIR/[PATH/]NAME.EXT for an input (the first file of a list), as
    --out-dir names it."""
    arg = inp.path[0] if isinstance(inp.path, (list, tuple)) else inp.path
    arg = os.fspath(arg)
    if "," in arg and not os.path.exists(arg):
        arg = arg[:arg.index(",")]
    cut = arg.rfind("/") + 1
    base = arg[cut:]
    stem = base
    dot = base.rfind(".")
    if dot >= 1:
        stem = base[:dot]
    ext = _lib.ossa_format_extensions(fmt).decode().split(" ")[0]
    slash = "" if not out_dir or out_dir.endswith("/") else "/"
    path = _kept_dirs(arg[:cut]) if keep_dirs else ""
    return out_dir + slash + path + stem + ext


def _make_out_dir(d):
    try:
        os.mkdir(d)
    except FileExistsError:
        pass
    except OSError as e:
        raise E.error_from(E.Diagnostic(1, "error", d, None, None, None,
                                        "cannot create the output directory: %s" % e.strerror))


# -- The call --

CONVERT_KEYWORDS = ("out_dir", "each", "keep_dirs", "jobs", "format", "bounds", "anim", "time",
                    "embed", "images", "sparse_channels", "error", "shell", "no_clobber",
                    "force", "scale", "rotate", "meshtrans", "forcejoints", "drop_anim",
                    "rename_anim", "resample", "influences", "allow_parent_paths", "threads",
                    "level")


def _cpus():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def convert(inputs, output=None, **options):
    o = dict(options)
    inputs = _inputs(inputs)
    out_dir, each = o.pop("out_dir", None), bool(o.pop("each", False))
    jobs = o.pop("jobs", 1)
    if not (_integer(jobs) and 0 <= jobs <= 1024):
        raise E.argument_error("-j wants 0 (one per CPU) to 1024 conversions at once, not '%s'"
                               % (jobs,))
    jobs = jobs or _cpus()
    if output is not None:
        output = os.fspath(output)
    if out_dir is not None:
        out_dir = os.fspath(out_dir)
    if output is not None and out_dir is not None:
        raise E.argument_error("-o and --out-dir exclude each other")
    if each and out_dir is None:
        raise E.argument_error("--each writes one output per input: it needs --out-dir DIR")
    if output is None and out_dir is None and o.get("format") is None:
        raise E.argument_error("no output file (use -o OUT, or --out-dir DIR), or bytes: format=")
    if output == "" or out_dir == "":
        raise E.argument_error("empty output file name" if output == "" else "empty --out-dir")
    keep_dirs = bool(o.pop("keep_dirs", False))
    if keep_dirs and not each:
        raise E.argument_error("--keep-dirs goes with --each")
    if out_dir is not None and o.get("format") is None:
        raise E.argument_error(
            "--out-dir needs --format NAME (the outputs are named after the inputs)")
    threads = o.pop("threads", None)
    if threads is None:
        threads = 1 if jobs > 1 else min(64, _cpus())
    both = [k for k in o if k in O.READ_OPTIONS and k in O.WRITE_OPTIONS]
    read_only = {k: o.pop(k) for k in list(o) if k in O.READ_OPTIONS and k not in both}
    read_only.update({k: o[k] for k in both})
    for k in ("influences", "allow_parent_paths"):
        if k in o:
            read_only[k] = o.pop(k)
    read_only["threads"] = threads
    level = o.pop("level", None)
    plan = Plan(o)
    o["threads"] = threads
    write = O.WriteSettings(o, path=output, image_output=out_dir is None)
    write.refuse_rest("convert", CONVERT_KEYWORDS + tuple(O.READ_OPTIONS))
    if level is not None:
        # --level N: the mip level of a texture (.nto) written as OUT.png.
        if not (_integer(level) and 0 <= level <= 14):
            raise E.argument_error("--level wants a mip level, 0 to 14, not '%s'" % (level,))
        if not write.image_output:
            raise E.argument_error("--level picks the mip level of a texture written as OUT.png")
        read_only["sotc_nto_level"] = str(level)
    load = O.LoadSettings(read_only)
    if output is None and out_dir is None:
        return _convert_to_bytes(inputs, load, plan, write)
    if write.image_output:
        msgs = Messages()
        try:
            ptr = convert_load(inputs, load, plan, msgs)
            try:
                return _write_image(ptr, output, write)
            finally:
                _lib.ossa_model_free(ptr)
        finally:
            msgs.emit(5)
    if not each:
        out = output if output is not None else _output_name(out_dir, inputs[0], write.format)
        if out_dir is not None:
            _make_out_dir(out_dir)
        msgs = Messages()
        try:
            ptr = convert_load(inputs, load, plan, msgs)
            try:
                return _write(ptr, out, write, msgs)
            finally:
                _lib.ossa_model_free(ptr)
        finally:
            msgs.emit(5)
    return _convert_each(inputs, out_dir, load, plan, write, jobs, keep_dirs)


class _OneFile:
    """What `-o -` takes: the one file of a write, kept as bytes."""

    def __init__(self):
        self.data = None
        self.fn = S.WRITE_OUTPUT_FN(self._take)

    def _take(self, user, files, count, error):
        if count != 1:
            d = error.contents
            d.code, d.severity, d.offset = 7, 2, E.NO_OFFSET
            d.message = (("this output is %d files (%s, ...): bytes hold one; write to a file "
                          "instead" % (count, (files[1].path or b"").decode("utf-8", "replace")
                                       if count > 1 else "none"))[:255].encode())
            d.file = b"-"
            return 1
        self.data = ctypes.string_at(files[0].data, files[0].size)
        return 0


def _convert_to_bytes(inputs, load, plan, write):
    """No output file: the one file of the output as bytes (the tool's
    ``-o -``): a .gltf keeps its buffer and images inside, other formats
    write no images."""
    o = write.options
    extra = O.OptionList([(ctypes.string_at(o.format_options[i].name).decode(),
                           ctypes.string_at(o.format_options[i].value).decode())
                          for i in range(o.num_format_options)] + [("gltf.embed", "on")])
    o.format_options, o.num_format_options = extra.array, extra.count
    write._to_bytes_options = extra
    if o.images == 0:
        o.images = O.IMAGES_MODES["embed"] if write.format in (3, 4) else O.IMAGES_MODES["none"]
    one = _OneFile()
    msgs = Messages()
    try:
        ptr = convert_load(inputs, load, plan, msgs)
        try:
            _write(ptr, "-", write, msgs, one)
        finally:
            _lib.ossa_model_free(ptr)
    finally:
        msgs.emit(5)
    return one.data


def _clash_message(inputs, outs, i, other, keep_dirs):
    a, b = inputs[i].label, inputs[other].label
    fa, fb = a[:a.rfind("/") + 1], b[:b.rfind("/") + 1]
    why = ("--keep-dirs keeps their folders apart under --out-dir" if fa != fb and not keep_dirs
           else "their names differ only in the extension: convert one in another run")
    return _fail(a, "it and '%s' would both write '%s', so neither is converted (%s)"
                 % (b, outs[i], why))


def _convert_each(inputs, out_dir, load, plan, write, jobs, keep_dirs):
    """Every input on its own, ``jobs`` at a time; files written in input
    order (as the tool writes them), so that neither the files nor which
    input fails depends on ``jobs``. Inputs whose outputs would have one
    name fail alone."""
    outs = [_output_name(out_dir, i, write.format, keep_dirs) for i in inputs]
    clash = [next((j for j in range(len(outs)) if j != i and outs[j] == outs[i]), -1)
             for i in range(len(outs))]
    _make_out_dir(out_dir)

    def job(i):
        msgs, kept = Messages(), _Kept()
        try:
            if clash[i] >= 0:
                raise _clash_message(inputs, outs, i, clash[i], keep_dirs)
            if keep_dirs:
                _make_parents(out_dir, outs[i])
            ptr = convert_load([inputs[i]], load, plan, msgs)
            try:
                _write(ptr, outs[i], write, msgs, kept)
            finally:
                _lib.ossa_model_free(ptr)
            return msgs, kept, None
        except E.Error as e:
            return msgs, None, e

    results = []
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(inputs)))) as pool:
        for i, (msgs, kept, error) in enumerate(pool.map(job, range(len(inputs)))):
            if error is None:
                try:
                    results.append(_commit(kept, outs[i], write, msgs))
                except E.Error as e:
                    results.append(e)
            else:
                results.append(error)
            msgs.emit(6)
    return results


def _make_parents(top, path):
    """The folders of `path` below `top` that --keep-dirs adds."""
    folder = os.path.dirname(path)
    if len(folder) > len(top):
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            raise E.error_from(E.Diagnostic(1, "error", folder, None, None, None,
                                            "cannot create the folder: %s" % e.strerror))
