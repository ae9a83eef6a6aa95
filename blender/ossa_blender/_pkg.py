"""The ossa Python package: the copy inside the add-on (what the zip of
make blender-addon holds: ossa_blender/ossa with its libraries in
ossa/_libs), else one Python finds (make install, pip, PYTHONPATH)."""

try:
    from . import ossa  # noqa: F401  (bundled)
except ImportError:
    import ossa  # noqa: F401
