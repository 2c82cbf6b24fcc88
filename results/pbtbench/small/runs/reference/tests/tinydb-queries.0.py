"""Property-based tests for tinydb 4.9.0 (tinydb-queries)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from tinydb import Query, TinyDB
from tinydb.storages import MemoryStorage

_MISSING = object()


def _lookup(document: dict, path: list[str]):
    value = document
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def prop_equality_searches_match_a_scan(documents: list[dict[str, int]], searches: list[tuple[list[str], int]]) -> None:
    """Every `search(path == value)` returns exactly the documents whose value at that path equals `value`,
    however many searches ran before it (the query cache never changes a result)."""
    table = TinyDB(storage=MemoryStorage).table("items")
    table.insert_multiple(documents)
    for path, value in searches:
        path = path or ["x"]  # a query needs a path
        query = Query()
        for part in path:
            query = query[part]
        found = [dict(document) for document in table.search(query == value)]
        assert found == [d for d in documents if _lookup(d, path) == value], (path, value, found)


from hypothesis import strategies as st

STRATEGIES = {
    # documents with a field whose name reads like a nested path, and searches for both spellings, in either order
    "prop_equality_searches_match_a_scan": dict(
        documents=st.lists(st.integers(0, 3).map(lambda v: {"a.b": v}), min_size=1, max_size=5),
        searches=st.tuples(st.integers(0, 3), st.booleans()).map(
            lambda t: [(["a.b"], t[0]), (["a", "b"], t[0])][::1 if t[1] else -1])),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_equality_searches_match_a_scan'])
def test_equality_searches_match_a_scan(documents, searches):
    prop_equality_searches_match_a_scan(documents, searches)
