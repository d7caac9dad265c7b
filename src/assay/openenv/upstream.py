"""openenv-core imported without its Gradio web interface, unless that interface is asked for.

openenv-core's package imports its web interface, and with it Gradio (most of the package's import
time: seconds), though the interface serves only when ENABLE_WEB_INTERFACE is set, and
`create_app` then imports it again itself. Hidden while openenv-core loads, Gradio reads as not
installed, which openenv-core allows for.
"""

from __future__ import annotations

import os
import sys

_ASKED = os.environ.get("ENABLE_WEB_INTERFACE", "").lower() in ("true", "1", "yes")

if _ASKED or "gradio" in sys.modules:
    import openenv.core
else:
    sys.modules["gradio"] = None  # type: ignore[assignment]  # `import gradio` fails at once
    try:
        import openenv.core  # noqa: F401
    finally:
        del sys.modules["gradio"]
