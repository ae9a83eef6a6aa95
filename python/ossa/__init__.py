"""ossa: skeletal animated models in Python, on the ossa C libraries.

Read, write and convert IQM, IQE, glTF, FBX, MD5, SMD, OBJ, Shadow of the
Colossus XFF and illEngine files; sample animations into numpy arrays;
skin; render pictures. Arrays view the model's own memory (read-only, no
copy) where its layout allows, and stay valid after the model object is
gone. The GIL is released during loads, writes, conversions, sampling,
skinning and rendering, so threads convert files side by side.

    import numpy as np, ossa
    fox = ossa.load("Fox.glb")
    walk = fox.clip("Walk")
    pose = walk.sample(np.arange(0, walk.duration, 1 / 60))  # every 60th of a second
    pose.model.shape                                          # (T, joints, 4, 4)

Bad input raises ``ossa.Error`` (a subclass per kind of failure) with the
message the ``ossa`` command prints; warnings go through ``warnings`` as
``ossa.OssaWarning``. The C libraries are found as ``ossa._lib`` explains
(``OSSA_LIBRARY_PATH``, next to the package, the system); ``ossa.LIBRARY``
says which were loaded.
"""

__version__ = "0.2.0"

from . import _lib
from ._build import ModelBuilder
from ._convert import Input
from ._convert import convert as _convert
from ._errors import (AccessError, ArgumentError, CorruptError, Diagnostic, Error,
                      ExistsError, FormatError, MismatchError, OssaNote, OssaWarning,
                      OutOfMemoryError, ReadWriteError, TruncatedError, UnsupportedError)
from ._model import Animation, Material, Mesh, Model, Sample, VertexArray, load
from ._options import FORMAT_IDS as _FORMAT_IDS
from ._options import FORMAT_NAMES as _FORMAT_NAMES
from ._options import READ_OPTIONS as _READ_OPTIONS
from ._options import WRITE_OPTIONS as _WRITE_OPTIONS
from ._options import FormatOption
from ._render import (encode_gif, encode_png, read_png, render, write_gif, write_png)
from ._runtime import (Clip, Skinned, blend, build_clip, load_clip, local_to_model,
                       make_additive, skin, skinning_matrices)
from ._structs import BOUNDS, TRANSFORM

LIBRARY = _lib.LOCATION
"""Where the C libraries were loaded from."""
LIBRARY_VERSION = _lib.LIBRARY_VERSION
"""The version of the C libraries loaded ("MAJOR.MINOR.PATCH")."""


def convert(inputs, output=None, **options):
    """What ``ossa convert`` does, by keyword: loads ``inputs`` (paths, or
    ``ossa.Input`` with per-input options; a list of paths inside an Input
    joins their meshes), merges each later one into the first (a mesh, a
    skeleton, animation files), edits the result and writes ``output``.
    Returns the paths written.

    An input "-" is standard input, read whole. Output: ``format``
    (default from ``output``), ``bounds``, ``anim``, ``time``, ``embed``,
    ``images``, ``sparse_channels``, ``error`` and ``shell`` (.ossaclip),
    ``no_clobber``, as in ``Model.save``; without ``output`` (and with a
    ``format``), the bytes of the one file written, as ``-o -`` prints them.
    An ``output`` ending in .png that names no model format takes the one
    image the input holds, which must be a PNG (a .nto texture's level:
    ``level``, 0 to 14, default 0). Edits, in the tool's order:
    ``drop_anim`` (names or indices), ``rename_anim`` ({old: new} or
    ["OLD=NEW"]), ``resample`` (fps), ``scale`` (> 0), ``rotate`` ((x, y,
    z) Euler degrees, q = qz * qy * qx), ``meshtrans`` (z, (x, y) or (x, y,
    z)) and ``forcejoints``;
    ``scale``, ``rotate`` and ``meshtrans`` also take a list, applied in
    turn as repeated options are. Reading: ``influences``,
    ``allow_parent_paths``, each format's options (``fbx_keep_units=True``;
    an option formats have for reading and writing, such as ``obj_axes``,
    applies to both). ``threads`` (default: every CPU for one conversion).

    Batches: ``out_dir=DIR`` writes DIR/NAME.EXT named after the (first)
    input (``format`` needed); with ``each=True`` every input is converted
    on its own, ``jobs`` at a time (0 = one per CPU), and the result is a
    list with, per input, its paths or the ``ossa.Error`` it failed with
    (inputs whose outputs would have one name fail alone; ``keep_dirs=True``
    writes DIR/PATH/NAME.EXT, PATH the input's folder). The bytes written
    are those of the tool with the same options."""
    return _convert(inputs, output, **options)


def formats():
    """The formats the library knows: a list of dicts with ``name``,
    ``extensions``, ``read`` and ``write``."""
    out = []
    for f in _FORMAT_IDS:
        out.append({"name": _FORMAT_NAMES[f],
                    "extensions": _lib.ossa_format_extensions(f).decode().split(),
                    "read": bool(_lib.ossa_format_can_read(f)),
                    "write": bool(_lib.ossa_format_can_write(f))})
    return out


def format_options(writing=False):
    """Every format's named options for reading (or writing), by keyword:
    ``{"fbx_keep_units": FormatOption(...), ...}``. The keyword FAMILY_NAME
    is the option "FAMILY.NAME" (``ossa formats`` lists the same)."""
    return dict(_WRITE_OPTIONS if writing else _READ_OPTIONS)


def detect(data):
    """The name of the format of some bytes, from their content, or None."""
    b = bytes(data)
    f = _lib.ossa_format_detect(b, len(b))
    return _FORMAT_NAMES.get(f)


__all__ = [
    "load", "convert", "Input", "Model", "ModelBuilder", "Mesh", "Animation", "VertexArray",
    "Material", "Sample", "Clip", "load_clip", "build_clip", "Skinned", "skin",
    "skinning_matrices", "local_to_model", "blend", "make_additive", "render", "encode_png",
    "write_png", "read_png", "encode_gif", "write_gif", "formats", "format_options",
    "FormatOption", "detect", "TRANSFORM", "BOUNDS", "Diagnostic", "Error", "ReadWriteError",
    "OutOfMemoryError", "FormatError", "TruncatedError", "CorruptError", "UnsupportedError",
    "ArgumentError", "MismatchError", "AccessError", "ExistsError", "OssaWarning", "OssaNote",
    "LIBRARY", "LIBRARY_VERSION", "__version__",
]
