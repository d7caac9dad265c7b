"""999 acknowledgments (005010X231A1): from pyx12's validation of an 837, or from the envelope
checks of a 270/276 whose sets or groups are broken; IK5/AK9 codes are the guide's."""

from __future__ import annotations

from assay.world.services.healthcare.x12.build import segment
from assay.world.services.healthcare.x12.envelope import GroupResult
from assay.world.services.healthcare.x12.validate import Validation

WRITTEN = ("AK1", "AK2", "IK3", "CTX", "IK4", "IK5", "AK9")
CLAIM_GUIDES = ("005010X222A1", "005010X223A2")  # the 837 maps pyx12 validates against


def body_from_pyx12(checked: Validation) -> list[str]:
    """The AK1..AK9 pyx12 wrote for the 837 (its IK3/IK4 errors and IK5/AK9 codes), AK904 set to
    0 where the group is rejected."""
    found = ["999"]
    for part in checked.ack.split("~"):
        part = part.strip()
        if not part.startswith(WRITTEN):
            continue
        if part.startswith("AK9*R*"):
            elements = part.split("*")
            elements[4] = "0"  # a rejected group accepts none of its sets
            part = "*".join(elements)
        found.append(part)
    return found


def body_unsupported(groups: list[GroupResult]) -> list[str]:
    """An 837 group pyx12 has no map for: AK9*R with AK905 1 (functional group not supported)
    or 2 (its GS08 version is not supported)."""
    group = groups[0]
    code = "1" if group.functional != "HC" else "2" if group.version not in CLAIM_GUIDES else "1"
    received = str(len(group.sets))
    return [
        "999",
        segment("AK1", group.functional, group.control, group.version),
        segment("AK9", "R", group.declared or received, received, "0", code),
    ]


def body_from_groups(groups: list[GroupResult]) -> list[str]:
    """AK1, an AK2/IK5 per set and AK9 for each group (one group is what the service reads)."""
    group = groups[0]
    found = ["999", segment("AK1", group.functional, group.control, group.version)]
    for item in group.sets:
        found.append(segment("AK2", item.code, item.control, group.version))
        found.append(segment("IK5", "R" if item.errors else "A", *item.errors[:5]))
    accepted = group.accepted
    code = _group_code(group)
    found.append(
        segment(
            "AK9",
            code,
            group.declared or str(len(group.sets)),
            str(len(group.sets)),
            str(accepted),
            *group.errors[:5],
        )
    )
    return found


def _group_code(group: GroupResult) -> str:
    """AK901: A all sets accepted, P some, R none (or the group's own envelope is broken)."""
    if group.errors or not group.accepted:
        return "R"
    return "A" if group.accepted == len(group.sets) else "P"


def rejects(groups: list[GroupResult]) -> bool:
    """Whether any group or set of the interchange is rejected by its envelope."""
    return any(group.errors or any(item.errors for item in group.sets) for group in groups)
