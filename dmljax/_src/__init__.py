"""Private implementation of dmljax; the public names are re-exported by ``dmljax``."""
