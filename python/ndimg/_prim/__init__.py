"""The internal API of ndimg's C++ primitive families, one module per family.

Public functions (``ndimg.filters``, ``ndimg.metrics``, ...) call these instead of ``ndimg._core`` or each
other's private helpers. Every function takes working arrays (NumPy on the CPU engine, CuPy on CUDA; inside
``engine_aware`` bodies), runs on the array's engine and queue, allocates its outputs with the array's
library, and takes its options by keyword.
"""
