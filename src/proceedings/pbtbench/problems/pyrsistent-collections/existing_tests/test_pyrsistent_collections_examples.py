from pyrsistent import pmap, pvector


def test_vector_append_is_persistent():
    v1 = pvector([1, 2])
    v2 = v1.append(3)
    assert v1.tolist() == [1, 2] and v2.tolist() == [1, 2, 3]


def test_evolver():
    v = pvector(range(5))
    e = v.evolver()
    e[0] = 9
    assert e.persistent().tolist() == [9, 1, 2, 3, 4] and v[0] == 0


def test_pmap_set_remove():
    m = pmap({"a": 1})
    assert m.set("b", 2) == {"a": 1, "b": 2} and m.remove("a") == {}
