"""Trust in a task: validation proofs, withdrawn tasks, baselines and scaffolding.

This package sits at the runs layer: it runs tasks through `assay.runs`, and only the surfaces
(CLI, API) use it. Names are imported on first use: `assay run` needs only the withdrawn tasks.
"""

from __future__ import annotations

from assay.lazy import lazy_names

# Bound now: importing the module of the same name would otherwise put the module under that name.
from assay.trust.fingerprint import fingerprint as fingerprint

_EXPORTS = {
    "assay.trust.baseline": ["BaselineReport", "check_baselines", "record_baselines"],
    "assay.trust.fingerprint": ["Fingerprint", "fingerprint", "world_files"],
    "assay.trust.findings": ["Proof", "TaskValidation", "WorldValidation"],
    "assay.trust.scaffold": ["add_task", "add_verifier"],
    "assay.trust.store": ["ValidationStore", "default_store"],
    "assay.trust.validate": ["save_validation", "validate_world"],
    "assay.trust.withdrawn": ["TaskState", "withdrawn_chosen", "world_states"],
}
__all__, __getattr__ = lazy_names(__name__, _EXPORTS)
