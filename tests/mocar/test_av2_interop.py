"""AV2 interop with the real `av2==0.3.6` API (installed by `make setup`; these tests never skip): an exported
window reads back unchanged through av2's parquet loader and our AV2 loader; our metrics equal av2's; bad
AV2 scenarios stop the load with their id or are counted with skip_invalid."""

import numpy as np
import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.mocar.av2_interop import av2_metrics, export_av2, load_av2, to_av2_scenario
from proceedings.mocar.metrics import per_scenario, summarise


def lanes_of(scenes):
    """Straight two-lane roads along each synthetic focal track, as lane dicts."""
    lanes = []
    for i in range(len(scenes)):
        line = scenes.focal_clean[i, ::10].astype(float)
        normal = np.array([-1.0, 1.0]) * (line[-1] - line[0])[::-1] / max(np.linalg.norm(line[-1] - line[0]), 1e-6)
        lanes.append({"id": f"l{i}", "is_intersection": bool(i % 2), "centerline": line.tolist(),
                      "left_boundary": (line + 1.75 * normal).tolist(), "right_boundary": (line - 1.75 * normal).tolist(),
                      "successors": [], "left_neighbor": None, "right_neighbor": None})
    return [lanes]


def test_an_exported_window_reads_back_unchanged_through_av2s_parquet_loader(scenes, tmp_path):
    from av2.datasets.motion_forecasting.scenario_serialization import load_argoverse_scenario_parquet

    subset = scenes.subset(np.arange(2))
    paths = export_av2(subset, lanes_of(subset), tmp_path)
    for i, path in enumerate(paths):
        back = load_argoverse_scenario_parquet(path)
        assert back == to_av2_scenario(subset, i)
        focal = next(t for t in back.tracks if t.track_id == back.focal_track_id)
        xy = np.array([s.position for s in focal.object_states])
        assert np.allclose(xy[50:], subset.focal_clean[i, 50:], atol=1e-5)
        assert np.allclose(xy[:50], subset.focal[i, :50, :2], atol=1e-5)
        assert sum(s.observed for s in focal.object_states) == 50


def test_exported_scenarios_load_back_as_the_same_windows(scenes, tmp_path):
    subset = scenes.subset(np.arange(3))
    export_av2(subset, lanes_of(subset), tmp_path)
    loaded, report = load_av2(tmp_path)
    assert report == {"scenarios": 3, "skipped_invalid": 0}
    order = np.argsort([s.replace(":", "-").replace("@", "-") for s in subset.scenario_id])
    focal, clean = subset.focal[order], subset.focal_clean[order]
    expected = np.concatenate((focal[:, :50, :3], np.concatenate((clean[:, 50:], focal[:, 50:, 2:3]), -1)), 1)
    assert np.allclose(loaded.focal[:, :, :3], expected, atol=1e-4)
    assert np.allclose(loaded.focal_clean, clean, atol=1e-4)
    rows = lambda a: np.sort(a.round(3).view([("x", a.dtype), ("y", a.dtype)]).ravel())  # noqa: E731
    assert (rows(loaded.neighbours[..., :2][loaded.neighbour_valid])
            == rows(subset.neighbours[order][..., :2][subset.neighbour_valid[order]])).all()
    assert loaded.map_valid.any(axis=1).all()


def test_a_scenario_with_a_gap_in_its_focal_track_stops_the_load_naming_it_or_is_counted(scenes, tmp_path):
    import pandas as pd

    subset = scenes.subset(np.arange(2))
    paths = export_av2(subset, lanes_of(subset), tmp_path)
    table = pd.read_parquet(paths[0])
    table[~((table.track_id == "focal") & (table.timestep == 20))].reset_index(drop=True).to_parquet(paths[0])
    with pytest.raises(ProceedingsError, match=paths[0].parent.name):
        load_av2(tmp_path)
    loaded, report = load_av2(tmp_path, skip_invalid=True)
    assert len(loaded) == 1 and report["skipped_invalid"] == 1


def test_timestamps_not_at_10_hz_are_refused(scenes, tmp_path):
    import pandas as pd

    paths = export_av2(scenes.subset(np.arange(1)), lanes_of(scenes.subset(np.arange(1))), tmp_path)
    table = pd.read_parquet(paths[0])
    table["end_timestamp"] = table["end_timestamp"] * 2
    table.to_parquet(paths[0])
    with pytest.raises(ProceedingsError, match="10 Hz"):
        load_av2(tmp_path)


def test_our_metrics_equal_av2s_on_random_forecasts():
    rng = np.random.default_rng(0)
    forecasts, truth = rng.normal(0, 3, (40, 6, 60, 2)), rng.normal(0, 3, (40, 60, 2))
    probabilities = rng.dirichlet(np.ones(6), 40)
    ours = summarise(per_scenario(forecasts, probabilities, truth))
    theirs = av2_metrics(forecasts, probabilities, truth)
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, rel=1e-9), name
