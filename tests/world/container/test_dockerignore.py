""".dockerignore by Docker's rules: which context entries are left out, and what a walk skips."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import SpecError
from assay.world.container.dockerignore import DockerIgnore, read_dockerignore

# (the .dockerignore, the paths it leaves out, the paths it keeps)
CASES = {
    "name-at-the-root-only": ("*.log", ["a.log"], ["d/a.log", "a.txt"]),
    "double-star-at-any-depth": ("**/*.log", ["a.log", "d/a.log", "d/e/a.log"], ["a.txt"]),
    "a-directory-takes-its-contents": ("d", ["d", "d/x", "d/e/f"], ["dd", "e/d"]),
    "trailing-slash-cleaned": ("d/", ["d", "d/x"], ["dd"]),
    "leading-slash-dropped": ("/d", ["d/x"], ["e/d"]),
    "dot-slash-cleaned": ("./d/x", ["d/x"], ["d/y"]),
    "under-a-directory-not-itself": ("d/**", ["d/x", "d/e/f"], ["d"]),
    "double-star-in-the-middle": ("a/**/z", ["a/z", "a/b/z", "a/b/c/z"], ["a/b/y", "z"]),
    "question-mark-is-one-char-not-slash": ("a?c", ["abc"], ["a/c", "abbc"]),
    "star-never-crosses-a-slash": ("a*", ["abc", "a/x"], ["b/a1"]),
    "character-class": ("[ab].txt", ["a.txt", "b.txt"], ["c.txt"]),
    "regex-characters-are-literal": ("a+(b).txt", ["a+(b).txt"], ["aa(b).txt", "a+b.txt"]),
    "escaped-star-is-literal": ("\\*.txt", ["*.txt"], ["a.txt"]),
    "comments-and-blanks": ("# a.txt\n\n  \nb.txt", ["b.txt"], ["a.txt", "# a.txt"]),
    "exception-takes-back": ("*.txt\n!keep.txt", ["a.txt"], ["keep.txt"]),
    "exception-inside-a-left-out-directory": ("d\n!d/keep", ["d/x"], ["d/keep", "d/keep/f"]),
    "last-match-wins": ("*.txt\n!a.txt\na.txt", ["a.txt", "b.txt"], []),
    "exception-first-does-nothing": ("!a.txt\n*.txt", ["a.txt"], []),
    "spaces-around-are-trimmed": ("  a.txt  \n ! b.txt", [], ["b.txt"]),
    "everything-but": ("*\n!src", ["Dockerfile", "tests"], ["src", "src/main.py"]),
}


@pytest.mark.parametrize(("text", "out", "kept"), CASES.values(), ids=CASES.keys())
def test_which_paths_are_left_out(text: str, out: list[str], kept: list[str]) -> None:
    ignore = DockerIgnore.parse(text, ".dockerignore")
    assert [path for path in out if not ignore.excluded(path)] == []
    assert [path for path in kept if ignore.excluded(path)] == []


def test_spaces_around_trimmed_leave_the_pattern_itself() -> None:
    assert DockerIgnore.parse("  a.txt  ", ".dockerignore").excluded("a.txt")


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ("a\n!\n", "line 2", "'!' alone is not a pattern"),
        ("[abc", "line 1", "'[abc'"),
    ],
)
def test_a_pattern_docker_refuses_names_its_line(text: str, field: str, message: str) -> None:
    with pytest.raises(SpecError) as raised:
        DockerIgnore.parse(text, "environment/.dockerignore")
    assert (raised.value.file, raised.value.field) == ("environment/.dockerignore", field)
    assert message in raised.value.message


def make_tree(root: Path, paths: list[str]) -> None:
    for relative in paths:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(relative)


def test_a_walk_lists_whole_directories_and_single_files(tmp_path: Path) -> None:
    make_tree(tmp_path, ["node_modules/a/b.js", "d/keep/k", "d/x", "d/e/y", "a.log", "src/m.py"])
    ignore = DockerIgnore.parse("node_modules\nd\n!d/keep\n*.log", ".dockerignore")
    assert ignore.left_out(tmp_path) == {
        tmp_path / "node_modules",
        tmp_path / "d" / "x",
        tmp_path / "d" / "e",
        tmp_path / "a.log",
    }


def test_no_patterns_leave_nothing_out(tmp_path: Path) -> None:
    make_tree(tmp_path, ["a"])
    assert DockerIgnore.none().left_out(tmp_path) == frozenset()


def test_the_dockerfiles_own_ignore_file_comes_first(tmp_path: Path) -> None:
    (tmp_path / ".dockerignore").write_text("a\n")
    (tmp_path / "Dockerfile").write_text("FROM x\n")
    assert read_dockerignore(tmp_path / "Dockerfile", tmp_path).excluded("a")
    (tmp_path / "Dockerfile.dockerignore").write_text("b\n")
    chosen = read_dockerignore(tmp_path / "Dockerfile", tmp_path)
    assert (chosen.excluded("a"), chosen.excluded("b")) == (False, True)
