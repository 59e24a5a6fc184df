"""skimage.filters on the ndimg engines: same names, arguments, dtype rules and errors."""
from .._registry import export
from . import rank  # noqa: F401  (skimage.filters.rank; filled lazily from the registry like this module)

__getattr__, __dir__ = export("filters", globals())
