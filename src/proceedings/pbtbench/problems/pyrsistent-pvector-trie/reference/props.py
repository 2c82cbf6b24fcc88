"""Reference properties (hidden): one per bug."""
from pyrsistent import pvector


def _appended(count: int):
    vector = pvector()
    for x in range(count):
        vector = vector.append(x)
    return vector


def prop_many_appends(values: list[int]) -> None:
    """Appending values one by one gives a vector equal to the list, element by element."""
    vector = pvector()
    for value in values:
        vector = vector.append(value)
    assert vector.tolist() == values
    assert all(vector[i] == x for i, x in enumerate(values))


def prop_set_any_index(count: int, updates: list[tuple[int, int]]) -> None:
    """set(i, x) changes exactly index i and leaves the original unchanged."""
    if not 0 <= count <= 3000:
        return
    vector = _appended(count)
    expected = list(range(count))
    for index, value in updates:
        if 0 <= index < count:
            updated = vector.set(index, value)
            assert vector.tolist() == expected
            expected[index] = value
            vector = updated
            assert vector.tolist() == expected


def prop_bulk_extend(values: list[int], more: list[int]) -> None:
    """pvector(values).extend(more) holds values + more."""
    vector = pvector(values).extend(more)
    expected = values + more
    assert vector.tolist() == expected and len(vector) == len(expected)
    assert all(vector[i] == x for i, x in enumerate(expected))
