import tomllib

import pytest
import tomlkit
from tomlkit.exceptions import InvalidStringError


def test_keys_and_strings_read_back():
    doc = tomlkit.document()
    doc["bare-key_1"] = 1
    doc["quoted key"] = "x"
    doc["text"] = tomlkit.string('line one\nsay ""hi""', multiline=True)
    assert tomllib.loads(tomlkit.dumps(doc)) == {"bare-key_1": 1, "quoted key": "x", "text": 'line one\nsay ""hi""'}


def test_literal_strings_refuse_what_they_cannot_hold():
    with pytest.raises(InvalidStringError):
        tomlkit.string("it's", literal=True)
    assert tomlkit.string("C:\\path", literal=True).as_string() == "'C:\\path'"
