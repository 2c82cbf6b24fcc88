"""SUMO scenarios: deterministic per seed, resumable per network, validated on load; bad input in one line."""

import json

import numpy as np
import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.mocar import traffic
from proceedings.mocar.scenarios import load, write_shard
from proceedings.mocar.sim import SimSpec, generate

SPEC = SimSpec("A", 1, 45.0, 3, "av2", stride_s=2.0, max_windows=200)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("sumo") / "a"
    return out, generate(out, SPEC)


def test_a_grid_network_gives_windows_a_map_and_honest_simulation_counts(made):
    out, manifest = made
    net = manifest["networks"][0]
    assert net["windows"] > 10 and net["lane_segments"] >= 20 and net["intersection_lanes"] > 0
    assert net["vehicle_states"] > 1000 and net["teleports"] >= 0
    lanes = json.loads((out / net["map"]).read_text())["lane_segments"]
    assert {"centerline", "left_boundary", "right_boundary", "successors", "left_neighbor", "is_intersection"} <= set(lanes[0])
    scenes, report = load(out)
    assert report["skipped_invalid"] == 0 and len(scenes) == net["windows"]
    assert scenes.focal.shape[1:] == (110, 4) and np.isfinite(scenes.focal).all()
    # observed positions carry 0.1 m noise around the exact ones
    assert 0.05 < np.std(scenes.focal[..., :2] - scenes.focal_clean) < 0.15


def test_a_seed_fixes_the_shards_and_a_second_call_resumes_without_simulating(made, tmp_path):
    out, manifest = made
    again = generate(tmp_path / "b", SPEC)
    with np.load(out / manifest["networks"][0]["file"]) as a, np.load(tmp_path / "b" / again["networks"][0]["file"]) as b:
        for key in ("focal", "focal_clean", "neighbours", "map_index", "turn_heavy"):
            assert np.array_equal(a[key], b[key]), key
    before = (tmp_path / "b" / again["networks"][0]["file"]).stat().st_mtime_ns
    generate(tmp_path / "b", SPEC)
    assert (tmp_path / "b" / again["networks"][0]["file"]).stat().st_mtime_ns == before


def test_nan_in_an_observed_focal_state_names_the_scenario_or_is_skipped_and_counted(made, tmp_path):
    out, manifest = made
    with np.load(out / manifest["networks"][0]["file"]) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["focal"][1, 10, 0] = np.nan
    write_shard(tmp_path / "bad.npz", arrays)
    with pytest.raises(ProceedingsError, match=r"scenario bad:.*NaN.*--skip-invalid"):
        load(tmp_path / "bad.npz")
    scenes, report = load(tmp_path / "bad.npz", skip_invalid=True)
    assert report["skipped_invalid"] == 1 and len(scenes) == len(arrays["focal"]) - 1


def test_a_missing_sumo_binary_names_the_pip_install(monkeypatch):
    monkeypatch.setattr(traffic.shutil, "which", lambda name: None)
    monkeypatch.setitem(__import__("sys").modules, "sumo", None)
    with pytest.raises(ProceedingsError, match="pip install eclipse-sumo"):
        traffic.tool("sumo")


def test_bad_specs_are_one_line_errors(tmp_path):
    with pytest.raises(ProceedingsError, match="unknown city"):
        generate(tmp_path, SimSpec(city="C"))
    with pytest.raises(ProceedingsError, match="leaves no av2 window"):
        generate(tmp_path, SimSpec(sim_seconds=25.0))
    with pytest.raises(ProceedingsError, match="unknown protocol"):
        generate(tmp_path, SimSpec(protocol="av3"))
