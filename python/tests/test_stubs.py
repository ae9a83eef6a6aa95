"""The type stubs (ossa/__init__.pyi) describe the package as it is: every
public name is in them, every function and method there has the runtime's
parameters (names, kinds, defaults), every property is a property, and
every public callable has a docstring that help() shows."""

import ast
import inspect
import os
import pydoc

from conftest import ROOT
import ossa

STUB = os.path.join(ROOT, "python", "ossa", "__init__.pyi")


def _tree():
    return ast.parse(open(STUB).read())


def _stub_params(fn):
    a = fn.args
    out = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + a.defaults
    for p, d in zip(positional, defaults):
        out.append((p.arg, "positional", None if d is None else ast.literal_eval(d)))
    if a.vararg:
        out.append((a.vararg.arg, "var_positional", None))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, "keyword_only", None if d is None else ast.literal_eval(d)))
    if a.kwarg:
        out.append((a.kwarg.arg, "var_keyword", None))
    return out


def _runtime_params(obj):
    kinds = {inspect.Parameter.POSITIONAL_ONLY: "positional",
             inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
             inspect.Parameter.VAR_POSITIONAL: "var_positional",
             inspect.Parameter.KEYWORD_ONLY: "keyword_only",
             inspect.Parameter.VAR_KEYWORD: "var_keyword"}
    return [(p.name, kinds[p.kind], None if p.default is inspect.Parameter.empty else p.default)
            for p in inspect.signature(obj).parameters.values()]


def _check_function(fn, obj, where):
    assert callable(obj), where
    assert _stub_params(fn) == _runtime_params(obj), where


def test_every_public_name_is_in_the_stubs():
    tree = _tree()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    missing = [n for n in ossa.__all__ if n not in names]
    assert not missing


def test_signatures_match():
    checked = 0
    for node in _tree().body:
        if isinstance(node, ast.FunctionDef):
            _check_function(node, getattr(ossa, node.name), node.name)
            checked += 1
        elif isinstance(node, ast.ClassDef) and node.name in ossa.__all__:
            cls = getattr(ossa, node.name)
            assert inspect.isclass(cls), node.name
            for item in node.body:
                if not isinstance(item, ast.FunctionDef):
                    continue
                where = "%s.%s" % (node.name, item.name)
                attr = inspect.getattr_static(cls, item.name)
                if any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                    assert isinstance(attr, property) or type(attr).__name__ == "cached_property", where
                else:
                    _check_function(item, getattr(cls, item.name), where)
                checked += 1
    assert checked > 80


def test_docstrings():
    for name in ossa.__all__:
        obj = getattr(ossa, name)
        if callable(obj) and not isinstance(obj, type(ossa.TRANSFORM)):
            assert inspect.getdoc(obj), name
            if inspect.isclass(obj):
                for k, v in vars(obj).items():
                    if not k.startswith("_") and (inspect.isfunction(v) or isinstance(v, property)):
                        assert inspect.getdoc(v), "%s.%s" % (name, k)
    text = pydoc.render_doc(ossa.Model, renderer=pydoc.plaintext)
    assert "read-only numpy views" in text and "def save" not in text and "save(self, path" in text
    assert "Samples the clip at every time" in pydoc.render_doc(ossa.Clip.sample,
                                                                renderer=pydoc.plaintext)
