import random

from hypothesis import strategies as st


def _stream(heavy: list[int], size: int, seed: int) -> list[int]:
    draw = random.Random(seed)
    return [draw.choice(heavy) if draw.random() < 0.3 else draw.randint(0, 10**6) for _ in range(size)]


def _skewed_stream(min_size: int, max_size: int):
    """A stream longer than 1/threshold additions: a few heavy keys among many rare ones."""
    return st.tuples(st.lists(st.integers(0, 10**6), min_size=1, max_size=5), st.integers(min_size, max_size),
                     st.integers(0, 2**32)).map(lambda t: _stream(*t))


STRATEGIES = {
    "prop_frequent_keys_are_kept": dict(keys=_skewed_stream(1000, 2500)),
}
