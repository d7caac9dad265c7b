"""pyx12's validation reads each implementation guide's map once per process and gives every
document a copy of its own: a validation never sees what an earlier one counted."""

from __future__ import annotations

from healthkit import claim_837

from assay.world.services.healthcare.x12.validate import validate


def test_each_document_is_validated_on_its_own_copy_of_the_map(monkeypatch):
    import pyx12.map_if

    first_bad, good, second_bad = (
        validate(claim_837(release=False)),
        validate(claim_837()),
        validate(claim_837(release=False)),
    )
    assert good.valid and not first_bad.valid
    # the same document gets the same findings, however many came first (pyx12's own 999
    # envelope carries the machine's clock, which the service replaces)
    assert (second_bad.valid, second_bad.errors) == (first_bad.valid, first_bad.errors)
    assert body(second_bad.ack) == body(first_bad.ack)
    # several claims in a row are each counted from zero in their own copy of the map
    assert [validate(claim_837(f"PCN{n:04d}")).valid for n in range(3)] == [True, True, True]

    loads = []
    kept = pyx12.map_if.load_map_file
    monkeypatch.setattr(
        pyx12.map_if,
        "load_map_file",
        lambda *args, **more: loads.append(args) or kept(*args, **more),
    )
    monkeypatch.setattr(kept, "assay_keeps_maps", True, raising=False)
    assert validate(claim_837()).valid
    assert loads  # pyx12 asked for its maps, and got them from what the process keeps


def body(ack: str) -> list[str]:
    """The 999's segments between its envelope's: what was found, not when."""
    return [
        line
        for line in ack.splitlines()
        if line.split("*")[0] in ("AK1", "AK2", "IK3", "IK4", "IK5", "AK9")
    ]
