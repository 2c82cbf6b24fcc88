from boltons.listutils import BarrelList


def test_slice_assignment_on_a_short_list():
    bl = BarrelList(range(10))
    bl[2:5] = ["a"]
    assert list(bl) == [0, 1, "a", 5, 6, 7, 8, 9]


def test_slicing_returns_a_barrel_list():
    bl = BarrelList(range(100))
    assert list(bl[10:13]) == [10, 11, 12] and isinstance(bl[10:13], BarrelList)
