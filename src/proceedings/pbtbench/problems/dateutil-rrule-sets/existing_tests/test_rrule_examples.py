import datetime

from dateutil.rrule import DAILY, rrule, rruleset


def test_every_other_day():
    rule = rrule(DAILY, dtstart=datetime.datetime(2024, 5, 1, 9, 30), interval=2, count=3)
    assert list(rule) == [datetime.datetime(2024, 5, d, 9, 30) for d in (1, 3, 5)]


def test_between_inclusive():
    rule = rrule(DAILY, dtstart=datetime.datetime(2024, 5, 1), count=5)
    assert rule.between(datetime.datetime(2024, 5, 2), datetime.datetime(2024, 5, 4), inc=True) == [
        datetime.datetime(2024, 5, d) for d in (2, 3, 4)]


def test_set_with_an_exdate():
    rs = rruleset()
    rs.rrule(rrule(DAILY, dtstart=datetime.datetime(2024, 5, 1), count=3))
    rs.exdate(datetime.datetime(2024, 5, 2))
    assert list(rs) == [datetime.datetime(2024, 5, 1), datetime.datetime(2024, 5, 3)]
