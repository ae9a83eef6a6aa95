"""Writing a model: to files (Model.save) and to bytes (Model.to_bytes)."""

import ctypes
import os

from . import _errors as E
from . import _lib
from . import _options as O
from . import _structs as S

WARNING_IGNORED = 100


def pick_animation(model, settings, out_label):
    """The write options' animation from ``anim`` (name or index), as
    ``ossa convert --anim`` does: a warning instead where the format holds
    every animation or none."""
    anim = settings.anim
    if anim is None:
        return
    holds = _lib.ossa_format_holds(settings.format)
    if holds and not holds & O.HOLDS_PICKS_ANIMATION:
        E.warn(E.Diagnostic(WARNING_IGNORED, "warning", out_label, None, None, None,
                            "--anim is ignored: %s files hold %s" % (
                                O.FORMAT_NAMES[settings.format],
                                "every animation" if holds & O.HOLDS_ANIMATIONS
                                else "no animation")), 5)
        return
    settings.options.animation = model.animation_index(anim)


class Report:
    """The callbacks of one write: its warnings and the paths it wrote."""

    def __init__(self, out_label):
        self.collector = E.Collector(out_label)
        self.paths = []
        self.wrote = S.WROTE_FN(self._wrote)

    def _wrote(self, user, path):
        self.paths.append(path.decode("utf-8", "surrogateescape"))

    def attach(self, options):
        options.diagnostic = self.collector.fn
        options.wrote = self.wrote


def write_file(model, path, settings, stacklevel=4):
    """ossa_write_file with the settings; warnings given, paths returned."""
    report = Report(path)
    report.attach(settings.options)
    err = S.Diagnostic()
    status = _lib.ossa_write_file(model._owner.ptr, E.c_string(path),
                                  ctypes.byref(settings.options), ctypes.byref(err))
    report.collector.emit(stacklevel)
    if status != 0:
        E.raise_error(err, path)
    return report.paths


def save(model, path, format, options):
    path = os.fspath(path)
    options = dict(options)
    if format is not None:
        options["format"] = format
    settings = O.WriteSettings(options, path=path)
    settings.refuse_rest("save")
    pick_animation(model, settings, path)
    return write_file(model, path, settings, stacklevel=6)


def to_bytes(model, format, options):
    options = dict(options)
    options["format"] = format
    settings = O.WriteSettings(options)
    settings.refuse_rest("to_bytes")
    label = model.path or "-"
    pick_animation(model, settings, label)
    report = Report(label)
    report.attach(settings.options)
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    err = S.Diagnostic()
    status = _lib.ossa_write_memory(model._owner.ptr, ctypes.byref(settings.options),
                                    ctypes.byref(data), ctypes.byref(size), ctypes.byref(err))
    report.collector.emit(5)
    if status != 0:
        E.raise_error(err, label)
    try:
        return ctypes.string_at(data, size.value)
    finally:
        _lib.ossa_free(data, None)
