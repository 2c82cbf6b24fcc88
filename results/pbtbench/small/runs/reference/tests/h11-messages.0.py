"""Property-based tests for h11 0.16.0 (h11-messages)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import h11


def _events(conn: h11.Connection, data: bytes) -> list:
    conn.receive_data(data)
    events = []
    while (event := conn.next_event()) not in (h11.NEED_DATA, h11.PAUSED):
        events.append(event)
    return events


def _token(text: str) -> str:
    """The ASCII letters, digits and hyphens of `text`, or "x" when none is left: a header token."""
    return "".join(c for c in text if c.isascii() and (c.isalnum() or c == "-")).strip("-") or "x"


def prop_informational_responses_arrive(statuses: list[int]) -> None:
    """Every 1xx response the server sends reaches the client as an InformationalResponse, in order."""
    statuses = [100 + s % 99 for s in statuses]  # any integers, folded into 100..198
    statuses = [s + (s >= 101) for s in statuses]  # then past 101 (Switching Protocols ends HTTP/1.1)
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    _events(server, client.send(h11.Request(method="GET", target="/", headers=[("Host", "a")]))
            + client.send(h11.EndOfMessage()))
    wire = b"".join(server.send(h11.InformationalResponse(status_code=s, headers=[])) for s in statuses)
    wire += server.send(h11.Response(status_code=200, headers=[("Content-Length", "0")])) + server.send(h11.EndOfMessage())
    received = _events(client, wire)
    assert [(type(e).__name__, e.status_code) for e in received[:-1]] == (
        [("InformationalResponse", s) for s in statuses] + [("Response", 200)])


def prop_trailers_survive(trailers: list[tuple[str, str]], body: bytes) -> None:
    """Trailer fields sent with EndOfMessage arrive in the receiver's EndOfMessage."""
    trailers = [("x-" + _token(n), _token(v)) for n, v in trailers]  # any strings, as custom trailer fields
    body = body or b"x"
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    wire = client.send(h11.Request(method="POST", target="/", headers=[("Host", "a"), ("Transfer-Encoding", "chunked")]))
    wire += client.send(h11.Data(data=body)) + client.send(h11.EndOfMessage(headers=trailers))
    end = _events(server, wire)[-1]
    assert type(end) is h11.EndOfMessage
    assert [(bytes(n), bytes(v)) for n, v in end.headers] == [(n.lower().encode(), v.encode()) for n, v in trailers]


def prop_folded_header_lines(parts: list[str], indent: int) -> None:
    """A header value continued on folded lines is read as the parts joined by single spaces."""
    parts = [_token(p) for p in parts] or ["x"]  # any strings, kept to token characters
    indent = 1 + indent % 8
    folded = ("\r\n" + " " * indent).join(parts)
    raw = f"GET / HTTP/1.1\r\nHost: a\r\nX-Long: {folded}\r\n\r\n".encode()
    request = _events(h11.Connection(h11.SERVER), raw)[0]
    assert dict((bytes(n), bytes(v)) for n, v in request.headers)[b"x-long"] == " ".join(parts).encode()


def prop_repeated_content_length(length: int, copies: int) -> None:
    """`Content-Length: n, n, ...` frames a body of n bytes."""
    length, copies = length % 10_001, 1 + copies % 10  # any integers, folded into 0..10000 and 1..10
    value = ", ".join([str(length)] * copies)
    raw = f"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: {value}\r\n\r\n".encode() + b"z" * length
    events = _events(h11.Connection(h11.SERVER), raw)
    assert type(events[-1]) is h11.EndOfMessage
    assert b"".join(bytes(e.data) for e in events if type(e) is h11.Data) == b"z" * length


def prop_continue_wait_ends_with_body(expect: list[str], body: list[bytes]) -> None:
    """The server stops reporting that the client waits for 100-continue once body data arrives."""
    expect = [_token(e) for e in expect] or ["x"]  # any strings, kept to token characters
    body = [piece or b"x" for piece in body] or [b"x"]
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    length = sum(len(b) for b in body)
    request = h11.Request(method="PUT", target="/", headers=[("Host", "a"), ("Expect", ", ".join(expect)),
                                                              ("Content-Length", str(length))])
    _events(server, client.send(request))
    waiting = any(e.lower() == "100-continue" for e in expect)
    assert server.they_are_waiting_for_100_continue is waiting
    for piece in body:
        _events(server, client.send(h11.Data(data=piece)))
        assert not server.they_are_waiting_for_100_continue and not client.client_is_waiting_for_100_continue


from hypothesis import strategies as st

_tokens = st.text("abcXYZ019-", min_size=1, max_size=6).filter(lambda t: t.replace("-", ""))

STRATEGIES = {
    "prop_informational_responses_arrive": dict(statuses=st.lists(st.sampled_from([100, 102, 103, 150, 199]), min_size=1, max_size=3)),
    "prop_trailers_survive": dict(trailers=st.lists(st.tuples(_tokens, _tokens), min_size=1, max_size=3), body=st.binary(min_size=1, max_size=8)),
    "prop_folded_header_lines": dict(parts=st.lists(_tokens, min_size=2, max_size=4), indent=st.integers(1, 4)),
    "prop_repeated_content_length": dict(length=st.integers(0, 50), copies=st.integers(2, 4)),
    "prop_continue_wait_ends_with_body": dict(expect=st.lists(st.sampled_from(["100-continue", "100-Continue", "x"]), min_size=1, max_size=2),
                                              body=st.lists(st.binary(min_size=1, max_size=5), min_size=1, max_size=3)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_continue_wait_ends_with_body'])
def test_continue_wait_ends_with_body(expect, body):
    prop_continue_wait_ends_with_body(expect, body)
