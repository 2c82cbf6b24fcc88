import pytest

from boltons.listutils import BarrelList


def test_index_and_count():
    bl = BarrelList([3, 1, 4, 1, 5])
    assert bl.index(1) == 1 and bl.count(1) == 2 and 5 in bl
    with pytest.raises(ValueError):
        bl.index(9)


def test_reverse():
    bl = BarrelList([1, 2, 3])
    bl.reverse()
    assert list(bl) == [3, 2, 1]
