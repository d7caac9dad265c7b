"""The command line."""


def main() -> None:
    from assay.cli import collector

    collector.pause()  # until the command's body begins: `assay.cli.collector`
    from assay.cli.app import run_app

    run_app()
