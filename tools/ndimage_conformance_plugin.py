"""pytest plugin of tools/ndimage-conformance: runs scipy.ndimage's own tests with ndimg.ndimage's functions in
place of scipy's and records, per test, which of them it called and how it ended.

Loaded with ``-p ndimage_conformance_plugin`` (tools/ on sys.path). The environment says what to do:

  NDIMG_CONFORMANCE_OUT    JSON file the per-test records are written to at the end of the session
  NDIMG_CONFORMANCE_PATCH  "1": every ``scipy.ndimage`` function in ndimg's registry is replaced, in every
                           scipy.ndimage namespace holding it (``scipy.ndimage``, ``scipy.ndimage._filters``,
                           ...), by ndimg's; "0": plain scipy (the baseline run).

A call that the registry entry's ``extra["unsupported"]`` ({parameter: (values, ...)}) says ndimg refuses goes
to scipy, recorded as a fallback with the reason; every other call runs ndimg, whatever its arguments.
"""
from __future__ import annotations

import collections
import functools
import json
import os
import sys

from conformance_plugin import Recorder

_MISSING = object()


def _refused(spec, args, kwargs):
    """'name=value' when the call passes a value the registry says ndimg refuses, else None."""
    for pos, name, values in spec.refused:
        v = args[pos] if pos < len(args) else kwargs.get(name, _MISSING)
        try:
            if v in values:
                return f"{name}={v!r}"
        except TypeError:  # unhashable (an array): not one of the refused values
            pass
    return None


class NdimageConformance(Recorder):
    def __init__(self, patch, out):
        super().__init__()
        self.patch, self.out = patch, out
        self.calls = collections.Counter()  # ref -> calls ndimg ran, this test
        self.fallbacks = []  # (ref, why), this test
        self._patches = []  # (namespace, key, original)

    def _wrap(self, ref, original, spec):
        impl = spec.impl

        @functools.wraps(original)
        def replaced(*args, **kwargs):
            why = _refused(spec, args, kwargs)
            if why is not None:
                self.fallbacks.append((ref, why))
                return original(*args, **kwargs)
            self.calls[ref] += 1
            return impl(*args, **kwargs)

        return replaced

    def pytest_configure(self, config):
        if not self.patch:
            return
        # before the test modules are imported, so that their `from scipy.ndimage import f` sees ndimg too
        import scipy.ndimage
        from ndimg._registry import entries
        from ndimg.backends.skimage import spec_for

        from scipy._lib._array_api import xp_capabilities_table

        wrappers = {}
        for e in entries("ndimage"):
            original = getattr(scipy.ndimage, e.name)
            wrapper = self._wrap(e.reference, original, spec_for(e.reference))
            wrappers[id(original)] = (original, wrapper)
            # the tests look their array-API marks up by function (make_xp_test_case)
            if original in xp_capabilities_table:
                xp_capabilities_table[wrapper] = xp_capabilities_table[original]
        for name, mod in list(sys.modules.items()):
            if name != "scipy.ndimage" and not name.startswith("scipy.ndimage."):
                continue
            ns = vars(mod)
            for key, value in list(ns.items()):
                hit = wrappers.get(id(value))
                if hit is not None and hit[0] is value:
                    ns[key] = hit[1]
                    self._patches.append((ns, key, value))

    def pytest_unconfigure(self, config):
        while self._patches:
            ns, key, original = self._patches.pop()
            ns[key] = original
        if self.out:
            with open(self.out, "w") as f:
                json.dump({"tests": {n: dict(r, fallback={k: sorted(v) for k, v in r["fallback"].items()})
                                     for n, r in self.tests.items()},
                           "collection": self.collection}, f)

    def start_calls(self):
        self.calls.clear()
        self.fallbacks.clear()

    def record_calls(self, rec):
        rec["ndimg"].update(self.calls)
        for ref, why in self.fallbacks:
            rec["fallback"].setdefault(ref, set()).add(why)


def pytest_configure(config):
    plugin = NdimageConformance(os.environ.get("NDIMG_CONFORMANCE_PATCH", "1") == "1",
                                os.environ.get("NDIMG_CONFORMANCE_OUT"))
    config.pluginmanager.register(plugin, "ndimg-conformance")  # pytest_configure is historic: it runs for it too
