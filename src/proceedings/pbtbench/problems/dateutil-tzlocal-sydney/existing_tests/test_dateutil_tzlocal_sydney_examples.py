from datetime import datetime, timedelta

from dateutil import tz


def test_local_summer_and_winter():
    local = tz.tzlocal()
    assert datetime(2020, 1, 15, 12, tzinfo=local).utcoffset() == timedelta(hours=11)
    assert datetime(2020, 7, 15, 12, tzinfo=local).tzname() == "AEST"
