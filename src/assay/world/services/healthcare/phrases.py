"""Deterministic phrase matching for voice lines and transcripts: lower case, punctuation gone,
spaces collapsed, whole-phrase substring; optionally fuzzy (rapidfuzz `partial_ratio`)."""

from __future__ import annotations

import re

PUNCTUATION = re.compile(r"[^\w\s]")
SPACES = re.compile(r"\s+")


def normalise(text: str) -> str:
    return SPACES.sub(" ", PUNCTUATION.sub(" ", text.lower())).strip()


def says(text: str, phrase: str, fuzzy: int | None = None) -> bool:
    """Whether `text` contains `phrase` (normalised); with `fuzzy`, a partial ratio at least that."""
    heard, wanted = normalise(text), normalise(phrase)
    if not wanted:
        return False
    if f" {wanted} " in f" {heard} ":
        return True
    if fuzzy is None:
        return False
    from rapidfuzz import fuzz  # only when a check asks for fuzzy matching

    return fuzz.partial_ratio(wanted, heard) >= fuzzy
