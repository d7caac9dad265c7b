"""The viewer as an application of its own, for `assay view`: no key, meant for 127.0.0.1."""

from __future__ import annotations

from fastapi import FastAPI

from assay import __version__
from assay.runs.store import Store
from assay.view.routes import viewer_router


def create_viewer(store: Store) -> FastAPI:
    """The viewer's pages at the root, reading `store`."""
    app = FastAPI(title="assay viewer", version=__version__, openapi_url=None, docs_url=None)
    app.include_router(viewer_router(store))
    return app
