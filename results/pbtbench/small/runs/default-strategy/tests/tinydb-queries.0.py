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


@settings(max_examples=200)
@given(documents=..., searches=...)
def test_equality_searches_match_a_scan(documents: list[dict[str, int]], searches: list[tuple[list[str], int]]):
    prop_equality_searches_match_a_scan(documents, searches)
