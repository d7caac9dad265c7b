"""The target of the `inspect_ai` entry point: importing it registers assay's tasks with inspect."""

from assay.inspect.tasks import world  # noqa: F401  (registering is the import's effect)
