"""skimage.graph on the ndimg engines: same names, arguments, dtype rules and errors."""
from .._registry import export

__getattr__, __dir__ = export("graph", globals())
