"""The error every audio step raises for a reference it cannot use."""


class AudioError(ValueError):
    """An audio reference that cannot be used; the message names the file or item."""
