from boltons.listutils import BarrelList


def test_insert_and_delete_on_a_short_list():
    bl = BarrelList([1, 2, 3])
    bl.insert(1, 9)
    del bl[0]
    assert list(bl) == [9, 2, 3]


def test_delete_the_last_element_by_negative_index():
    bl = BarrelList(range(5))
    del bl[-1]
    assert list(bl) == [0, 1, 2, 3]
