"""The HTTP API: any agent, in any language, drives task runs and gets graded."""

from assay.api.app import create_app
from assay.api.serve import open_api

__all__ = ["create_app", "open_api"]
