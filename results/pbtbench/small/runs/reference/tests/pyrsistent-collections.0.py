"""Property-based tests for pyrsistent 0.20.0 (pyrsistent-collections)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from pyrsistent import pvector


def prop_append_then_index(values: list[int]) -> None:
    """Appending one by one gives a vector equal to the list, for any length."""
    vector = pvector()
    for value in values:
        vector = vector.append(value)
    assert len(vector) == len(values)
    assert vector.tolist() == values
    for i in range(0, len(values), 7):
        assert vector[i] == values[i]


def _evolve(vector, updates: list[tuple[int, int]]):
    """Apply in-range updates through an evolver; (evolver, the list the updates should give)."""
    evolver, expected = vector.evolver(), vector.tolist()
    for index, value in updates:
        if 0 <= index < len(expected):
            evolver[index] = value
            expected[index] = value
    return evolver, expected


def prop_evolver_leaves_original(values: list[int], updates: list[tuple[int, int]]) -> None:
    """Updates through an evolver never change the vector it came from."""
    vector = pvector(values)
    evolver, expected = _evolve(vector, updates)
    assert evolver.persistent().tolist() == expected
    assert vector.tolist() == values


def prop_evolver_sets_many(values: list[int], updates: list[tuple[int, int]]) -> None:
    """An evolver holds every update made through it."""
    evolver, expected = _evolve(pvector(values), updates)
    assert evolver.persistent().tolist() == expected


def prop_evolver_append_delete(values: list[int], ops: list[tuple[bool, int]]) -> None:
    """An evolver behaves like a list under append and del."""
    evolver = pvector(values).evolver()
    model = list(values)
    for is_delete, number in ops:
        if is_delete:
            if 0 <= number < len(model):
                del evolver[number]
                del model[number]
        else:
            evolver.append(number)
            model.append(number)
    assert len(evolver) == len(model)
    assert evolver.persistent().tolist() == model


from hypothesis import strategies as st

STRATEGIES = {
    "prop_append_then_index": dict(values=st.integers(1057, 1300).map(lambda n: list(range(n)))),
    "prop_evolver_leaves_original": dict(values=st.integers(40, 100).map(lambda n: list(range(n))),
                                         updates=st.lists(st.tuples(st.integers(0, 31), st.integers(-5, -1)),
                                                          min_size=1, max_size=5)),
    "prop_evolver_sets_many": dict(values=st.integers(100, 200).map(lambda n: list(range(n))),
                                   updates=st.lists(st.tuples(st.integers(0, 63), st.integers(-9, -1)), min_size=2, max_size=8)),
    "prop_evolver_append_delete": dict(values=st.lists(st.integers(0, 9), max_size=5),
                                       ops=st.lists(st.tuples(st.booleans(), st.integers(0, 3)), min_size=3, max_size=12)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_append_then_index'])
def test_append_then_index(values):
    prop_append_then_index(values)


@settings(max_examples=200)
@given(**STRATEGIES['prop_evolver_leaves_original'])
def test_evolver_leaves_original(values, updates):
    prop_evolver_leaves_original(values, updates)


@settings(max_examples=200)
@given(**STRATEGIES['prop_evolver_append_delete'])
def test_evolver_append_delete(values, ops):
    prop_evolver_append_delete(values, ops)


@settings(max_examples=200)
@given(**STRATEGIES['prop_evolver_sets_many'])
def test_evolver_sets_many(values, updates):
    prop_evolver_sets_many(values, updates)
