import datetime

from dateutil import tz

EASTERN = tz.tzstr("EST5EDT,M3.2.0,M11.1.0")


def test_summer_and_winter():
    assert datetime.datetime(2024, 7, 4, 12, tzinfo=EASTERN).utcoffset() == datetime.timedelta(hours=-4)
    assert datetime.datetime(2024, 1, 15, 12, tzinfo=EASTERN).tzname() == "EST"


def test_middle_of_the_repeated_hour_is_ambiguous():
    assert EASTERN.is_ambiguous(datetime.datetime(2024, 11, 3, 1, 30))


def test_conversion_from_utc():
    noon = datetime.datetime(2024, 1, 15, 17, tzinfo=datetime.timezone.utc).astimezone(EASTERN)
    assert noon.replace(tzinfo=None) == datetime.datetime(2024, 1, 15, 12)
