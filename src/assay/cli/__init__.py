"""The command line."""


def main() -> None:
    from assay.cli.app import run_app

    run_app()
