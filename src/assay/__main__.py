"""`python -m assay`: the command line."""

from assay.cli import main

main()
