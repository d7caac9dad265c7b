"""The read-only web viewer: runs, a run, a task run, two runs compared; pages drawn by the report."""

from assay.view.routes import viewer_router

__all__ = ["viewer_router"]
