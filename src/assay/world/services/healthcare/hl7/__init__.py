"""The HL7 v2 interface (`kind = "hl7"`): outbound sends answered with ACKs, a seeded inbox."""

from assay.world.services.healthcare.hl7.service import Hl7Interface

__all__ = ["Hl7Interface"]
