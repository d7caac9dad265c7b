from __future__ import annotations

import pytest

from assay.world.container import sandbox_available

missing = sandbox_available()
if missing is not None:  # CI installs bubblewrap; a machine without it cannot run a sandbox at all
    pytest.skip(f"no sandbox here: {missing}", allow_module_level=True)
