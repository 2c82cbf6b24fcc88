import datetime

from boltons.timeutils import Eastern

_UTC = datetime.timezone.utc


def test_summer_and_winter_offsets():
    assert datetime.datetime(2024, 7, 4, 12, tzinfo=Eastern).utcoffset() == datetime.timedelta(hours=-4)
    assert datetime.datetime(2024, 1, 15, 12, tzinfo=Eastern).utcoffset() == datetime.timedelta(hours=-5)


def test_zone_names():
    assert datetime.datetime(2024, 7, 4, 12, tzinfo=Eastern).tzname() == "EDT"
    assert datetime.datetime(2024, 1, 15, 12, tzinfo=Eastern).tzname() == "EST"


def test_conversion_from_utc():
    local = datetime.datetime(2024, 7, 4, 16, tzinfo=_UTC).astimezone(Eastern)
    assert local.replace(tzinfo=None) == datetime.datetime(2024, 7, 4, 12)
