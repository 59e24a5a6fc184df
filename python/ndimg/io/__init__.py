"""Whole-slide image reading: an OpenSlide-compatible :class:`Slide` and a cuCIM-compatible :class:`CuImage`
(batched, multithreaded ``read_region`` and a decoded-tile cache), backed by ndimg's C++ reader."""
from ._slide import Slide, SlideError, open_slide
from ._cuimage import BatchIterator, CacheType, CuImage, ImageCache, preferred_memory_capacity

__all__ = ["Slide", "SlideError", "open_slide", "CuImage", "BatchIterator", "CacheType", "ImageCache",
           "preferred_memory_capacity"]
