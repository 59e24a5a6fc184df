"""skimage.color on the ndimg engines: same names, arguments, dtype rules and errors."""
from .._registry import export

_functions, _names = export("color", globals())

# skimage.color's data: the 22 stain matrices and the named colours, loaded on first use like the functions
_DATA = {f"{a}_from_{b}": "_colorconv" for s in ("hed", "hdx", "fgx", "bex", "rbd", "gdx", "hax", "bro", "bpx",
                                                  "ahx", "hpx") for a, b in (("rgb", s), (s, "rgb"))}
_DATA["color_dict"] = "_colorlabel"
__all__ = sorted(__all__ + list(_DATA))  # noqa: F821 (set by export)


def __getattr__(name):
    if name in _DATA:
        import importlib

        value = globals()[name] = getattr(importlib.import_module(f"{__name__}.{_DATA[name]}"), name)
        return value
    return _functions(name)


def __dir__():
    return sorted(set(_names()) | set(_DATA))
