"""The HTTP API: any agent, in any language, drives task runs and gets graded.

Names are imported on first use: a client reading `assay.served.wire` needs none of the app.
"""

from __future__ import annotations

from assay.lazy import lazy_names

_EXPORTS = {
    "assay.api.app": ["create_app"],
    "assay.api.serve": ["open_api"],
}
__all__, __getattr__ = lazy_names(__name__, _EXPORTS)
