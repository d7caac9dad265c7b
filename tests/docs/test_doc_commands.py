"""Every command the README and the docs show is run, in a copy of the example worlds, exits as the
page says and prints the lines shown under it; a block that cannot run here says why (see docskit
for the marks)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from docskit import ROOT, SHELLS, Block, shell_blocks

from assay.cli.app import run_app

# Stand-ins the pages use for ids, made when a page first needs one: the command that makes it
# and where its id is in that command's JSON.
RUN_A = ("run", "worlds/shop", "--agent", "reference", "--task", "refund-double-charge", "--json")
PLACEHOLDERS: dict[str, tuple[tuple[str, ...], Callable[[dict], str]]] = {
    "RUN": (RUN_A, lambda made: made["benchmark_run"]["id"]),
    "br_3f2a": (RUN_A, lambda made: made["benchmark_run"]["id"]),
    "br_9c1d": (RUN_A, lambda made: made["benchmark_run"]["id"]),
    "key_3f2a9c01d4e7": (
        ("keys", "create", "--scope", "evaluate", "--json"),
        lambda made: made["id"],
    ),
}
SHELL_SYNTAX = frozenset({"|", "||", "&&", ";", "<", ">>", "&"})


@dataclass
class Ran:
    code: int
    out: str
    err: str


def runnable(block: Block) -> bool:
    return block.language == "console" and not {"no-run", "run-by"} & block.marks.keys()


RUNNABLE = [block for block in shell_blocks() if runnable(block)]
PAGES = sorted({block.page for block in RUNNABLE})


def test_every_shell_block_follows_the_convention():
    problems = []
    for block in shell_blocks():
        reason = block.marks.get("no-run", block.marks.get("run-by"))
        if reason is not None and not reason.strip():
            problems.append(f"{block.where}: a no-run or run-by mark needs its reason")
        if block.language != "console" and "run-by" not in block.marks:
            problems.append(
                f"{block.where}: a {block.language} block is ```console with `$ ` lines"
            )
        if block.language == "console" and not block.commands:
            problems.append(f"{block.where}: a console block without a `$ ` command")
        if not re.fullmatch(r"\d+", block.marks.get("exit", "0")):
            problems.append(f"{block.where}: exit: takes one exit code")
        for named in re.findall(r"tests/[\w/.-]+", reason or ""):
            if not (ROOT / named.rstrip(".")).exists():
                problems.append(f"{block.where}: names {named}, which does not exist")
    assert not problems, "\n".join(problems)


def test_most_commands_run_and_the_rest_say_why():
    blocks = shell_blocks()
    ran = sum(len(block.commands) for block in RUNNABLE)
    skipped = [block for block in blocks if "no-run" in block.marks]
    assert ran >= 25, f"only {ran} commands are run"
    assert all(block.marks["no-run"] for block in skipped)
    assert {block.language for block in blocks} <= SHELLS


@pytest.mark.parametrize("page", PAGES)
def test_the_commands_of_a_page_run(page, tmp_path, monkeypatch, capsys):
    """In page order, in one fresh copy of the worlds per page, as a reader would type them."""
    for tree in ("worlds", "examples"):
        shutil.copytree(ROOT / tree, tmp_path / tree, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    monkeypatch.setenv("ASSAY_HOME", ".assay")
    monkeypatch.setenv("COLUMNS", "200")
    shell = Shell(monkeypatch, capsys)
    for block in (block for block in RUNNABLE if block.page == page):
        wanted = int(block.marks.get("exit", "0"))
        for command, shown in block.steps:
            ran = shell.run(command)
            assert ran.code == wanted, (
                f"{block.where}: `{command}` exited {ran.code}, not {wanted}\n"
                f"{ran.out[-2000:]}\n{ran.err[-2000:]}"
            )
            printed = {" ".join(line.split()) for line in ran.out.splitlines()}
            for line in shown:  # what the page shows it printing, it prints
                assert " ".join(line.split()) in printed, f"{block.where}: `{command}`: {line}"


class Shell:
    """Runs `assay …` lines in this process; `export A=B`, `A=B assay …` and `> FILE` as a shell would."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
        self.monkeypatch = monkeypatch
        self.capsys = capsys
        self.made: dict[str, str] = {}

    def run(self, command: str) -> Ran:
        words = [self._stand_in(word) for word in shlex.split(command, comments=True)]
        if words[0] == "export":
            for assignment in words[1:]:
                self.monkeypatch.setenv(*assignment.split("=", 1))
            return Ran(0, "", "")
        env = {}
        while "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
            name, value = words.pop(0).split("=", 1)
            env[name] = value
        output = None
        if len(words) > 2 and words[-2] == ">":
            output, words = words[-1], words[:-2]
        assert words[0] == "assay" and not SHELL_SYNTAX & set(words), (
            f"`{command}`: only `assay …` lines run here; mark the block run-by the test that runs it"
        )
        with self.monkeypatch.context() as scoped:
            for name, value in env.items():
                scoped.setenv(name, value)
            ran = self.assay(*words[1:])
        if output is not None:
            Path(output).write_text(ran.out)
        return ran

    def assay(self, *args: str) -> Ran:
        self.capsys.readouterr()
        self.monkeypatch.setattr(sys, "argv", ["assay", *args])
        code = 0
        try:
            run_app()
        except SystemExit as done:
            code = int(done.code or 0)
        captured = self.capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    def _stand_in(self, word: str) -> str:
        for placeholder, (args, id_of) in PLACEHOLDERS.items():
            if re.search(rf"\b{placeholder}\b", word):
                if placeholder not in self.made:
                    made = self.assay(*args)
                    assert made.code == 0, made.err
                    self.made[placeholder] = id_of(json.loads(made.out))
                word = re.sub(rf"\b{placeholder}\b", self.made[placeholder], word)
        return word
