"""Export: true displacements of a real variable font, written back by inclusion-exclusion, reproduce it."""

import numpy as np
import pytest


def true_corner_displacements(vf_path):
    from fontTools.ttLib import TTFont

    from proceedings.niv.export import corner_key
    from proceedings.niv.variations import axis_signs, corner_locations, font_axes, glyph_outline, simple_glyphs, \
        total_displacement

    vf = TTFont(vf_path)
    axes = font_axes(vf)
    corners = corner_locations(axis_signs(axes))
    return axes, corners, {name: {corner_key(c): total_displacement(vf, glyph_outline(vf, name), c) for c in corners}
                           for name in simple_glyphs(vf)}


def test_round_trip_of_true_displacements_reproduces_every_corner_within_one_unit(open_sans_ascii, open_sans_static,
                                                                                    tmp_path):
    from fontTools.ttLib import TTFont

    from proceedings.niv.export import corner_key, make_variable_font
    from proceedings.niv.validate import validate
    from proceedings.niv.variations import glyph_outline, total_displacement

    axes, corners, truth = true_corner_displacements(open_sans_ascii)
    assert any(len(c) == 2 for c in corners)  # a two-axis corner is in the round trip
    out = tmp_path / "rebuilt.ttf"
    make_variable_font(TTFont(open_sans_static), axes, truth).save(out)
    rebuilt = TTFont(out)
    for name, per_corner in truth.items():
        outline = glyph_outline(rebuilt, name)
        for corner in corners:
            got = total_displacement(rebuilt, outline, corner)
            assert np.abs(got - per_corner[corner_key(corner)]).max() <= 1.0, (name, corner)
    report = validate(out)
    assert report.ok, report
    assert report.axes == [("wght", 300.0, 400.0, 800.0), ("wdth", 75.0, 100.0, 100.0)]
    assert report.instances >= 4 and report.stat


def test_inclusion_exclusion_subtracts_the_one_axis_tuples_from_the_two_axis_corner():
    from proceedings.niv.export import gvar_tuples

    a, b, ab = np.full((3, 2), 10.0), np.full((3, 2), 4.0), np.full((3, 2), 20.0)
    tuples = {tuple(tv.axes): tv.coordinates for tv in gvar_tuples(
        {(("wght", 1),): a, (("wdth", -1),): b, (("wght", 1), ("wdth", -1)): ab})}
    assert tuples[("wght", "wdth")] == [(6, 6)] * 3  # 20 - 10 - 4


def test_unknown_axis_tag_is_refused_with_the_supported_list():
    from proceedings.core.errors import ProceedingsError
    from proceedings.niv.export import parse_axes

    with pytest.raises(ProceedingsError, match="unknown axis tag 'wtdh'; supported: wght, wdth, opsz, slnt"):
        parse_axes("wght,wtdh")
    assert parse_axes("wght=100:400:900,wdth") == {"wght": (100.0, 400.0, 900.0), "wdth": (75.0, 100.0, 100.0)}
