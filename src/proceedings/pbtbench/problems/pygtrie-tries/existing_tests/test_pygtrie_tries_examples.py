import pygtrie


def test_char_trie_is_a_mapping():
    trie = pygtrie.CharTrie(foo=1, foobar=2)
    assert trie["foo"] == 1 and len(trie) == 2
    del trie["foo"]
    assert dict(trie.items()) == {"foobar": 2}
    assert trie.has_subtrie("foo") and not trie.has_key("foo")


def test_longest_prefix():
    trie = pygtrie.StringTrie({"foo": "Foo", "foo/bar/baz": "Baz"})
    assert trie.longest_prefix("foo/bar/baz/qux").key == "foo/bar/baz"


def test_merge_keeps_our_values():
    trie = pygtrie.CharTrie(a=1)
    trie.merge(pygtrie.CharTrie(a=2, b=3))
    assert dict(trie.items()) == {"a": 1, "b": 3}
