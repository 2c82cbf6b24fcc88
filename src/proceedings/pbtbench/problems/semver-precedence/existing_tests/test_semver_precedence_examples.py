from semver import Version


def test_release_above_prerelease():
    assert Version.parse("1.0.0-rc.1") < Version.parse("1.0.0")


def test_alpha_before_beta():
    assert Version.parse("1.0.0-alpha") < Version.parse("1.0.0-beta")


def test_bump_build():
    assert str(Version.parse("1.2.3+build.1").bump_build()) == "1.2.3+build.2"
