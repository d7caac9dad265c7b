"""The layers of assay (docs/concepts.md): a module imports only from layers before its own, so
no arrow runs back up. `make lint` runs this; it reads every import, those inside functions too."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "assay"
CONCEPTS = PACKAGE.parents[1] / "docs" / "concepts.md"

# Top to bottom. `taskrun` and `verify` share a floor: neither imports the other (checks read the
# final state, never the loop that made it). `served`, `rl`, `report` and `launch` are the rooms
# surfaces share (task runs served by id, episodes for trainers, pages of stored runs, benchmark
# runs started in this process); a surface reaches another's work only through them, never by
# importing the other surface (see SURFACE_STARTERS).
LAYERS: list[set[str]] = [
    {
        "errors",
        "lazy",
        "registry",
        "provider",
        "litellm_provider",
        "settings",
    },  # the foundation every layer may use
    {"formats"},
    {"world"},
    {"taskrun", "verify"},
    {"score"},
    {"runs"},
    {"trust"},
    {"served", "rl", "report", "launch"},
    {
        "cli",
        "api",
        "sdk",
        "mcp",
        "view",
        "client",
        "gym",
        "openenv",
        "inspect",
        "evaluation",
        "__init__",
    },
]
FLOOR = {name: index for index, names in enumerate(LAYERS) for name in names}
SURFACES = len(LAYERS) - 1
# The surfaces that start or mount others, and the surfaces each may import to do it: the
# command line starts every server, the package's public face names the SDK, and the HTTP API
# mounts the MCP server and the viewer under its own routes.
SURFACE_STARTERS = {
    "cli": LAYERS[SURFACES],
    "__init__": LAYERS[SURFACES],
    "api": {"mcp", "view"},
}


def _room(path: Path, package: Path = PACKAGE) -> str:
    """The top-level package (or module) of assay a file belongs to."""
    parts = path.relative_to(package).with_suffix("").parts
    return "__init__" if parts in (("__init__",), ("__main__",)) else parts[0]


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, room) of every `assay.<room>` the module imports."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [(node.lineno, name.split(".")[1]) for name in names if name.startswith("assay.")]
    return found


def _problem(room: str, target: str) -> str | None:
    """Why `room` may not import `target`, if it may not."""
    here, there = FLOOR[room], FLOOR[target]
    if there > here or (there == here and here not in (0, SURFACES)):
        return "a layer below it"
    if here == SURFACES and there == SURFACES and target not in SURFACE_STARTERS.get(room, ()):
        return "another surface (share through served, rl, report or launch)"
    return None


def upward_imports(package: Path = PACKAGE) -> list[str]:
    """`file:line: room imports room, why` for each import of a layer below the importer's own, of
    another room on the same floor (the foundation aside), or of another surface (but for the
    surfaces that start or mount it)."""
    problems = []
    for path in sorted(package.rglob("*.py")):
        room = _room(path, package)
        for line, target in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            problem = None if target == room else _problem(room, target)
            if problem is not None:
                where = path.relative_to(package.parent)
                problems.append(f"{where}:{line}: {room} imports {target}, {problem}")
    return problems


def test_every_room_of_the_package_has_a_floor():
    rooms = {_room(path) for path in PACKAGE.rglob("*.py")}
    assert rooms - set(FLOOR) == set(), "add the new package to LAYERS (and docs/concepts.md)"


def test_no_layer_imports_one_below_it():
    assert upward_imports() == []


def test_an_import_of_a_lower_layer_is_caught(tmp_path):
    """The arrow the check was made for: verify importing taskrun, inside a function."""
    (tmp_path / "verify").mkdir()
    (tmp_path / "taskrun").mkdir()
    (tmp_path / "taskrun" / "agents.py").write_text("")
    (tmp_path / "verify" / "judge.py").write_text(
        "def ask():\n    from assay.taskrun.agents import model\n"
    )
    assert upward_imports(tmp_path) == [
        f"{tmp_path.name}/verify/judge.py:2: verify imports taskrun, a layer below it"
    ]


def test_a_surface_importing_another_is_caught(tmp_path):
    """The MCP server reaching into the HTTP API's rooms, rather than the served-run layer both
    call; the API mounting the MCP server is allowed."""
    for room in ("mcp", "api", "served"):
        (tmp_path / room).mkdir()
    (tmp_path / "served" / "context.py").write_text("")
    (tmp_path / "mcp" / "local.py").write_text(
        "from assay.served.context import Context\nfrom assay.api.context import Context\n"
    )
    (tmp_path / "api" / "app.py").write_text("from assay.mcp.local import LocalRun\n")
    assert upward_imports(tmp_path) == [
        f"{tmp_path.name}/mcp/local.py:2: mcp imports api, another surface "
        "(share through served, rl, report or launch)"
    ]


def test_the_documented_layers_are_the_checked_ones():
    """docs/concepts.md's table of layers names the floors above, in their order."""
    text = CONCEPTS.read_text(encoding="utf-8").split("## Layers", 1)[1].split("\n\n")[2]
    documented = re.findall(r"^\| `(\w+)` \|", text, flags=re.MULTILINE)
    checked = [name for names in LAYERS[1:SURFACES] for name in sorted(names, key=documented.index)]
    assert documented == checked
