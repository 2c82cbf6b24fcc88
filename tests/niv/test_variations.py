"""Extracted variation tuples are exact: default outline + total displacement = fontTools' instancer."""

import numpy as np


def test_default_plus_displacement_equals_the_instancer_outline_for_every_simple_glyph_of_karla():
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    from proceedings.niv.fonts import variable_files
    from proceedings.niv.variations import glyph_outline, simple_glyphs, total_displacement

    path = variable_files("karla")[0].path
    vf = TTFont(path)
    heavy = instancer.instantiateVariableFont(TTFont(path), {"wght": 800})  # normalised corner wght = +1
    names = simple_glyphs(vf)
    assert len(names) > 200
    for name in names:
        outline = glyph_outline(vf, name)
        moved = outline.points + total_displacement(vf, outline, {"wght": 1.0})
        coords, _, _ = heavy["glyf"][name].getCoordinates(heavy["glyf"])
        assert np.abs(np.asarray(coords) - moved[:-4]).max() <= 1.0, name
        advance = moved[-3, 0] - moved[-4, 0]  # phantom points: advance minus left
        assert abs(heavy["hmtx"][name][0] - advance) <= 1.0, name


def test_corners_have_one_or_two_axes_and_only_the_signs_each_range_allows():
    from proceedings.niv.variations import axis_signs, corner_locations

    signs = axis_signs({"wght": (300, 400, 800), "wdth": (75, 100, 100)})
    assert signs == {"wght": (-1, 1), "wdth": (-1,)}
    corners = corner_locations(signs)
    assert corners == [{"wght": -1}, {"wght": 1}, {"wdth": -1}, {"wght": -1, "wdth": -1}, {"wght": 1, "wdth": -1}]


def test_dataset_shard_of_a_two_axis_font_holds_its_corners_and_normalised_points(open_sans_ascii, tmp_path, monkeypatch):
    from proceedings.niv.data import extract_font
    from proceedings.niv.fonts import FontFile

    arrays = extract_font(FontFile("Open Sans", "open-sans", open_sans_ascii, "normal"), 504, "ascii")
    assert arrays["corners"].shape == (5, 4)
    assert len(arrays["name"]) > 60
    assert arrays["features"].shape[0] == arrays["displacement"].shape[0] == arrays["n_points"].sum()
    outline = arrays["features"][:, 2] >= 0
    assert np.abs(arrays["features"][outline, :2]).max() <= 1.5


def test_a_fonts_dir_yields_its_variable_families_by_name_less_the_held_out_ones(open_sans_ascii, open_sans_static,
                                                                                 tmp_path):
    import shutil

    from proceedings.niv.data import directory_training_files
    from proceedings.niv.fonts import directory_files, variable_files

    tree = tmp_path / "ofl"
    for source, target in [(variable_files("karla")[0].path, "karla/Karla[wght].ttf"),
                           (open_sans_ascii, "opensans/OpenSans[wdth,wght].ttf"),
                           (open_sans_static, "opensans/static/OpenSans-Regular.ttf")]:
        (tree / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, tree / target)
    (tree / "broken.ttf").write_text("not a font")
    assert [(f.family, f.slug, f.path.name) for f in directory_files(tree)] == [
        ("Karla", "karla", "Karla[wght].ttf"), ("Open Sans", "open-sans", "OpenSans[wdth,wght].ttf")]
    assert [f.slug for f in directory_training_files(tree)] == ["karla"]  # Open Sans is held out
