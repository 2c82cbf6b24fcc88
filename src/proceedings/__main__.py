"""`python -m proceedings` (and `accelerate launch -m proceedings ...`) runs the CLI."""

from proceedings.cli import main

main()
