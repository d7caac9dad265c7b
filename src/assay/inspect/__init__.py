"""assay worlds as inspect_ai tasks: `inspect eval assay/<world>` (the `inspect` extra). inspect's
model providers and agent loop act; the role's tools act on assay's world, and assay grades it."""
