from datetime import datetime, timedelta

from dateutil import tz


def test_dublin_summer_and_winter():
    dublin = tz.gettz("Europe/Dublin")
    assert datetime(2040, 7, 15, 12, tzinfo=dublin).utcoffset() == timedelta(hours=1)
    assert datetime(2040, 1, 15, 12, tzinfo=dublin).tzname() == "GMT"


def test_sydney_summer_in_january():
    sydney = tz.gettz("Australia/Sydney")
    assert datetime(2050, 1, 10, 9, tzinfo=sydney).utcoffset() == timedelta(hours=11)
