from boltons.listutils import BarrelList


def test_insert_and_pop_like_a_list():
    bl = BarrelList(range(5))
    bl.insert(2, "x")
    bl.insert(len(bl), "end")
    assert list(bl) == [0, 1, "x", 2, 3, 4, "end"]
    assert bl.pop() == "end" and bl.pop(0) == 0
