"""Property-based tests for h11 0.16.0 (h11-connection)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from hypothesis import assume, reject
import h11


_HEADERS = [("Host", "example.com"), ("User-Agent", "pbt/1.0"), ("Accept", "*/*"),
            ("Accept-Encoding", "identity"), ("Cache-Control", "no-cache"), ("X-Request-Id", "0123456789abcdef")]


def _split(wire: bytes, pieces: list[int]) -> list[bytes]:
    """`wire` cut into pieces of the given sizes (non-positive sizes are skipped), then the rest."""
    out, start = [], 0
    for size in pieces:
        if size > 0 and start < len(wire):
            out.append(wire[start:start + size])
            start += size
    return out + [wire[start:]] if start < len(wire) else out


def _events(conn: h11.Connection, data: list[bytes]) -> list:
    events = []
    for piece in data:
        conn.receive_data(piece)
        while (event := conn.next_event()) not in (h11.NEED_DATA, h11.PAUSED):
            if type(event) is h11.ConnectionClosed:
                break
            events.append(event)
    return events


def _letters(text: str, extra: str) -> str:
    """The ASCII letters (and `extra` characters) of `text`, or "x" when none is left: a token."""
    return "".join(c for c in text if (c.isascii() and c.isalpha()) or c in extra) or "x"


def _body(events: list) -> bytes:
    assert type(events[-1]) is h11.EndOfMessage, events[-1:]
    return b"".join(bytes(e.data) for e in events if type(e) is h11.Data)


def prop_chunked_body_any_split(chunk_sizes: list[int], pieces: list[int]) -> None:
    """A chunked request body arrives intact however its bytes are split across receive_data calls."""
    assume(chunk_sizes)
    chunk_sizes = [1 + abs(n) % 4096 for n in chunk_sizes]
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    head = client.send(h11.Request(method="POST", target="/upload",
                                   headers=_HEADERS + [("Transfer-Encoding", "chunked")]))
    chunks = [bytes([65 + i % 26]) * n for i, n in enumerate(chunk_sizes)]
    body = b"".join(client.send(h11.Data(data=c)) for c in chunks) + client.send(h11.EndOfMessage())
    events = _events(server, [head] + _split(body, pieces))
    assert type(events[0]) is h11.Request
    assert _body(events[1:]) == b"".join(chunks)


def prop_request_head_any_split(extra: list[int], pieces: list[int]) -> None:
    """A request head parses to the same headers however its bytes are split."""
    extra = [abs(n) % 201 for n in extra]
    headers = _HEADERS + [(f"X-Pad-{i}", "v" * n) for i, n in enumerate(extra)] + [("Content-Length", "2")]
    client = h11.Connection(h11.CLIENT)
    wire = client.send(h11.Request(method="PUT", target="/item", headers=headers)) + client.send(h11.Data(data=b"ok"))
    events = _events(h11.Connection(h11.SERVER), _split(wire, pieces))
    assert events and type(events[0]) is h11.Request, events
    assert [(bytes(k).lower(), bytes(v)) for k, v in events[0].headers] == [
        (k.lower().encode(), v.encode()) for k, v in headers]
    assert _body(events[1:]) == b"ok"


def prop_connection_close_token(tokens: list[str], body: bytes) -> None:
    """A Connection header containing `close` ends keep-alive on both sides."""
    tokens = [_letters(t, "") for t in tokens]  # any strings, kept to the letters a token may hold
    value = ", ".join(tokens)
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    try:
        wire = client.send(h11.Request(method="GET", target="/", headers=[("Host", "a"), ("Connection", value)]))
    except h11.LocalProtocolError:
        reject()
    wire += client.send(h11.EndOfMessage())
    _events(server, [wire])
    server.send(h11.Response(status_code=200, headers=[("Content-Length", str(len(body)))]))
    server.send(h11.Data(data=body))
    server.send(h11.EndOfMessage())
    closing = any(t.strip().lower() == "close" for t in value.split(","))
    expected = h11.MUST_CLOSE if closing else h11.DONE
    assert server.our_state is expected and server.their_state is expected, (value, server.states)


def prop_head_response_has_no_body(heads: list[bool], lengths: list[int]) -> None:
    """On a kept-alive connection, responses to HEAD carry no body whatever their Content-Length."""
    assume(heads and lengths)
    methods, lengths = ["HEAD" if head else "GET" for head in heads], [abs(n) % 10_001 for n in lengths]
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    wire_to_client, expected = b"", []
    for method, length in zip(methods, lengths):
        request = h11.Request(method=method, target="/", headers=[("Host", "a")])
        _events(server, [client.send(request) + client.send(h11.EndOfMessage())])
        body = b"" if method == "HEAD" else b"x" * length
        wire_to_client += server.send(h11.Response(status_code=200, headers=[("Content-Length", str(length))]))
        wire_to_client += server.send(h11.Data(data=body)) + server.send(h11.EndOfMessage())
        server.start_next_cycle()
        received = _events(client, [wire_to_client])
        wire_to_client = b""
        assert type(received[0]) is h11.Response and _body(received[1:]) == body, (method, length)
        client.start_next_cycle()


def prop_pipelined_requests_any_split(targets: list[int], pieces: list[int]) -> None:
    """Requests pipelined on one connection are all parsed, in order, however the bytes are split."""
    assume(targets)
    targets = [abs(t) % 10**6 for t in targets]
    wire = b""
    for target in targets:
        client = h11.Connection(h11.CLIENT)
        wire += client.send(h11.Request(method="GET", target=f"/{target}", headers=_HEADERS))
        wire += client.send(h11.EndOfMessage())
    server, seen = h11.Connection(h11.SERVER), []
    for piece in _split(wire, pieces):
        server.receive_data(piece)
        while True:
            event = server.next_event()
            if event is h11.NEED_DATA:
                break
            if event is h11.PAUSED:
                server.send(h11.Response(status_code=204, headers=[]))
                server.send(h11.EndOfMessage())
                server.start_next_cycle()
            elif type(event) is h11.Request:
                seen.append(bytes(event.target))
    if server.their_state is h11.DONE:
        server.send(h11.Response(status_code=204, headers=[]))
        server.send(h11.EndOfMessage())
        server.start_next_cycle()
        while (event := server.next_event()) not in (h11.NEED_DATA, h11.PAUSED):
            if type(event) is h11.Request:
                seen.append(bytes(event.target))
    assert seen == [f"/{t}".encode() for t in targets]


def prop_http10_peer_gets_unframed_body(http10: bool, chunks: list[bytes]) -> None:
    """A body of unknown length goes out chunked to an HTTP/1.1 peer, and raw then closed to an HTTP/1.0 peer."""
    assume(all(chunks))
    version = "1.0" if http10 else "1.1"
    server = h11.Connection(h11.SERVER)
    _events(server, [f"GET / HTTP/{version}\r\nHost: a\r\n\r\n".encode()])
    head = server.send(h11.Response(status_code=200, headers=[]))
    body = b"".join(server.send(h11.Data(data=c)) for c in chunks) + server.send(h11.EndOfMessage())
    client = h11.Connection(h11.CLIENT)
    client.send(h11.Request(method="GET", target="/", headers=[("Host", "a")]))
    client.send(h11.EndOfMessage())
    received = _events(client, [head, body, b""] if version == "1.0" else [head, body])
    assert received[0].status_code == 200 and _body(received[1:]) == b"".join(chunks), (version, head)
    assert (b"transfer-encoding" in head.lower()) == (version == "1.1"), (version, head)
    assert (server.our_state is h11.MUST_CLOSE) == (version == "1.0")


def prop_chunks_of_any_size(chunks: list[bytes]) -> None:
    """Each non-empty Data event is one chunk on the wire; the receiver reassembles the body whatever the chunk sizes."""
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    wire = client.send(h11.Request(method="POST", target="/", headers=[("Host", "a"), ("Transfer-Encoding", "chunked")]))
    for chunk in chunks:
        wire += client.send(h11.Data(data=chunk))
    wire += client.send(h11.EndOfMessage())
    events = _events(server, [wire])
    assert _body(events[1:]) == b"".join(chunks)


def prop_expect_continue_only_http11(http10: bool, expect: list[str]) -> None:
    """A 100-continue expectation is honoured in HTTP/1.1 requests and ignored in HTTP/1.0 ones."""
    expect = [_letters(t, "-0123456789") for t in expect] or ["x"]  # any strings, kept to token characters
    version = "1.0" if http10 else "1.1"
    server = h11.Connection(h11.SERVER)
    raw = (f"POST / HTTP/{version}\r\nHost: a\r\nContent-Length: 1\r\nExpect: {', '.join(expect)}\r\n\r\n").encode()
    events = _events(server, [raw])
    assert type(events[0]) is h11.Request
    wants = version == "1.1" and any(t.lower() == "100-continue" for t in expect)
    assert server.they_are_waiting_for_100_continue is wants, (version, expect)


@settings(max_examples=200)
@given(chunk_sizes=..., pieces=...)
def test_chunked_body_any_split(chunk_sizes: list[int], pieces: list[int]):
    prop_chunked_body_any_split(chunk_sizes, pieces)


@settings(max_examples=200)
@given(extra=..., pieces=...)
def test_request_head_any_split(extra: list[int], pieces: list[int]):
    prop_request_head_any_split(extra, pieces)


@settings(max_examples=200)
@given(tokens=..., body=...)
def test_connection_close_token(tokens: list[str], body: bytes):
    prop_connection_close_token(tokens, body)


@settings(max_examples=200)
@given(chunks=...)
def test_chunks_of_any_size(chunks: list[bytes]):
    prop_chunks_of_any_size(chunks)


@settings(max_examples=200)
@given(http10=..., expect=...)
def test_expect_continue_only_http11(http10: bool, expect: list[str]):
    prop_expect_continue_only_http11(http10, expect)
