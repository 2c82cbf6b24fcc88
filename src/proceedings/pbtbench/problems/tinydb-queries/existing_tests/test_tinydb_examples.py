from tinydb import Query, TinyDB
from tinydb.storages import MemoryStorage


def test_search_and_nested_fields():
    table = TinyDB(storage=MemoryStorage).table("items")
    table.insert_multiple([{"name": "John", "age": 22}, {"name": "Ann", "birth": {"year": 1990}}])
    User = Query()
    assert table.search(User.name == "John") == [{"name": "John", "age": 22}]
    assert table.search(User.birth.year == 1990) == [{"name": "Ann", "birth": {"year": 1990}}]
    assert table.search(User.age == 30) == []


def test_cache_cleared_by_writes():
    table = TinyDB(storage=MemoryStorage).table("items")
    table.insert({"n": 1})
    assert len(table.search(Query().n == 1)) == 1
    table.insert({"n": 1})
    assert len(table.search(Query().n == 1)) == 2
