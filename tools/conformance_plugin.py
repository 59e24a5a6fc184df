"""pytest plugin of tools/skimage-conformance: runs scikit-image's own tests with ndimg acceleration on and
records, per test, which ndimg functions it exercised and how it ended. Its per-test record (:class:`Recorder`)
and the per-function summary below are shared with tools/ndimage-conformance.

mode "cpu": ``ndimg.accelerate()`` with the backend's NumPy policy 'cpu': NumPy inputs on the CPU engine.
mode "gpu": the same with the backend's NumPy policy 'gpu' forced for every size: NumPy inputs of every
            function with a CUDA engine are copied to the GPU, computed there and copied back.

Per test (its nodeid): the functions that ran ndimg (``ndimg.accelerate.stats()``, reset before each test),
the functions that fell back to scikit-image and why (the "ndimg" logger's records), and the outcome.
:meth:`Conformance.results` returns all of it for the report.
"""
from __future__ import annotations

import collections
import logging
import re

import pytest

_FALLBACK = re.compile(r"^(skimage\.[\w.]+:\w+): scikit-image ran \((.*)\)$")


class _Fallbacks(logging.Handler):
    """Collects 'skimage.x:f: scikit-image ran (why)' records of the "ndimg" logger."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.seen = []

    def emit(self, record):
        m = _FALLBACK.match(record.getMessage())
        if m:
            self.seen.append((m.group(1), m.group(2)))


def check_gpu():
    """Raise pytest.UsageError unless ndimg has its CUDA engine and CuPy sees a GPU."""
    import ndimg

    if not ndimg.built_with_cuda:
        raise pytest.UsageError("--mode gpu: this ndimg was built without its CUDA engine")
    try:
        import cupy

        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # ImportError, CUDARuntimeError
        raise pytest.UsageError(f"--mode gpu needs CuPy and a CUDA device: {type(e).__name__}: {e}") from e
    if n < 1:
        raise pytest.UsageError("--mode gpu: CuPy sees no CUDA device")


class Recorder:
    """The per-test record shared by the conformance plugins: each test's outcome (the first failure, of
    setup, call or teardown, decides; an expected failure is 'xfailed'), the first line of its failure or
    skip, and what the subclass's :meth:`record_calls` adds ("ndimg": {ref: calls}, "fallback": {ref: {why}}).
    Modules skipped or broken at collection are kept apart."""

    def __init__(self):
        self.tests = {}  # nodeid -> {"outcome", "reason", "ndimg": {ref: calls}, "fallback": {ref: {why}}}
        self.collection = {}  # nodeid of a module skipped or broken at collection -> (outcome, reason)

    def _rec(self, nodeid):
        return self.tests.setdefault(nodeid, {"outcome": None, "reason": "", "ndimg": {}, "fallback": {}})

    def start_calls(self):
        """Before a test: forget the calls counted so far."""

    def record_calls(self, rec):
        """After a test: add its calls to `rec`."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.start_calls()
        rec = self._rec(item.nodeid)
        yield
        self.record_calls(rec)

    def pytest_runtest_logreport(self, report):
        rec = self._rec(report.nodeid)
        if rec["outcome"] == "failed":
            return  # the first failure (setup, call or teardown) decides
        if report.failed:
            rec["outcome"], rec["reason"] = "failed", _reason(report)
            if report.when != "call":
                rec["reason"] = f"[{report.when}] {rec['reason']}"
        elif report.skipped:
            rec["outcome"] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
            rec["reason"] = report.wasxfail if hasattr(report, "wasxfail") else _reason(report)
        elif report.when == "call":
            rec["outcome"] = "passed"

    def pytest_collectreport(self, report):
        if report.failed or report.skipped:
            self.collection[report.nodeid] = ("error" if report.failed else "skipped", _reason(report))

    def results(self):
        return self.tests


class Conformance(Recorder):
    def __init__(self, mode):
        if mode not in ("cpu", "gpu"):
            raise ValueError(f"mode must be 'cpu' or 'gpu', got {mode!r}")
        super().__init__()
        self.mode = mode
        self._handler = _Fallbacks()

    # --- session -------------------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config):
        # on before the test modules are imported, so that their `from skimage.x import f` sees ndimg too
        import ndimg
        from ndimg.backends import skimage as backend

        if self.mode == "gpu":
            check_gpu()
            backend.set_numpy_policy("gpu", force_gpu=True)
        else:  # whatever NDIMG_SKIMAGE_NUMPY says
            backend.set_numpy_policy("cpu")
        log = logging.getLogger("ndimg")
        log.addHandler(self._handler)
        log.setLevel(logging.DEBUG)
        ndimg.accelerate()

    def pytest_unconfigure(self, config):
        import ndimg
        from ndimg.backends import skimage as backend

        ndimg.accelerate(False)
        backend.set_numpy_policy(None)
        logging.getLogger("ndimg").removeHandler(self._handler)

    # --- per test ------------------------------------------------------------------------------------
    def start_calls(self):
        import ndimg

        ndimg.accelerate.reset_stats()
        self._handler.seen.clear()

    def record_calls(self, rec):
        import ndimg

        for ref, counts in ndimg.accelerate.stats().items():
            if counts["ndimg"]:
                rec["ndimg"][ref] = counts["ndimg"]
        for ref, why in self._handler.seen:
            rec["fallback"].setdefault(ref, set()).add(why)


# --- the summary, per function ------------------------------------------------------------------------
def summarize(tests):
    """Per function: Counter of outcomes of the tests that ran ndimg for it, and of the tests where it only
    fell back; overall counters for the tests that exercise ndimg and for those that do not."""
    per_fn = collections.defaultdict(collections.Counter)
    fallback_only = collections.Counter()
    reasons = collections.defaultdict(collections.Counter)
    touched, untouched = collections.Counter(), collections.Counter()
    for rec in tests.values():
        outcome = rec["outcome"] or "not run"
        for ref in rec["ndimg"]:
            per_fn[ref][outcome] += 1
        for ref, whys in rec["fallback"].items():
            for why in whys:
                reasons[ref][why] += 1
            if ref not in rec["ndimg"]:
                fallback_only[ref] += 1
        (touched if rec["ndimg"] else untouched)[outcome] += 1
    return per_fn, fallback_only, reasons, touched, untouched


def run_passed_failed(c):
    """(run, passed, failed): an expected failure (xfail) is the suite's expected outcome, so it passes."""
    passed = c["passed"] + c["xfailed"]
    failed = c["failed"]
    return passed + failed, passed, failed


def pct(passed, run):
    return 100.0 * passed / run if run else 0.0


def table(per_fn, fallback_only):
    rows = [("function", "run", "passed", "failed", "skipped", "fallback-only")]
    for ref in sorted(set(per_fn) | set(fallback_only)):
        c = per_fn.get(ref, collections.Counter())
        run, passed, failed = run_passed_failed(c)
        rows.append((ref, str(run), str(passed), str(failed), str(c["skipped"]), str(fallback_only[ref])))
    return rows


def print_table(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, r in enumerate(rows):
        print("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths))))
        if k == 0:
            print("  ".join("-" * w for w in widths))


def _reason(report):
    """The first line of a failure's (or skip's) message."""
    lr = report.longrepr
    crash = getattr(lr, "reprcrash", None)
    if crash is not None and crash.message:
        return crash.message.strip().splitlines()[0]
    if isinstance(lr, tuple) and len(lr) == 3:  # a skip: (path, line, message)
        return str(lr[2]).splitlines()[0]
    lines = [ln for ln in str(lr).splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("E ")]
    return (errors[0][1:].strip() if errors else lines[-1] if lines else "").strip()
