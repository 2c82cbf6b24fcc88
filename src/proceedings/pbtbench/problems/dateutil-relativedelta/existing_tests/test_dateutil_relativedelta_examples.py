import datetime

from dateutil.relativedelta import MO, relativedelta


def test_add_month():
    assert datetime.date(2003, 1, 15) + relativedelta(months=+1) == datetime.date(2003, 2, 15)


def test_normalise():
    assert relativedelta(months=14) == relativedelta(years=1, months=2)


def test_next_monday():
    assert datetime.date(2024, 5, 1) + relativedelta(weekday=MO(+1)) == datetime.date(2024, 5, 6)
