from jsonpointer import JsonPointer, resolve_pointer, set_pointer


def test_resolve_member_and_index():
    doc = {"foo": ["bar", "baz"], "": 0, "a/b": 1}
    assert resolve_pointer(doc, "/foo/0") == "bar"
    assert resolve_pointer(doc, "/") == 0
    assert resolve_pointer(doc, "/a~1b") == 1


def test_from_parts_escapes():
    assert JsonPointer.from_parts(["a", "b/c"]).path == "/a/b~1c"


def test_set_pointer_replaces_member():
    assert set_pointer({"a": {"b": 1}}, "/a/b", 2) == {"a": {"b": 2}}
