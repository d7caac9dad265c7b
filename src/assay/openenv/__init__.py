"""An assay world served to OpenEnv clients (`assay openenv WORLD`), and a typed client.

Needs the `openenv` extra (`pip install 'assay[openenv]'`).
"""

try:
    import assay.openenv.upstream  # noqa: F401  (openenv-core, without Gradio: see there)
except ImportError:  # pragma: no cover - only without the extra
    raise ImportError(
        "assay.openenv needs the openenv extra: pip install 'assay[openenv]'"
    ) from None

from assay.openenv.client import TaskClient
from assay.openenv.env import TaskEnvironment
from assay.openenv.models import TaskAction, TaskObservation, TaskState
from assay.openenv.server import openenv_app

__all__ = [
    "TaskAction",
    "TaskClient",
    "TaskEnvironment",
    "TaskObservation",
    "TaskState",
    "openenv_app",
]
