"""`convert --model algorithmic` on a real static font, and the one-line refusals that leave no OUT."""

import pytest
from typer.testing import CliRunner


def test_algorithmic_convert_passes_ots_and_hamburg_advance_grows_with_weight(open_sans_static, tmp_path):
    from proceedings.niv.cli import app
    from proceedings.niv.validate import hb_advance, ots_accepts

    out = tmp_path / "OpenSans-VF.ttf"
    result = CliRunner().invoke(app, ["convert", str(open_sans_static), str(out), "--model", "algorithmic",
                                      "--axes", "wght=100:400:900,wdth=75:100:100"])
    assert result.exit_code == 0, result.output
    assert ots_accepts(out)[0]
    advances = [hb_advance(out, {"wght": w, "wdth": 100}) for w in (100, 400, 900)]
    assert advances[0] < advances[1] < advances[2], advances
    assert out.with_suffix(".png").stat().st_size > 1000  # the waterfall
    masters = CliRunner().invoke(app, ["export-masters", str(out), "--designspace", str(tmp_path / "m" / "os.designspace")])
    assert masters.exit_code == 0, masters.output
    assert len(list((tmp_path / "m").glob("os-*.ttf"))) == 6  # default + 5 corners, rebuilt by varLib


def test_glyphs_beyond_the_models_point_table_stay_static_instead_of_crashing(open_sans_static, tmp_path):
    import torch

    from proceedings.core.errors import ProceedingsError
    from proceedings.niv.baselines import AlgorithmicBaseline
    from proceedings.niv.convert import ModelPredictor, convert
    from proceedings.niv.model import NIV, NIVConfig

    torch.manual_seed(0)
    model = NIV(NIVConfig(d_model=16, n_layers=1, n_heads=2, point_hidden=16, max_points=24)).eval()
    try:
        done = convert(open_sans_static, tmp_path / "o.ttf", "wght", ModelPredictor(model), AlgorithmicBaseline(), 504)
        assert done.over_limit and done.glyphs and done.max_points == 24  # the model's table, not 504
    except ProceedingsError as err:  # an untrained model may well fail validation: that is the named error
        assert "failed validation" in str(err)
        assert not (tmp_path / "o.ttf").exists()


def test_a_font_that_fails_validate_is_never_written_and_the_error_names_the_check(open_sans_static, tmp_path):
    from proceedings.core.errors import ProceedingsError
    from proceedings.niv.baselines import AlgorithmicBaseline
    from proceedings.niv.convert import AlgorithmicPredictor, convert

    identity = AlgorithmicBaseline()  # B0: no strengths, so nothing moves and the advance cannot grow with weight
    out = tmp_path / "still-static-VF.ttf"
    with pytest.raises(ProceedingsError, match="harfbuzz advance increases with wght") as refused:
        convert(open_sans_static, out, "wght", AlgorithmicPredictor(identity), identity)
    assert "\n" not in str(refused.value)
    assert not out.exists() and not list(tmp_path.glob(".still-static-VF-*"))


def cff_font(path):
    """A real (tiny) CFF-flavoured OpenType font, built with fontTools' FontBuilder."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.t2CharStringPen import T2CharStringPen

    fb = FontBuilder(1000, isTTF=False)
    fb.setupGlyphOrder([".notdef", "H"])
    fb.setupCharacterMap({ord("H"): "H"})
    pen = T2CharStringPen(600, None)
    pen.moveTo((100, 0)), pen.lineTo((500, 0)), pen.lineTo((500, 700)), pen.lineTo((100, 700)), pen.closePath()  # CFF: counter-clockwise
    charstrings = {".notdef": T2CharStringPen(600, None).getCharString(), "H": pen.getCharString()}
    fb.setupCFF("Test", {"FullName": "Test"}, charstrings, {})
    fb.setupHorizontalMetrics({".notdef": (600, 0), "H": (600, 100)})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Test", "styleName": "Regular"})
    fb.setupOS2()
    fb.setupPost()
    fb.save(path)
    return path


@pytest.mark.parametrize("kind,message", [("cff", "--convert-quadratic"), ("variable", "already a variable font"),
                                          ("truncated", "truncated"), ("same", "OUT equals IN"),
                                          ("text", "not a readable font file")])
def test_bad_inputs_give_one_line_errors_and_no_out_file(kind, message, open_sans_ascii, open_sans_static, tmp_path):
    from proceedings.niv.cli import app

    source = {"cff": lambda: cff_font(tmp_path / "t.otf"), "variable": lambda: open_sans_ascii,
              "truncated": lambda: _truncated(open_sans_static, tmp_path / "cut.ttf"),
              "same": lambda: _truncated(open_sans_static, tmp_path / "same.ttf", keep=1.0),
              "text": lambda: _text_file(tmp_path / "notes.ttf")}[kind]()
    out = source if kind == "same" else tmp_path / "out.ttf"
    result = CliRunner().invoke(app, ["convert", str(source), str(out), "--model", "algorithmic"])
    assert result.exit_code != 0
    assert message in str(result.exception)
    assert "\n" not in str(result.exception)
    if kind != "same":
        assert not out.exists()
    assert not list(tmp_path.glob(".out-*"))


def test_convert_without_a_trained_small_model_names_the_command_that_makes_one(open_sans_static, tmp_path,
                                                                               monkeypatch):
    from proceedings.niv.cli import app

    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path / "empty-cache"))
    out = tmp_path / "out.ttf"
    result = CliRunner().invoke(app, ["convert", str(open_sans_static), str(out)])
    assert result.exit_code != 0 and not out.exists()
    assert "proceedings reproduce niv --scale small" in str(result.exception)
    assert "\n" not in str(result.exception)


def test_cff_input_converts_with_convert_quadratic(tmp_path):
    from proceedings.niv.cli import app
    from proceedings.niv.validate import ots_accepts

    out = tmp_path / "t-VF.ttf"
    result = CliRunner().invoke(app, ["convert", str(cff_font(tmp_path / "t.otf")), str(out), "--model", "algorithmic",
                                      "--axes", "wght", "--convert-quadratic", "--no-waterfall"])
    assert result.exit_code == 0, result.output
    assert ots_accepts(out)[0]


def _truncated(source, path, keep=0.4):
    data = source.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def _text_file(path):
    path.write_text("not a font, just a note someone named .ttf\n")
    return path


def test_contour_repair_turns_noisy_refusals_into_sound_glyphs_before_the_fallback(open_sans_static, tmp_path):
    import numpy as np

    from proceedings.niv.baselines import fitted_baseline
    from proceedings.niv.convert import AlgorithmicPredictor, convert

    b1 = fitted_baseline()

    class Noisy(AlgorithmicPredictor):
        """B1 plus alternating point-to-point noise along each contour: what NIV's refused glyphs look like."""
        def predict(self, glyphs, corners):
            out = super().predict(glyphs, corners)
            return [p + 0.03 * np.where(np.arange(g.n_points) % 2, 1, -1)[None, :, None] * (g.contour >= 0)[None, :, None]
                    for g, p in zip(glyphs, out)]

    plain = convert(open_sans_static, tmp_path / "a.ttf", "wght", Noisy(b1), b1)
    fixed = convert(open_sans_static, tmp_path / "b.ttf", "wght", Noisy(b1), b1, repair_passes=4)
    assert not plain.repaired and len(plain.fallback) > 10
    assert fixed.repaired and len(fixed.fallback) < len(plain.fallback) - 10
    assert set(fixed.repaired) | set(fixed.fallback) == set(plain.fallback)
