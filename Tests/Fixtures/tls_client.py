#!/usr/bin/env python3
"""One HTTPS request with Python's ssl module, for the TLS handshake tests.

    tls_client.py PORT CAFILE SNI|- [ALPN,ALPN...]

Connects to 127.0.0.1:PORT, verifies the certificate chain against CAFILE, and sends SNI (with the host name
checked against the certificate) unless SNI is '-'. Offers the comma-separated ALPN protocols, if given. Prints one
JSON object: {"alpn": the protocol agreed on or null, "san": [[type, value], ...] of the server's certificate,
"version": the TLS version, "body": the answer's body}. Exits 1 with the error on stderr when the handshake fails.
"""
import json
import socket
import ssl
import sys


def main():
    port, cafile, sni = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    context = ssl.create_default_context(cafile=cafile)
    if sni == "-":
        context.check_hostname = False  # the chain is still verified: CERT_REQUIRED stays
    if len(sys.argv) > 4:
        context.set_alpn_protocols(sys.argv[4].split(","))
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname=None if sni == "-" else sni) as tls:
                tls.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % sni.encode())
                answer = b""
                while True:
                    chunk = tls.recv(65536)
                    if not chunk:
                        break
                    answer += chunk
                certificate = tls.getpeercert()
                print(json.dumps({
                    "alpn": tls.selected_alpn_protocol(),
                    "san": [list(entry) for entry in certificate.get("subjectAltName", ())],
                    "version": tls.version(),
                    "body": answer.split(b"\r\n\r\n", 1)[-1].decode(),
                }))
    except (ssl.SSLError, OSError) as error:
        print(error, file=sys.stderr)
        sys.exit(1)


main()
