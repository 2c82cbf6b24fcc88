import h11


def test_response_roundtrip():
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    server.receive_data(client.send(h11.Request(method="GET", target="/", headers=[("Host", "a")]))
                        + client.send(h11.EndOfMessage()))
    assert type(server.next_event()) is h11.Request and type(server.next_event()) is h11.EndOfMessage
    client.receive_data(server.send(h11.InformationalResponse(status_code=100, headers=[]))
                        + server.send(h11.Response(status_code=204, headers=[])) + server.send(h11.EndOfMessage()))
    assert client.next_event().status_code == 100
    assert client.next_event().status_code == 204


def test_header_names_are_lowercased():
    server = h11.Connection(h11.SERVER)
    server.receive_data(b"GET / HTTP/1.1\r\nHost: a\r\nX-Thing: Value\r\n\r\n")
    request = server.next_event()
    assert (b"x-thing", b"Value") in [(bytes(n), bytes(v)) for n, v in request.headers]


def test_single_content_length():
    server = h11.Connection(h11.SERVER)
    server.receive_data(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi")
    server.next_event()
    assert server.next_event().data == b"hi"
