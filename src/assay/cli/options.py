"""Arguments and options that several commands share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

WorldArgument = Annotated[Path, typer.Argument(help="A world directory (holding world.toml).")]
TaskOption = Annotated[
    list[str] | None, typer.Option("--task", help="A task id; repeat the option for several.")
]
SplitOption = Annotated[
    list[str] | None,
    typer.Option("--split", help="train, dev or holdout; repeatable (default: train and dev)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="URL",
        help="The records store: sqlite:///FILE, a file path or postgresql+psycopg://USER@HOST/DB "
        "(default: $ASSAY_STORE, else .assay/assay.db).",
    ),
]
RunArgument = Annotated[
    str, typer.Argument(metavar="RUN", help="A benchmark run id, or the start of one.")
]
