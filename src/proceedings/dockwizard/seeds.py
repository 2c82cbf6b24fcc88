"""Seeds handed to the external tools that judge and build designs (Vina, LigandMPNN).

Both read a seed of 0 as "draw one at random": Vina's `Vina(seed=0)` and LigandMPNN's `--seed 0`
(its `if args.seed:` test). Our runs are seeded from 0 upwards, so the experiment's seed 0 made every
pack and every docking draw a fresh random seed and the tiny record differed from run to run. Every
call site therefore passes `tool_seed(seed)`, which is never 0.
"""

from __future__ import annotations

from proceedings.core.errors import ProceedingsError


def tool_seed(seed: int) -> int:
    """The seed an external tool receives for our `seed` (>= 0): `seed + 1`, never the tools' 'random' 0."""
    if seed < 0:
        raise ProceedingsError(f"seed must be >= 0, got {seed}")
    return seed + 1
