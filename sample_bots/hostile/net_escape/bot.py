"""Hostile bot: tries to reach anything over the network, or any socket but its referee's.

Safety: it first lists the container's network interfaces; if there is any but loopback the
sandbox has already failed, and it reports that without sending a single packet.
"""

import errno
import json
import os
import socket

results = {}


def report(attempt, escaped, detail):
    results[attempt] = "escaped" if escaped else "blocked"
    print(f"{'ESCAPED' if escaped else 'BLOCKED'} {attempt}: {detail}", flush=True)


def try_connect(attempt, family, kind, address, timeout=2.0):
    sock = socket.socket(family, kind)
    sock.settimeout(timeout)
    try:
        if kind == socket.SOCK_DGRAM:
            sock.sendto(b"talon", address)
        else:
            sock.connect(address)
        report(attempt, True, f"connected to {address!r}")
    except OSError as error:
        report(attempt, False, f"{errno.errorcode.get(error.errno, error.errno)} {error}")
    finally:
        sock.close()


def default_gateway():
    """The host side of a bridge network, from the routing table (none without a network)."""
    with open("/proc/net/route") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1] == "00000000":
                return socket.inet_ntoa(int(fields[2], 16).to_bytes(4, "little"))
    return None


interfaces = sorted(name for _, name in socket.if_nameindex())
if interfaces != ["lo"]:
    report("interfaces", True, f"network interfaces {interfaces}: not sending anything")
else:
    report("interfaces", False, "only loopback")
    gateway = default_gateway()
    report("route", gateway is not None, f"default gateway {gateway}")
    try_connect("tcp-out", socket.AF_INET, socket.SOCK_STREAM, ("192.0.2.1", 80))
    try_connect("udp-out", socket.AF_INET, socket.SOCK_DGRAM, ("192.0.2.1", 53))
    try_connect("tcp6-out", socket.AF_INET6, socket.SOCK_STREAM, ("2001:db8::1", 80))
    if gateway:
        try_connect("tcp-host", socket.AF_INET, socket.SOCK_STREAM, (gateway, 22))
    else:
        report("tcp-host", False, "no route to the host")
    try:
        found = socket.getaddrinfo("pypi.org", 443)
        report("dns", True, f"resolved to {found[0][4]}")
    except OSError as error:
        report("dns", False, str(error))
for path in ("/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock"):
    if os.path.exists(path):
        try_connect(f"unix {path}", socket.AF_UNIX, socket.SOCK_STREAM, path)
    else:
        report(f"unix {path}", False, "absent")
for name in ("\0/containerd-shim", "\0docker", "\0talon"):
    try_connect(f"abstract {name[1:]}", socket.AF_UNIX, socket.SOCK_STREAM, name)
print("RESULT " + json.dumps(results), flush=True)
