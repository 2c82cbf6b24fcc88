import random

from hypothesis import strategies as st


def _stream_past_first_compaction(size: int, seed: int) -> list[int]:
    """`size` (> 1/threshold) additions: 30 % of them a few recurring keys, the rest keys seen about once."""
    draw = random.Random(seed)
    recurring = [draw.randint(0, 10**6) for _ in range(draw.randint(1, 5))]
    return [draw.choice(recurring) if draw.random() < 0.3 else draw.randint(0, 10**6) for _ in range(size)]


STRATEGIES = {
    "prop_common_and_uncommon_counts_add_up": dict(
        keys=st.builds(_stream_past_first_compaction, st.integers(1001, 2500), st.integers(0, 2**32))),
}
