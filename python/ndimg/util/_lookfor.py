"""skimage.util.lookfor: a keyword search of ndimg's public functions' docstrings."""
from __future__ import annotations

import inspect
import re


def lookfor(what):
    """Print the public functions of ndimg whose name or docstring holds the words of `what`, the best
    matches first: each as ndimg.<module>.<name> (the scikit-image or scipy function it mirrors) and the
    first line of its docstring."""
    from .._registry import REGISTRY

    words = [w for w in re.split(r"\W+", str(what).lower()) if w]
    found = []
    for e in REGISTRY.values():
        try:
            doc = inspect.getdoc(e.load()) or ""
        except (ImportError, AttributeError):   # declared, not built on this installation
            continue
        name = e.qualname.lower()
        text = doc.lower()
        if not all(w in name or w in text for w in words):
            continue
        score = sum((1000 if w == e.name.lower() else 100 if w in name else 0) + text.count(w) for w in words)
        found.append((-score, e.qualname, e.reference.replace(":", "."), doc.split("\n", 1)[0]))
    lines = [f"Search results for '{what}'", "-" * (len(str(what)) + 21)]
    for _, qualname, reference, first in sorted(found):
        lines += [f"ndimg.{qualname} ({reference})", f"    {first}"]
    if not found:
        lines.append("Nothing found.")
    print("\n".join(lines))
