"""Property-based tests for pyrsistent 0.20.0 (pyrsistent-pvector-trie)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from pyrsistent import pvector


def prop_many_appends(values: list[int]) -> None:
    """Appending values one by one gives a vector equal to the list, element by element."""
    vector = pvector()
    for value in values:
        vector = vector.append(value)
    assert vector.tolist() == values
    assert all(vector[i] == x for i, x in enumerate(values))


def prop_set_any_index(values: list[int], updates: list[tuple[int, int]]) -> None:
    """set(i, x) changes exactly index i and leaves the original unchanged."""
    vector = pvector()
    for value in values:
        vector = vector.append(value)
    expected = list(values)
    for index, value in updates:
        if 0 <= index < len(expected):
            updated = vector.set(index, value)
            assert vector.tolist() == expected
            expected[index] = value
            vector = updated
            assert vector.tolist() == expected


def prop_evolver_sets(values: list[int], updates: list[tuple[int, int]]) -> None:
    """Assignments through an evolver give, on persistent(), the list with the same assignments."""
    vector = pvector(values)
    evolver = vector.evolver()
    expected = list(values)
    for index, value in updates:
        index %= len(expected) or 1
        if expected:
            evolver[index] = value
            expected[index] = value
    assert evolver.persistent().tolist() == expected
    assert vector.tolist() == values


from hypothesis import strategies as st

STRATEGIES = {
    "prop_many_appends": dict(values=st.integers(2081, 2300).map(lambda n: list(range(n)))),
    "prop_set_any_index": dict(values=st.integers(1100, 1400).map(lambda n: list(range(n))),
                               updates=st.lists(st.tuples(st.integers(512, 1023), st.integers(-9, -1)), min_size=1, max_size=4)),
    "prop_evolver_sets": dict(values=st.integers(1100, 1400).map(lambda n: list(range(n))),
                              updates=st.tuples(st.integers(0, 31), st.integers(-9, -1)).flatmap(lambda first: st.lists(
                                  st.tuples(st.integers(32, 1099), st.integers(-9, -1)), min_size=1, max_size=5).map(
                                  lambda rest: [first] + rest))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_many_appends'])
def test_many_appends(values):
    prop_many_appends(values)


@settings(max_examples=200)
@given(**STRATEGIES['prop_set_any_index'])
def test_set_any_index(values, updates):
    prop_set_any_index(values, updates)


@settings(max_examples=200)
@given(**STRATEGIES['prop_evolver_sets'])
def test_evolver_sets(values, updates):
    prop_evolver_sets(values, updates)
