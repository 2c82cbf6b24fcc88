"""Property-based tests for cachetools 8.0.2 (cachetools-caches)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import copy

from hypothesis import assume
import cachetools
from cachetools import keys


def prop_sized_currsize(maxsize: int, ops: list[tuple[str, int]]) -> None:
    """currsize equals the summed sizes of the held items and never exceeds maxsize."""
    cap = 1 + (maxsize - 1) % 64
    cache = cachetools.LRUCache(cap, getsizeof=lambda value: value)
    model = {}
    for key, size in ops:
        if not 0 <= size < cap:
            continue
        cache[key] = size
        model[key] = size
        assert cache.currsize == sum(s for k, s in model.items() if k in cache)
        assert cache.currsize <= cap


def prop_accepts_up_to_maxsize(maxsize: int, sizes: list[int]) -> None:
    """An item whose size is at most maxsize is accepted; larger ones raise ValueError."""
    cap = 1 + (maxsize - 1) % 64
    cache = cachetools.LRUCache(cap, getsizeof=lambda value: value)
    for i, size in enumerate(sizes):
        size = abs(size)
        try:
            cache[i] = size
        except ValueError:
            assert size > cap, f"size {size} <= maxsize {cap} was refused"
            continue
        assert size <= cap and i in cache


def prop_lfu_evicts_least_frequent(maxsize: int, ops: list[tuple[bool, str]]) -> None:
    """The evicted key always has the lowest use count."""
    assume(1 <= maxsize <= 8)
    cache = cachetools.LFUCache(maxsize)
    counts = {}
    for is_read, key in ops:
        if is_read:
            if key in cache:
                cache[key]
                counts[key] += 1
            continue
        before = set(cache)
        lowest = min((counts[k] for k in before), default=0)
        cache[key] = len(key)
        counts[key] = counts[key] + 1 if key in before else 1
        for gone in before - set(cache):
            assert counts[gone] == lowest, (gone, counts, lowest)
            del counts[gone]


def prop_rr_deletions(maxsize: int, ops: list[tuple[bool, int]]) -> None:
    """After sets and deletions, an RRCache holds exactly the keys set, not deleted and not evicted."""
    maxsize = 1 + (maxsize - 1) % 64  # any integer, folded into 1..64
    cache = cachetools.RRCache(maxsize, choice=min)
    model = set()
    for is_delete, key in ops:
        if is_delete:
            if key in model:
                del cache[key]
                model.discard(key)
        else:
            if key not in model and len(model) >= maxsize:
                model.discard(min(model))
            cache[key] = key
            model.add(key)
        assert set(cache) == model


def prop_typed_keyword_types(calls: list[tuple[bool, int, int, bool, bool]]) -> None:
    """With typedkey, calls whose keyword values differ only in type are cached separately."""
    @cachetools.cached(cachetools.LRUCache(256), key=keys.typedkey)
    def describe(**kwargs):
        return sorted((name, type(value).__name__) for name, value in kwargs.items())

    for swap, a, b, a_float, b_float in calls:
        a = float(a % 2**20) if a_float else a % 2**20
        b = float(b % 2**20) if b_float else b % 2**20
        kwargs = {"b": b, "a": a} if swap else {"a": a, "b": b}
        assert describe(**kwargs) == [("a", type(a).__name__), ("b", type(b).__name__)]


_CLOCK = [0]


def _now() -> int:
    return _CLOCK[0]


def prop_ttl_copy_expires_like_original(ttl: int, ops: list[tuple[int, int]], later: list[int]) -> None:
    """A deep copy of a TTLCache holds the same items as the original at every later time."""
    ttl = 1 + (ttl - 1) % 1000  # any integer, folded into 1..1000
    _CLOCK[0] = 0
    cache = cachetools.TTLCache(maxsize=64, ttl=ttl, timer=_now)
    for kind, key in ops:
        if kind % 3 == 0:
            cache[key] = key
        elif kind % 3 == 1:
            cache.get(key)
        else:
            _CLOCK[0] += 1
    clone = copy.deepcopy(cache)
    for step in later:
        if not 0 <= step <= 1000:
            continue
        _CLOCK[0] += step
        assert len(clone) == len(cache) and sorted(clone.items()) == sorted(cache.items()), _CLOCK[0]


def prop_tlru_len_tracks_expiry(ops: list[tuple[int, int, int]]) -> None:
    """len() and iteration of a TLRUCache count exactly the items whose expiration time lies ahead."""
    _CLOCK[0] = 0
    cache = cachetools.TLRUCache(maxsize=64, ttu=lambda key, value, now: now + value, timer=_now)
    expires = {}
    for op, key, value in ops:
        if op % 3 == 0 and 1 <= value <= 1000 and len(expires) < 64:
            cache[key] = value
            expires[key] = _CLOCK[0] + value
        elif op % 3 == 1 and 0 <= value <= 1000:
            _CLOCK[0] += value
        elif op % 3 == 2 and key in cache:
            del cache[key]
            del expires[key]
        live = sorted(k for k, e in expires.items() if _CLOCK[0] < e)
        assert len(cache) == len(live) and sorted(cache) == live, (_CLOCK[0], live)


@settings(max_examples=200)
@given(maxsize=..., ops=...)
def test_sized_currsize(maxsize: int, ops: list[tuple[str, int]]):
    prop_sized_currsize(maxsize, ops)


@settings(max_examples=200)
@given(calls=...)
def test_typed_keyword_types(calls: list[tuple[bool, int, int, bool, bool]]):
    prop_typed_keyword_types(calls)


@settings(max_examples=200)
@given(ttl=..., ops=..., later=...)
def test_ttl_copy_expires_like_original(ttl: int, ops: list[tuple[int, int]], later: list[int]):
    prop_ttl_copy_expires_like_original(ttl, ops, later)


@settings(max_examples=200)
@given(ops=...)
def test_tlru_len_tracks_expiry(ops: list[tuple[int, int, int]]):
    prop_tlru_len_tracks_expiry(ops)
