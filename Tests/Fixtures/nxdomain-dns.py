#!/usr/bin/env python3
"""A DNS server on 127.0.0.1 that answers every query "no such name" (NXDOMAIN), so tests of an unknown
upstream host never ask a real resolver. Prints "PORT <n>" once listening."""
import socket

sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 0))
print("PORT %d" % sock.getsockname()[1], flush=True)
while True:
    query, peer = sock.recvfrom(512)
    if len(query) < 12:
        continue
    # Same id and question; flags: response, recursion desired and available, rcode 3 (NXDOMAIN).
    reply = query[:2] + b"\x81\x83" + query[4:6] + b"\x00\x00\x00\x00\x00\x00" + query[12:]
    sock.sendto(reply, peer)
