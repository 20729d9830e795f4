"""Hostile bot: tries to read secrets and host files, tamper with its socket, gain root."""

import ctypes
import json
import os
import subprocess

results = {}


def report(attempt, escaped, detail):
    results[attempt] = "escaped" if escaped else "blocked"
    print(f"{'ESCAPED' if escaped else 'BLOCKED'} {attempt}: {detail}", flush=True)


def try_read(attempt, path):
    try:
        with open(path, "rb") as handle:
            data = handle.read(256)
        report(attempt, True, f"read {len(data)} bytes of {path}")
    except OSError as error:
        report(attempt, False, f"{type(error).__name__}: {error}")


def try_write(attempt, path, data=b"1"):
    try:
        with open(path, "wb") as handle:
            handle.write(data)
        report(attempt, True, f"wrote {path}")
    except OSError as error:
        report(attempt, False, f"{type(error).__name__}: {error}")


uid = os.getuid()
report("root", uid == 0 or os.geteuid() == 0, f"uid {uid} euid {os.geteuid()}")
try_read("shadow", "/etc/shadow")
try_read("host shadow via /proc/1/root", "/proc/1/root/etc/shadow")


def same_root(pid):
    """Whether process ``pid`` sees the same root directory as this bot (or is hidden)."""
    try:
        theirs, ours = os.stat(f"/proc/{pid}/root"), os.stat("/")
    except OSError:
        return True
    return (theirs.st_dev, theirs.st_ino) == (ours.st_dev, ours.st_ino)


pids = [name for name in os.listdir("/proc") if name.isdigit()]
foreign = [pid for pid in pids if not same_root(pid)]
report("other roots via /proc/PID/root", bool(foreign),
       f"{len(pids)} processes visible, {len(foreign)} with another root")
try_read("kernel memory", "/dev/mem")
try_read("kernel log", "/dev/kmsg")
for sock in ("/var/run/docker.sock", "/run/docker.sock"):
    report(f"docker socket {sock}", os.path.exists(sock), "present" if os.path.exists(sock)
           else "absent")
mounted = [line.split()[1] for line in open("/proc/self/mounts")]
extra = [m for m in mounted if m.startswith(("/host", "/var/lib/docker", "/root"))]
report("host mounts", bool(extra), f"mounts {extra}" if extra else "none beyond /talon")
try_write("hostname", "/proc/sys/kernel/hostname", b"owned")
try_write("core pattern", "/proc/sys/kernel/core_pattern", b"|/bin/sh")
try_write("cgroup memory limit", "/sys/fs/cgroup/memory/memory.limit_in_bytes", b"-1")
try_write("cgroup pids limit", "/sys/fs/cgroup/pids/pids.max", b"max")
try_write("sysrq", "/proc/sysrq-trigger", b"b")
talon = os.path.dirname(os.environ.get("TALON_ADDRESS", "unix:///talon/x")[len("unix://"):])
try:
    os.unlink(os.path.join(talon, "referee.sock"))
    report("unlink referee socket", True, "removed it")
except OSError as error:
    report("unlink referee socket", False, f"{type(error).__name__}: {error}")
try_write("plant file next to the socket", os.path.join(talon, "evil"))
libc = ctypes.CDLL(None, use_errno=True)
rc = libc.setuid(0)
report("setuid(0)", rc == 0 and os.getuid() == 0, f"returned {rc}, errno {ctypes.get_errno()}")
rc = libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)
report("mount", rc == 0, f"returned {rc}, errno {ctypes.get_errno()}")
rc = libc.unshare(0x10000000)  # CLONE_NEWUSER: a user namespace would give caps back
report("unshare user namespace", rc == 0, f"returned {rc}, errno {ctypes.get_errno()}")
commands = {"su": ["su", "-c", "id -u"], "sudo": ["sudo", "id", "-u"],
            "mount tool": ["mount", "-t", "tmpfs", "none", "/tmp"]}
for tool, command in commands.items():
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=5, input="")
        escaped = run.returncode == 0 and (tool == "mount tool" or run.stdout.strip() == "0")
        report(f"{tool}", escaped, f"exit {run.returncode} {run.stderr.strip()[:80]}")
    except (OSError, subprocess.TimeoutExpired) as error:
        report(f"{tool}", False, f"{type(error).__name__}: {error}")
print("RESULT " + json.dumps(results), flush=True)
