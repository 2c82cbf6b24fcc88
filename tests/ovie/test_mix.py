"""The training-mix rows (round 17): OVIE on a named subset of the single-image worlds keeps the example count,
tops up each named world equally from seeds 900 + seed, and leaves the presets and the run folders as they were."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.ovie.experiment import (CONFIGS, experiment_config, finished_arm, mix_row, mixed_singles, run_folder,
                                         what_costs_a_plus_c, which_world_hurts)
from proceedings.ovie.worlds import RenderSpec, render_set

SIZE = 16


@pytest.fixture
def small_sets(tmp_path, monkeypatch):
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path / "cache"))  # the top-up renders are cached there
    cfg = replace(CONFIGS["tiny"], singles=7, size=SIZE)
    return cfg, {f"singles_{w}": render_set(RenderSpec(w, 2, SIZE, 1), cache=False) for w in "ABC"}


def test_a_two_world_mix_has_the_example_count_with_equal_top_ups_of_each_named_world(small_sets):
    cfg, sets = small_sets
    mix = mixed_singles(cfg, sets, "AC")
    extra_a, extra_c = (render_set(RenderSpec(w, n, SIZE, 900), cache=False) for w, n in (("A", 2), ("C", 1)))
    expected = np.concatenate([sets["singles_A"]["rgb"], extra_a["rgb"], sets["singles_C"]["rgb"], extra_c["rgb"]])
    assert len(mix["rgb"]) == cfg.singles == 7
    np.testing.assert_array_equal(mix["rgb"], expected)
    assert not np.isin(mix["rgb"][:, 0, 0, 0], sets["singles_B"]["rgb"][:, 0, 0, 0]).any()


def test_the_full_mix_adds_nothing_and_a_bad_mix_is_one_error(small_sets):
    cfg, sets = small_sets
    full = mixed_singles(replace(cfg, singles=6), sets, "ABC")
    np.testing.assert_array_equal(full["depth"], np.concatenate([sets[f"singles_{w}"]["depth"] for w in "ABC"]))
    for bad in ("AD", "AA", ""):
        with pytest.raises(ProceedingsError, match="distinct worlds"):
            mixed_singles(cfg, sets, bad)


def test_a_mix_with_a_count_is_the_a_part_of_the_two_world_mix_and_a_bad_count_is_one_error(small_sets):
    cfg, sets = small_sets
    half = mixed_singles(cfg, sets, "A", total=4)
    np.testing.assert_array_equal(half["rgb"], mixed_singles(cfg, sets, "AC")["rgb"][:4])
    assert mix_row("A:750") == ("A", 750) and mix_row("AC") == ("AC", None)
    with pytest.raises(ProceedingsError, match="cannot hold"):
        mixed_singles(cfg, sets, "AB", total=3)
    for bad in ("A:", "A:0", "A:x", "A:-5"):
        with pytest.raises(ProceedingsError, match="WORLDS:N"):
            mix_row(bad)


def test_mix_rows_are_off_in_every_preset_and_do_not_move_the_run_folder():
    assert all(cfg.mix_rows == () for cfg in CONFIGS.values())
    cfg = experiment_config("small", 1)
    assert run_folder(replace(cfg, mix_rows=("AB", "AC", "A:750")), 1) == run_folder(cfg, 1)
    assert run_folder(replace(cfg, ablations=True), 1) != run_folder(cfg, 1)


def test_a_probe_scores_only_finished_arms(tmp_path, monkeypatch):
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path))
    cfg = experiment_config("small", 0)
    with pytest.raises(ProceedingsError, match=f"not a finished {cfg.train.steps}-step arm"):
        finished_arm(cfg, 0, "ovie_A750")


CASES = {"B hurts": {"ovie_AB": 22.5, "ovie_AC": 23.8}, "C hurts": {"ovie_AB": 23.8, "ovie_AC": 22.5},
         "neither alone: the three-world mix itself": {"ovie_AB": 23.8, "ovie_AC": 23.75},
         "both (or halving A's share); B hurts more": {"ovie_AB": 22.4, "ovie_AC": 22.9},
         "both (or halving A's share); C hurts more": {"ovie_AB": 22.9, "ovie_AC": 22.4},
         "both (or halving A's share)": {"ovie_AB": 22.6, "ovie_AC": 22.8}}


@pytest.mark.parametrize("case", CASES)
def test_the_round_17_rule_reaches_each_case_from_its_own_numbers(case):
    assert which_world_hurts({"ovie_A_only": 24.0, **CASES[case]}) == case


ROUND18 = {"C costs (halving A's data does not)": (23.0, 23.8), "halving A's data costs (C does not)": (23.0, 23.1),
           "both C and halving A's data cost": (23.0, 23.5), "not separated at this margin": (23.6, 23.8)}


@pytest.mark.parametrize("case", ROUND18)
def test_the_round_18_rule_reaches_each_case_from_its_own_numbers(case):
    a_plus_c, a750 = ROUND18[case]
    assert what_costs_a_plus_c({"ovie_A_only": 24.0, "ovie_AC": a_plus_c, "ovie_A750": a750}) == case


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("record, rule", [("round17_mix", which_world_hurts), ("round18_a750", what_costs_a_plus_c)])
def test_the_committed_mix_records_re_judge_to_their_stored_case(record, rule, seed):
    path = Path(__file__).parents[2] / "results" / "ovie" / "small" / f"{record}_seed{seed}.json"
    if not path.exists():
        pytest.skip(f"no committed {record} record for seed {seed}")
    stored = json.loads(path.read_text())
    for w in "AB":
        assert rule({r: s["psnr"] for r, s in stored["table"][w].items() if isinstance(s, dict)},
                    stored["margin_db"]) == stored["case"][w]
