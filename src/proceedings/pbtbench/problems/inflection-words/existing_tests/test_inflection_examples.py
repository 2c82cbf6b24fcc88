from inflection import humanize, ordinal, ordinalize, titleize, underscore


def test_ordinals():
    assert [ordinalize(n) for n in (1, 2, 3, 4, 11, 21, 1002)] == ["1st", "2nd", "3rd", "4th", "11th", "21st", "1002nd"]
    assert ordinal(-1021) == "st"


def test_humanize_examples():
    assert humanize("employee_salary") == "Employee salary"
    assert humanize("author_id") == "Author"


def test_underscore_and_titleize():
    assert underscore("DeviceType") == "device_type"
    assert titleize("raiders_of_the_lost_ark") == "Raiders Of The Lost Ark"
