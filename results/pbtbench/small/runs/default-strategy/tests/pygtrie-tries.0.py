"""Property-based tests for pygtrie 2.6.2 (pygtrie-tries)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import pygtrie


def prop_merge_holds_both(ours: dict[str, int], theirs: dict[str, int]) -> None:
    """After t.merge(other) the trie holds every key of both, our values winning."""
    trie = pygtrie.CharTrie(ours)
    trie.merge(pygtrie.CharTrie(theirs))
    assert dict(trie.items()) == {**theirs, **ours}


def prop_deletions_match_dict(keys: list[str], deleted: list[str]) -> None:
    """After insertions and deletions the trie holds exactly the keys a dict would."""
    trie, model = pygtrie.CharTrie(), {}
    for i, key in enumerate(keys):
        trie[key] = i
        model[key] = i
    for key in deleted:
        if key in model:
            del trie[key]
            del model[key]
            assert dict(trie.items()) == model
    assert sorted(trie.keys()) == sorted(model)


@settings(max_examples=200)
@given(ours=..., theirs=...)
def test_merge_holds_both(ours: dict[str, int], theirs: dict[str, int]):
    prop_merge_holds_both(ours, theirs)


@settings(max_examples=200)
@given(keys=..., deleted=...)
def test_deletions_match_dict(keys: list[str], deleted: list[str]):
    prop_deletions_match_dict(keys, deleted)
