from datetime import datetime, timedelta

from dateutil import tz


def test_default_range_in_summer_and_winter():
    eastern = tz.tzrange("EST", -18000, "EDT")
    assert datetime(1995, 7, 1, 12, tzinfo=eastern).tzname() == "EDT"
    assert datetime(1995, 1, 1, 12, tzinfo=eastern).utcoffset() == timedelta(hours=-5)


def test_local_zone_is_new_york():
    assert datetime(2024, 7, 4, 12, tzinfo=tz.tzlocal()).utcoffset() == timedelta(hours=-4)
