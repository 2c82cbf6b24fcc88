"""`python -m proceedings` (and `accelerate launch -m proceedings ...`) runs the CLI."""

from proceedings.cli import main

if __name__ == "__main__":  # not when a spawned worker (warm-up) re-imports this module as __mp_main__
    main()
