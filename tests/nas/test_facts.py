"""CounterFact-style requests from the relation tables: counterfactual targets, untouched neighbours."""

from proceedings.nas.facts import all_facts, invented_tables, requests_from_facts, table_requests


def test_neighbourhood_prompts_are_never_about_subjects_the_stream_edits():
    requests = requests_from_facts(all_facts(), 150, seed=0)
    edited_prompts = {r.text for r in requests}
    for request in requests:
        assert len(request.neighborhood) == 2 and not edited_prompts & set(request.neighborhood)
        assert len(request.paraphrases) == 2 and all(request.subject in p for p in request.paraphrases)
        assert request.target_new != request.target_true


def test_city_neighbours_share_the_true_country_first():
    facts = all_facts(relations=["city_country"])
    requests = requests_from_facts(facts, 20, seed=1)
    edited = {r.subject for r in requests}
    for request in requests:
        same = [s for _, s, o in facts if o == request.target_true.strip() and s not in edited]
        first = request.neighborhood[0].replace(" is a city in the country of", "")
        assert first in same or not same


def test_invented_facts_are_deterministic():
    assert table_requests(10, 0, invented_tables(seed=0)) == table_requests(10, 0, invented_tables(seed=0))
    assert table_requests(10, 0, invented_tables(seed=0)) != table_requests(10, 0, invented_tables(seed=1))
