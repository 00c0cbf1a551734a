"""Which process is this home's Neo4j: the pid file, checked against the live process (pid reuse), and the
servers this Python process started. Below the installer and the launcher, which both ask whether a server runs
from a home (the installer before it changes jars)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kalma_graph.files import pid_alive

from .paths import Layout
from .versions import SERVER_MAIN_CLASS

#: Popen objects of servers started by this Python process (`server.start`), so they can be polled and reaped
#: (otherwise a stopped child lingers as a zombie that still "exists" for ``kill(pid, 0)``).
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def _pid_alive(pid: int) -> bool:
    proc = _CHILDREN.get(pid)
    if proc is not None:
        return proc.poll() is None
    if not pid_alive(pid):
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():  # a zombie is not alive
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return True
    return True


def _command_line(pid: int) -> str | None:
    proc_file = Path(f"/proc/{pid}/cmdline")
    try:
        if proc_file.exists():
            return proc_file.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        out = subprocess.run(["ps", "-o", "command=", "-p", str(pid)], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _is_our_server(pid: int, layout: Layout) -> bool:
    """The pid is alive and is the Neo4j of this home (guards against pid reuse)."""
    if not _pid_alive(pid):
        return False
    cmd = _command_line(pid)
    if cmd is None:  # cannot tell; trust the pid file
        return True
    return SERVER_MAIN_CLASS in cmd and f"--home-dir={layout.home}" in cmd


def _read_pid(layout: Layout) -> int | None:
    try:
        return int(layout.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def running_pid(home: Path | str | None = None) -> int | None:
    """The pid of this home's server when it is running; removes a stale pid file."""
    layout = Layout.of(home)
    pid = _read_pid(layout)
    if pid is None:
        return None
    if _is_our_server(pid, layout):
        return pid
    layout.pid_file.unlink(missing_ok=True)
    return None
