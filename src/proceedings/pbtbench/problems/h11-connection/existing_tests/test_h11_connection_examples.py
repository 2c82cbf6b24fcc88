import h11


def test_request_roundtrip_in_one_piece():
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    wire = client.send(h11.Request(method="GET", target="/", headers=[("Host", "example.com")]))
    wire += client.send(h11.EndOfMessage())
    server.receive_data(wire)
    request = server.next_event()
    assert request.method == b"GET" and request.target == b"/"
    assert type(server.next_event()) is h11.EndOfMessage
    assert server.next_event() is h11.NEED_DATA


def test_content_length_response():
    client, server = h11.Connection(h11.CLIENT), h11.Connection(h11.SERVER)
    server.receive_data(client.send(h11.Request(method="GET", target="/", headers=[("Host", "a")]))
                        + client.send(h11.EndOfMessage()))
    server.next_event(), server.next_event()
    wire = server.send(h11.Response(status_code=200, headers=[("Content-Length", "5")]))
    wire += server.send(h11.Data(data=b"hello")) + server.send(h11.EndOfMessage())
    client.receive_data(wire)
    assert client.next_event().status_code == 200
    assert client.next_event().data == b"hello"
    assert type(client.next_event()) is h11.EndOfMessage
