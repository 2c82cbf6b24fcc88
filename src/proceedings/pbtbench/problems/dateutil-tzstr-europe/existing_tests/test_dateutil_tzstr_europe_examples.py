from datetime import datetime, timedelta

from dateutil import tz


def test_summer_and_winter():
    berlin = tz.tzstr("CET-1CEST,M3.5.0,M10.5.0/3")
    assert datetime(2024, 7, 1, 12, tzinfo=berlin).utcoffset() == timedelta(hours=2)
    assert datetime(2024, 1, 1, 12, tzinfo=berlin).tzname() == "CET"
