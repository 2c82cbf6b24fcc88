import io
from datetime import datetime, timedelta

from dateutil import tz

VTIMEZONE = """BEGIN:VTIMEZONE
TZID:America/New_York
BEGIN:DAYLIGHT
DTSTART:20070311T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
TZNAME:EDT
END:DAYLIGHT
BEGIN:STANDARD
DTSTART:20071104T020000
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
TZNAME:EST
END:STANDARD
END:VTIMEZONE
"""


def test_summer_and_winter_offsets():
    eastern = tz.tzical(io.StringIO(VTIMEZONE)).get()
    assert datetime(2024, 7, 4, 12, tzinfo=eastern).utcoffset() == timedelta(hours=-4)
    assert datetime(2024, 1, 15, 12, tzinfo=eastern).tzname() == "EST"


def test_an_existing_time_is_not_resolved():
    new_york = tz.gettz("America/New_York")
    noon = datetime(2024, 3, 10, 12, tzinfo=new_york)
    assert tz.datetime_exists(noon) and tz.resolve_imaginary(noon) == noon
