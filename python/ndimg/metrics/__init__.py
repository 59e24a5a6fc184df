"""skimage.metrics on the ndimg engines: same names, arguments, result types and errors.

NumPy inputs give what scikit-image gives (NumPy floats / arrays, SciPy sparse tables). GPU inputs give
0-d / 1-d arrays of the caller's library and CuPy sparse tables (mean_squared_error, normalized_root_mse and
peak_signal_noise_ratio wait for the device: their two-input reduction returns its sums to the host).
"""
from .._registry import export

__getattr__, __dir__ = export("metrics", globals())
