import datetime

from isodate import Duration, duration_isoformat, parse_duration


def test_add_one_month():
    assert datetime.date(2023, 5, 15) + Duration(months=1) == datetime.date(2023, 6, 15)


def test_parse_and_format():
    duration = parse_duration("P1Y2M3DT4H")
    assert duration == Duration(years=1, months=2, days=3, hours=4)
    assert duration_isoformat(duration) == "P1Y2M3DT4H"


def test_equal_to_itself():
    assert Duration(months=5, days=2) == Duration(months=5, days=2)
