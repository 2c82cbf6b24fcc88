from datetime import datetime, timedelta

from dateutil import tz


def test_lord_howe_summer_and_winter():
    lord_howe = tz.gettz("Australia/Lord_Howe")
    assert datetime(2040, 1, 15, 12, tzinfo=lord_howe).utcoffset() == timedelta(hours=11)
    assert datetime(2040, 7, 15, 12, tzinfo=lord_howe).dst() == timedelta(0)


def test_sydney_noon_in_july():
    sydney = tz.gettz("Australia/Sydney")
    assert datetime(2045, 7, 1, 12, tzinfo=sydney).tzname() == "AEST"
