"""The payer portal (`kind = "portal"`): keyed resources, prior authorisations with rules."""

from assay.world.services.healthcare.portal.service import Portal

__all__ = ["Portal"]
