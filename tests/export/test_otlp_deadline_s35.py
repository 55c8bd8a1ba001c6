"""``--endpoint``: each request is over within ``--timeout`` however the collector behaves.

A socket timeout bounds each wait, not the request: collectors of ours that answer a byte at a
time, never read the request, or never finish a TLS handshake kept the export waiting for
ever. Now they fail it (exit 2 through the CLI) within the deadline, a slow but finished answer
still counts, and of an answer that never ends at most ``MAX_ANSWER_BYTES`` are read.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_export.otlp_http import JSON, MAX_ANSWER_BYTES, OtlpSender

REQUEST = {"resourceLogs": [{"scopeLogs": [{"logRecords": [{"body": {"stringValue": "x"}}]}]}]}
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"


STOP = threading.Event()  # set when a test's collector closes: its handlers' waits end


def hang() -> None:
    STOP.wait(30)


@contextlib.contextmanager
def collector(handle: Callable[[socket.socket], None], tls: ssl.SSLContext | None = None) -> Iterator[str]:
    """A one-connection-at-a-time server of ours on 127.0.0.1 that runs ``handle`` on each
    connection (after the TLS handshake when ``tls``); yields its URL."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = STOP
    stop.clear()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn, contextlib.suppress(OSError):  # the client gave up: what these tests want
                handle(tls.wrap_socket(conn, server_side=True) if tls else conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.getsockname()[1]}/v1/logs"
    finally:
        stop.set()
        thread.join(10)
        server.close()


def read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += conn.recv(65536)


def trickled(conn: socket.socket) -> None:
    read_request(conn)
    for byte in ANSWER[:-3]:  # never the whole answer
        conn.sendall(bytes([byte]))
        time.sleep(0.05)
    hang()


def sent_within(url: str, seconds: float, timeout: float = 1.0, request: dict = REQUEST) -> InputError | None:
    """Send ``request``; the InputError it raised (None when taken), asserting it took under ``seconds``."""
    started = time.monotonic()
    try:
        OtlpSender(url, protocol=JSON, timeout=timeout).send(request, 1)
        error = None
    except InputError as exc:
        error = exc
    assert time.monotonic() - started < seconds
    return error


def test_an_answer_a_byte_at_a_time_fails_at_the_deadline():
    with collector(trickled) as url:
        error = sent_within(url, 5)
    assert error is not None and "did not take them and answer within 1 s" in error.message


def test_a_collector_that_never_reads_the_request_fails_at_the_deadline():
    def deaf(conn: socket.socket) -> None:
        hang()

    big = {"resourceLogs": [{"body": {"stringValue": "x" * (16 << 20)}}]}  # past every socket buffer
    with collector(deaf) as url:
        error = sent_within(url, 10, request=big)
    assert error is not None and "within 1 s" in error.message


def test_a_slow_answer_that_ends_within_the_deadline_is_taken():
    def slow(conn: socket.socket) -> None:
        read_request(conn)
        for start in range(0, len(ANSWER), 16):
            conn.sendall(ANSWER[start:start + 16])
            time.sleep(0.05)

    with collector(slow) as url:
        assert sent_within(url, 10, timeout=5) is None


def test_an_answer_that_never_ends_is_read_no_further_than_the_bound():
    written = []

    def endless(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n")
        total = 0
        try:
            while True:
                total += conn.send(b"x" * 65536)
        finally:
            written.append(total)

    with collector(endless) as url:
        assert sent_within(url, 10, timeout=5) is None  # taken: a 2xx answer is the collector's yes
    assert written and written[0] < MAX_ANSWER_BYTES + (32 << 20)  # the answer read, plus socket buffers


def self_signed(tmp_path: Path) -> tuple[Path, ssl.SSLContext]:
    """A certificate for 127.0.0.1 (its file, for clients to trust) and a server context using it."""
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return cert_file, context


def test_over_tls_an_answer_is_taken_and_a_trickle_fails_at_the_deadline(tmp_path, monkeypatch):
    cert, context = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the client's default context trusts it

    def answers(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(ANSWER)

    with collector(answers, tls=context) as url:
        assert sent_within(url, 10, timeout=5) is None
    with collector(trickled, tls=context) as url:
        error = sent_within(url, 5)
    assert error is not None and "within 1 s" in error.message


def test_a_tls_handshake_that_never_ends_fails_at_the_deadline():
    def silent(conn: socket.socket) -> None:  # takes the connection, says nothing
        hang()

    with collector(silent) as url:
        error = sent_within(url.replace("http://", "https://"), 5)
    assert error is not None and "within 1 s" in error.message
