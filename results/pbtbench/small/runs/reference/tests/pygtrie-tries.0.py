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


from hypothesis import strategies as st

_keys = st.text("αβγ", min_size=1, max_size=4)

STRATEGIES = {
    "prop_merge_holds_both": dict(ours=st.dictionaries(st.text("ab", min_size=1, max_size=4), st.integers(0, 9), max_size=6),
                                  theirs=st.dictionaries(st.text("ab", min_size=1, max_size=5), st.integers(10, 19), max_size=6)),
    "prop_deletions_match_dict": dict(keys=st.lists(_keys, min_size=5, max_size=20), deleted=st.lists(_keys, min_size=3, max_size=12)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_merge_holds_both'])
def test_merge_holds_both(ours, theirs):
    prop_merge_holds_both(ours, theirs)


@settings(max_examples=200)
@given(**STRATEGIES['prop_deletions_match_dict'])
def test_deletions_match_dict(keys, deleted):
    prop_deletions_match_dict(keys, deleted)
