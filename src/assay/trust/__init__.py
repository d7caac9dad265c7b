"""Trust in a task: validation proofs, withdrawn tasks, baselines and scaffolding.

This package sits at the runs layer: it runs tasks through `assay.runs`, and only the surfaces
(CLI, API) use it.
"""

from assay.trust.baseline import BaselineReport, check_baselines, record_baselines
from assay.trust.fingerprint import Fingerprint, fingerprint, world_files
from assay.trust.model import Proof, TaskValidation, WorldValidation
from assay.trust.scaffold import add_task, add_verifier
from assay.trust.store import ValidationStore, default_store
from assay.trust.validate import save_validation, validate_world
from assay.trust.withdrawn import TaskState, withdrawn_chosen, world_states

__all__ = [
    "BaselineReport",
    "Fingerprint",
    "Proof",
    "TaskState",
    "TaskValidation",
    "ValidationStore",
    "WorldValidation",
    "add_task",
    "add_verifier",
    "check_baselines",
    "default_store",
    "fingerprint",
    "record_baselines",
    "save_validation",
    "validate_world",
    "withdrawn_chosen",
    "world_files",
    "world_states",
]
