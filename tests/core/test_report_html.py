"""The HTML report: every system section, table and image is there; numbers read as people read them."""

from html.parser import HTMLParser

import pytest

from proceedings.core import results
from proceedings.core.report import format_value, write_report
from proceedings.core.results import Result
from proceedings.registry import SYSTEMS


class Outline(HTMLParser):
    """Sections (by id), tables per section, images per section, and the text of check items."""

    def __init__(self):
        super().__init__()
        self.sections, self.current, self.checks, self._in_check = {}, None, [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.current = attrs["id"]
            self.sections[self.current] = {"tables": 0, "images": 0}
        elif tag in ("table", "img") and self.current:
            self.sections[self.current]["tables" if tag == "table" else "images"] += 1
        elif tag == "li" and attrs.get("class") in ("ok", "fail"):
            self._in_check = True
            self.checks.append("")

    def handle_endtag(self, tag):
        if tag == "li":
            self._in_check = False

    def handle_data(self, data):
        if self._in_check:
            self.checks[-1] += data


def record(system, reproduced, seeds=None):
    png = b"\x89PNG\r\n\x1a\n"
    return Result(system=system, scale="small", claim="claim", checks={"A beats B": reproduced, "C holds": True},
                  metrics={"auc": 0.701234567, "big": 183456.7, "tiny": 0.000012345,
                           "ablations": {"nofpl": {"auc": 0.4771, "ppl": 51.43}, "frozen": {"auc": 0.5}}},
                  baseline={"name": "KGW", "auc": 0.5}, paper={"auc": 0.87}, paper_source="abstract",
                  predicted={"auc": 0.8}, artifacts=[f"{system}/small/plot.png"], seeds=seeds or {}), png


def test_html_has_a_section_with_tables_images_and_checks_for_every_system_that_ran(tmp_path):
    ran = [s.slug for s in SYSTEMS][:3]
    for i, slug in enumerate(ran):
        result, png = record(slug, reproduced=i != 1)
        (tmp_path / slug / "small").mkdir(parents=True)
        (tmp_path / slug / "small" / "plot.png").write_bytes(png)
        results.save(result, root=tmp_path)
    _, page = write_report(root=tmp_path, report_dir=tmp_path / "docs")
    outline = Outline()
    outline.feed(page.read_text())
    assert set(outline.sections) == set(ran)
    for slug in ran:
        assert outline.sections[slug]["images"] == 1
        assert outline.sections[slug]["tables"] == 2  # the metrics, then `ablations` as its own table
    assert outline.checks.count("✓ C holds") == 3 and outline.checks.count("✗ A beats B") == 1
    text = page.read_text()
    assert "0.701" in text and "0.701234" not in text and "183,000" in text and "1.23e-05" in text
    assert "<th>paper</th>" in text and "<th>predicted (ours)</th>" in text and "abstract" in text


@pytest.mark.parametrize("value,interval,text", [
    (0.701234, (0.5512, 0.8367), "0.701 [0.551, 0.837]"), (52.61, None, "52.6"), (12, None, "12"),
    (183456.7, None, "183,000"), (True, None, "yes"), ([0.12345, 2], None, "[0.123, 2]"),
    ({"L1": 0.5, "L2": 1.0}, None, "L1: 0.5; L2: 1"),
])
def test_numbers_have_three_significant_digits_and_intervals_read_mean_low_high(value, interval, text):
    assert format_value(value, interval) == text


def test_a_several_seed_record_shows_its_intervals(tmp_path):
    spread = {"metrics.auc": {"values": [0.6, 0.7, 0.8], "mean": 0.7, "sd": 0.1, "ci95": [0.4516, 0.9484]}}
    result, _ = record("pro", True, seeds={"seeds": [0, 1, 2], "per_seed": [], "spread": spread})
    results.save(result, root=tmp_path)
    md, _ = write_report(root=tmp_path, report_dir=tmp_path / "docs")
    assert "| auc | 0.701 [0.452, 0.948] | 0.5 | 0.87 | 0.8 |" in md.read_text()
    assert "small, seeds 0, 1, 2" in md.read_text()
