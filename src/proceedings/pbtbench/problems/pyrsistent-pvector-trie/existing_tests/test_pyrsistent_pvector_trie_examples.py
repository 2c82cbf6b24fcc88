from pyrsistent import pvector


def test_append_and_set():
    v = pvector([1, 2, 3])
    assert v.append(4).tolist() == [1, 2, 3, 4]
    assert v.set(0, 9).tolist() == [9, 2, 3] and v[0] == 1


def test_extend():
    assert pvector([1]).extend([2, 3]).tolist() == [1, 2, 3]
