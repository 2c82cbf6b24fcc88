from hypothesis import strategies as st

_NAME = st.binary(min_size=1, max_size=8).map(lambda b: b"x-" + b.hex().encode())


def _entry(total: int):
    """A literal step whose entry takes exactly `total` octets of table space."""
    return _NAME.map(lambda name: (0, name, b"v" * (total - 32 - len(name))))


def _references(count: int) -> list:
    """Steps referring to dynamic entries count-1, ..., 0: the oldest first."""
    return [(1 + 3 * position, b"", b"") for position in reversed(range(count))]


def _exact_fit(sizes: list[int]):
    """Literals of the given sizes, the last one bringing the table to exactly 4,096 octets."""
    return st.tuples(*[_entry(s) for s in sizes], _entry(4096 - sum(sizes))).map(
        lambda literals: list(literals) + _references(len(literals)))


def _overflow(then: list):
    """Literals of 132 octets each (sums never hit 4,096 exactly) until some are evicted, then `then`."""
    return st.integers(32, 60).flatmap(lambda n: st.tuples(*[_entry(132)] * n).map(lambda lits: list(lits) + then))


_FIELD = st.tuples(_NAME, st.binary(min_size=1, max_size=20))


def _oversized_between(fields: list):
    """A block of fields, a block with one field larger than the whole table, then each field again."""
    big = st.tuples(_NAME, st.integers(4200, 6000)).map(lambda t: (t[0], b"b" * t[1]))
    return big.map(lambda field: [fields, [field]] + [[f] for f in fields])


STRATEGIES = {
    "prop_entries_that_fit_exactly_stay": dict(
        steps=st.lists(st.integers(100, 400), min_size=2, max_size=9).flatmap(_exact_fit)),
    "prop_eviction_removes_the_oldest_entry": dict(steps=_overflow(_references(31))),
    "prop_entry_size_counts_the_overhead": dict(steps=_overflow([(2, b"", b"")] * 3)),
    "prop_oversized_entry_empties_the_table": dict(
        steps=st.tuples(st.lists(_entry(100), min_size=1, max_size=5), _NAME, st.integers(4200, 6000)).map(
            lambda t: t[0] + [(0, t[1], b"b" * t[2]), (2, b"", b""), (0, b"x-after", b"1"), (2, b"", b"")])),
    "prop_encoder_and_decoder_agree_across_blocks": dict(
        blocks=st.lists(_FIELD, min_size=1, max_size=5, unique_by=lambda f: f[0]).flatmap(_oversized_between)),
}
