import json
import os
import subprocess
import sys
import time

import pytest

from typer.testing import CliRunner

from proceedings.cli import app
from proceedings.core import results
from proceedings.core.errors import ProceedingsError
from proceedings.core.report import render, write_report
from proceedings.registry import SYSTEMS, get_system
from tests.core.test_results import make_result

PAPER_SLUGS = ["pro", "pbtbench", "peagle", "verified_codegen", "overlay", "orthrus", "oopsworld",
               "ovie", "rwopd", "dplang", "nas", "neurosyntheos", "dockwizard", "niv", "nvium",
               "motionforcing", "mobta", "mocar", "moca"]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "proceedings", *args], capture_output=True, text=True)


def test_registry_holds_exactly_the_nineteen_papers():
    assert [s.slug for s in SYSTEMS] == PAPER_SLUGS


def test_list_shows_all_nineteen_slugs_quickly_and_without_torch():
    start = time.perf_counter()
    out = CliRunner().invoke(app, ["list"], terminal_width=200)
    assert out.exit_code == 0
    assert all(slug in out.output for slug in PAPER_SLUGS)
    code = "import sys, proceedings.cli; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0, "importing the CLI imported torch"
    assert time.perf_counter() - start < 30  # ~1 s warm; headroom for a loaded machine


def test_reproduce_of_an_unbuilt_system_exits_2_with_one_line():
    """All nineteen systems are built, so the CLI runs with moca's experiment module hidden."""
    hide_experiment = (
        "import importlib.util as util, sys; find = util.find_spec; "
        "util.find_spec = lambda name, *a: None if name == 'proceedings.moca.experiment' else find(name, *a); "
        "sys.argv = ['proceedings', 'reproduce', 'moca']; from proceedings.cli import main; main()")
    done = subprocess.run([sys.executable, "-c", hide_experiment], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: system 'moca' is not implemented yet"


def test_unknown_slug_and_scale_exit_2():
    assert run_cli("reproduce", "nonsense").returncode == 2
    implemented = next((s for s in SYSTEMS if s.implemented), get_system("pro"))
    bad_scale = run_cli("reproduce", implemented.slug, "--scale", "huge")
    assert bad_scale.returncode == 2 and "unknown scale 'huge'" in bad_scale.stderr
    no_long = run_cli("reproduce", "pro", "--scale", "long")  # an optional scale pro does not offer
    assert no_long.returncode == 2 and "system 'pro' has no 'long' preset" in no_long.stderr


def test_report_says_not_run_and_never_a_number_for_systems_without_results(tmp_path):
    results.save(make_result(system="pro", scale="small"), root=tmp_path)
    text = render(root=tmp_path, report_dir=tmp_path / "docs")
    rows = [line for line in text.splitlines() if line.startswith(("| `", "| [`"))]
    assert len(rows) == 19
    pro_row = next(r for r in rows if r.startswith("| [`pro`](#pro)"))
    assert "**reproduced (2/2 checks)**" in pro_row
    for row in rows:
        if row is not pro_row:
            assert row.endswith("| not run | - | - |")


def test_report_embeds_saved_plots_in_html_and_links_them_in_markdown(tmp_path):
    plot = tmp_path / "pro" / "tiny" / "roc.png"
    plot.parent.mkdir(parents=True)
    plot.write_bytes(b"\x89PNG\r\n\x1a\n fake")
    results.save(make_result(artifacts=["pro/tiny/roc.png", "pro/tiny/missing.png"]), root=tmp_path)
    md, page = write_report(root=tmp_path, report_dir=tmp_path / "docs")
    assert "![pro/tiny/roc.png](../pro/tiny/roc.png)" in md.read_text()
    assert "[pro/tiny/missing.png](../pro/tiny/missing.png)" in md.read_text()
    assert 'src="data:image/png;base64,' in page.read_text() and "http" not in page.read_text()


def test_version():
    assert run_cli("--version").stdout.startswith("proceedings ")


def test_a_damaged_or_unknown_record_stops_the_report_and_leaves_the_old_one(tmp_path):
    docs = tmp_path / "docs"
    results.save(make_result(system="nas", scale="tiny"), root=tmp_path)
    write_report(root=tmp_path, report_dir=docs)
    before = {p.name: p.read_text() for p in docs.iterdir()}
    record = json.loads((tmp_path / "nas" / "tiny.json").read_text())
    record["schema_version"] = 99
    (tmp_path / "pro").mkdir()
    (tmp_path / "pro" / "tiny.json").write_text(json.dumps(record))
    env = {**os.environ, "PROCEEDINGS_RESULTS": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "proceedings", "report", "--out", str(docs)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "schema version 99" in done.stderr and "pro/tiny.json" in done.stderr
    assert {p.name: p.read_text() for p in docs.iterdir()} == before
    (tmp_path / "pro" / "tiny.json").write_text("{ not json")
    with pytest.raises(ProceedingsError, match="not valid JSON"):
        render(root=tmp_path, report_dir=docs)


def test_reproduce_all_goes_on_past_a_crashing_system_and_names_it(monkeypatch):
    """`make demo` stopped at the first system that raised something other than a ProceedingsError."""
    from types import SimpleNamespace

    import proceedings.cli as cli

    def crash(*args, **kwargs):
        raise TypeError("'NoneType' object is not subscriptable")

    ran = []
    fine = SimpleNamespace(slug="pro", implemented=True,
                           reproduce=lambda *a, **k: ran.append("pro") or make_result(duration_s=1.0, cpu_s=1.0))
    monkeypatch.setattr(cli, "SYSTEMS", [SimpleNamespace(slug="nas", implemented=True, reproduce=crash), fine])
    out = CliRunner().invoke(app, ["reproduce", "all"])
    assert ran == ["pro"] and isinstance(out.exception, ProceedingsError)
    assert str(out.exception) == "1 system(s) failed: nas"
