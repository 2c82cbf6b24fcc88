"""Property-based tests for pylru 1.3.3 (pylru-cache)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import copy
from collections import OrderedDict

from pylru import WriteBackCacheManager, lrucache


class _Model:
    """An OrderedDict kept most recently used last, with the ejections an LRU cache must make."""

    def __init__(self, size: int):
        self.size, self.items, self.ejected = size, OrderedDict(), []

    def touch(self, key: int) -> None:
        self.items.move_to_end(key)

    def set(self, key: int, value: int) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        self.trim()

    def trim(self) -> None:
        while len(self.items) > self.size:
            self.ejected.append(self.items.popitem(last=False))

    def order(self) -> list[int]:
        return list(reversed(self.items))


def prop_growing_keeps_items(size: int, ops: list[tuple[int, int, int]]) -> None:
    """Growing the cache keeps every item in order; insertions then eject the least recently used ones."""
    size = 1 + (size - 1) % 64  # any integer, folded into 1..64
    ejected = []
    cache, model = lrucache(size, lambda k, v: ejected.append((k, v))), _Model(size)
    for op, key, value in ops:
        if op % 3 == 0:
            cache[key] = value
            model.set(key, value)
        elif op % 3 == 1 and key in model.items:
            cache[key]
            model.touch(key)
        elif op % 3 == 2:
            model.size = cache.size(cache.size() + 1 + value % 8)
        assert list(cache.items()) == [(k, model.items[k]) for k in model.order()]
        assert ejected == model.ejected and len(cache) <= cache.size()


def prop_writeback_store_after_sync(size: int, ops: list[tuple[int, int, int]]) -> None:
    """After sync() the store holds exactly what was written through the write-back manager."""
    size = 1 + (size - 1) % 64  # any integer, folded into 1..64
    store, model = {}, {}
    manager = WriteBackCacheManager(store, size)
    for op, key, value in ops:
        if op % 4 == 0:
            manager[key] = value
            model[key] = value
        elif op % 4 == 1 and key in model:
            assert manager[key] == model[key]
        elif op % 4 == 2:
            manager.size(max(1, manager.size() - 1 - value % 4))
        elif op % 4 == 3 and key in model:
            del manager[key]
            del model[key]
    manager.sync()
    assert store == model


def prop_copy_keeps_order(size: int, ops: list[tuple[int, int]], fresh: list[int]) -> None:
    """A deep copy has the same items in the same recency order, and evicts like the original."""
    size = 1 + (size - 1) % 64  # any integer, folded into 1..64
    cache = lrucache(size)
    for key, value in ops:
        cache[key] = value
    twin = copy.deepcopy(cache)
    assert twin.size() == cache.size() and list(twin.items()) == list(cache.items())
    for key in fresh:
        cache[key] = key
        twin[key] = key
        assert list(twin.items()) == list(cache.items())


from hypothesis import strategies as st

STRATEGIES = {
    "prop_growing_keeps_items": dict(size=st.integers(2, 8), ops=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 20), st.integers(0, 12)), min_size=10, max_size=40)),
    "prop_writeback_store_after_sync": dict(size=st.integers(4, 12), ops=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 20), st.integers(0, 12)), min_size=10, max_size=40)),
    "prop_copy_keeps_order": dict(size=st.integers(2, 8), ops=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 9)), min_size=2, max_size=20),
                                  fresh=st.lists(st.integers(100, 200), min_size=1, max_size=10, unique=True)),
}



