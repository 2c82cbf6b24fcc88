from datetime import datetime, timedelta

from dateutil import tz


def test_sydney_summer_and_winter_offsets():
    sydney = tz.gettz("Australia/Sydney")
    assert datetime(2020, 1, 15, 12, tzinfo=sydney).utcoffset() == timedelta(hours=11)
    assert datetime(2020, 7, 15, 12, tzinfo=sydney).utcoffset() == timedelta(hours=10)
