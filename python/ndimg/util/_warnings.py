"""skimage.util's warning class, defined by ndimg with scikit-image's name and base."""


class PendingSkimage2Change(PendingDeprecationWarning):
    """A use of the API that will silently change or break in skimage2 (hidden by default, as every
    PendingDeprecationWarning; a warnings filter shows it)."""
