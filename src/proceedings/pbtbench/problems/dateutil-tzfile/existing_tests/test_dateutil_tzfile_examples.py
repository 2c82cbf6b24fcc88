import datetime

from dateutil import tz

NEW_YORK = tz.gettz("America/New_York")


def test_summer_and_winter():
    assert datetime.datetime(2024, 7, 4, 12, tzinfo=NEW_YORK).utcoffset() == datetime.timedelta(hours=-4)
    assert datetime.datetime(2050, 1, 15, 12, tzinfo=NEW_YORK).tzname() == "EST"


def test_second_pass_through_the_repeated_hour():
    instant = datetime.datetime(2024, 11, 3, 6, 30, tzinfo=datetime.timezone.utc)
    local = instant.astimezone(NEW_YORK)
    assert (local.hour, local.minute, local.fold) == (1, 30, 1)
