from boltons.listutils import BarrelList


def test_behaves_like_a_list():
    bl = BarrelList(range(10))
    bl.insert(0, -1)
    del bl[2:4]
    assert list(bl) == [-1, 0, 3, 4, 5, 6, 7, 8, 9]
    assert bl[-1] == 9 and list(reversed(bl))[0] == 9


def test_sort():
    bl = BarrelList([3, 1, 2])
    bl.sort()
    assert list(bl) == [1, 2, 3]
