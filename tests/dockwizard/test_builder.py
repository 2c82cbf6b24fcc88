"""The data builder resumes: an item made once is a cache hit afterwards, keyed by its inputs."""

from proceedings.dockwizard.builder import BuildReport, ItemCache


def test_a_rerun_after_an_interruption_recomputes_nothing_it_finished(tmp_path):
    calls = []

    def dock():
        calls.append(1)
        return {"energy": -7.1}

    first = BuildReport()
    assert ItemCache(tmp_path, first).get_or_make("dock", {"scaffold": "6WQA", "ligand": "GCS"}, dock) == {"energy": -7.1}
    second = BuildReport()
    cache = ItemCache(tmp_path, second)
    assert cache.get_or_make("dock", {"scaffold": "6WQA", "ligand": "GCS"}, dock) == {"energy": -7.1}
    assert (len(calls), second.cache_hits, second.computed) == (1, 1, 0)
    cache.get_or_make("dock", {"scaffold": "6WQA", "ligand": "N0T"}, dock)  # other inputs: computed
    assert (len(calls), second.computed) == (2, 1)
