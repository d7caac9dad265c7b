"""asyncssh, imported without the deprecation warning cryptography (≥ 51) raises as asyncssh names
its DSA key types: it is for asyncssh's authors to act on, and `assay serve` prints nothing on
standard error but its own one-line errors."""

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="DSA is deprecated", module="asyncssh")
    import asyncssh

__all__ = ["asyncssh"]
