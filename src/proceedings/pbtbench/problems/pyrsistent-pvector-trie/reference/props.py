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
