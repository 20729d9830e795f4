"""Probe bot for the sandbox tests and the start-up benchmark.

It does what a real bot does before its first move (start Python, import grpc and the SDK,
read its address and token, connect to the referee's Unix socket), says hello with its token
on the raw socket, then idles so the tests can look inside the running container.
"""

import os
import socket
import time

import grpc  # noqa: F401  (imported for a realistic start-up cost)
import talon_sdk  # noqa: F401

address = os.environ["TALON_ADDRESS"]
if "TALON_TOKEN" in os.environ:
    token = os.environ["TALON_TOKEN"]
else:
    with open(os.environ["TALON_TOKEN_FILE"]) as handle:
        token = handle.read().strip()
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(address.removeprefix("unix://"))
sock.sendall(b"probe " + token.encode() + b"\n")
print("probe: connected", flush=True)
while True:
    time.sleep(3600)
