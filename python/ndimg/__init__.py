"""ndimg: n-dimensional image processing with the scikit-image API on NVIDIA GPUs and all CPU cores."""
from . import _core
from ._engine import get_num_threads, set_num_threads
from . import ndimage, filters, measure, metrics, morphology, color, exposure, util, draw, transform, segmentation, restoration, registration, feature, graph, future  # noqa: E402  (namespaces are filled lazily from the registry)
from . import accelerate  # noqa: E402  (callable module: ndimg.accelerate(), ndimg.accelerate.stats())
from .accelerate import accelerated  # noqa: E402

__version__ = "0.1.0"
CUDAError = _core.CUDAError
built_with_cuda = _core.built_with_cuda

__all__ = ["filters", "ndimage", "measure", "metrics", "morphology", "color", "exposure", "util", "draw", "transform",
           "segmentation", "restoration", "registration", "feature", "graph", "future", "accelerate", "accelerated", "set_num_threads", "get_num_threads", "CUDAError", "built_with_cuda"]
