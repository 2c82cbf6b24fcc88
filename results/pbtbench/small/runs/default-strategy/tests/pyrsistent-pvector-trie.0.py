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


@settings(max_examples=200)
@given(values=...)
def test_many_appends(values: list[int]):
    prop_many_appends(values)


@settings(max_examples=200)
@given(values=..., updates=...)
def test_set_any_index(values: list[int], updates: list[tuple[int, int]]):
    prop_set_any_index(values, updates)


@settings(max_examples=200)
@given(values=..., updates=...)
def test_evolver_sets(values: list[int], updates: list[tuple[int, int]]):
    prop_evolver_sets(values, updates)
