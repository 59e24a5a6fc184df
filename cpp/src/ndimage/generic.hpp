// generic_filter and generic_filter1d (scipy.ndimage): a caller's function evaluated per window or per line,
// in scipy's LowLevelCallable forms. The windows are gathered here (footprint taps over the input extended
// by the boundary mode, as the rank family's), into one reusable double buffer handed to the function.
//
// The function may call into Python and may not be thread-safe: every call is made on the calling thread,
// in C order of the output, one after the other (an output that is the input itself sees the values already
// written, as scipy's does). A call returning 0 stops the filter at once; the function has recorded why.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/ndimage.hpp"

namespace ndimg::ndimage {

// scipy's "int (double *, intptr_t, double *, void *)": the window's values (footprint order) -> *result.
using WindowFn = int (*)(double* window, intptr_t size, double* result, void* data);
// scipy's "int (double *, intptr_t, double *, intptr_t, void *)": an extended input line -> an output line.
using LineFn = int (*)(double* in_line, intptr_t in_length, double* out_line, intptr_t out_length, void* data);

// out[i] = fn(in[ext(i + offsets[k])] for every tap k), offsets as ndimage_footprint.hpp's (K x ndim), cval
// outside in constant mode. `window`: K doubles to gather into (nullptr: a buffer of the filter's own).
// Host arrays only; false where fn returned 0.
bool generic_filter(const View& in, const View& out, std::span<const int64_t> offsets, Mode mode, double cval,
                    WindowFn fn, void* data, double* window = nullptr);

// For each line along `axis`: the line extended by size // 2 + origin before and the rest of the window after
// (n + size - 1 values) -> fn -> n values written to out's line. `in_line` (n + size - 1 doubles) and
// `out_line` (n doubles, zeroed before each call as scipy's) may be the caller's (nullptr: the filter's own).
bool generic_filter1d(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval, int origin,
                      LineFn fn, void* data, double* in_line = nullptr, double* out_line = nullptr);

}  // namespace ndimg::ndimage
