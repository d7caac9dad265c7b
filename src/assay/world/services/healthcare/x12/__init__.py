"""The X12 clearinghouse (`kind = "x12"`): eligibility, claim status and claim submission."""

from assay.world.services.healthcare.x12.service import Clearinghouse

__all__ = ["Clearinghouse"]
