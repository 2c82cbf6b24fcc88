import random

from hypothesis import strategies as st


def _strings(count: int, seed: int) -> list[str]:
    """`count` strings of 200-400 letters drawn from `seed` (drawing them one by one is too large for Hypothesis)."""
    rng = random.Random(seed)
    return ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(200, 400))) for _ in range(count)]


# 80-150 strings: a stream of 16-60 KiB, so several reads of the file
STRATEGIES = {
    "prop_tell_after_each_object": dict(values=st.builds(_strings, st.integers(80, 150), st.integers(0, 2**32))),
}
