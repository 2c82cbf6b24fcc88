"""Real fonts shared by the NIV tests: Open Sans (a held-out family) cut to ASCII, and its default instance."""

import pytest


@pytest.fixture(scope="session")
def open_sans_ascii(tmp_path_factory):
    """Open Sans [wdth,wght] subset to printable ASCII (gvar kept): a real two-axis variable font."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    from proceedings.niv.fonts import variable_files

    font = TTFont(variable_files("open-sans")[0].path)
    options = subset.Options()
    options.layout_features = []
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=range(0x20, 0x7F))
    subsetter.subset(font)
    path = tmp_path_factory.mktemp("fonts") / "OpenSans-ascii-VF.ttf"
    font.save(path)
    return path


@pytest.fixture(scope="session")
def open_sans_static(open_sans_ascii, tmp_path_factory):
    """The default instance of that font, cut by fontTools' instancer: a real static TTF."""
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    from proceedings.niv.variations import font_axes

    vf = TTFont(open_sans_ascii)
    static = instancer.instantiateVariableFont(vf, {t: d for t, (_, d, _) in font_axes(vf).items()})
    path = tmp_path_factory.mktemp("fonts") / "OpenSans-ascii-Regular.ttf"
    static.save(path)
    return path
