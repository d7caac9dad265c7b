"""Run settings in force for one test (`assay.settings`), as a run's configuration sets them, and
the ones before it again afterwards."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from assay import settings
from assay.provider import ModelOptions


def use_settings(monkeypatch: Any, **chosen: Any) -> None:
    """These run settings (`RunSettings` fields) in force until the test ends."""
    monkeypatch.setattr(settings, "_in_force", replace(settings.in_force(), **chosen))


def use_model_at(monkeypatch: Any, url: str, **options: Any) -> None:
    """Every model asked at `url`, with no retries (and these `ModelOptions`)."""
    use_settings(monkeypatch, model=ModelOptions(base_url=url, retries=0, **options))
