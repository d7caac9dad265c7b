"""The voice line (`kind = "voice"`): a scripted IVR or persona, text turns with speakers."""

from assay.world.services.healthcare.voice.service import VoiceLine

__all__ = ["VoiceLine"]
