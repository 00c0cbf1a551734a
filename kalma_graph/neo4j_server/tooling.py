"""Finding and checking the external tools: ``java`` (to run Neo4j) and ``mvn`` (to fetch it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import JavaError, MavenError
from .versions import MIN_JAVA, SUPPORTED_JAVA

_VERSION_RE = re.compile(r'version "(?P<v>[^"]+)"')


@dataclass(frozen=True)
class JavaInfo:
    path: str
    version: str  #: as printed, e.g. ``17.0.15``
    feature: int  #: the feature release, e.g. 17

    @property
    def supported(self) -> bool:
        return self.feature in SUPPORTED_JAVA


def find_java() -> str | None:
    """``$JAVA_HOME/bin/java`` when JAVA_HOME is set and has one, else ``java`` on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / ("java.exe" if os.name == "nt" else "java")
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("java")


def parse_java_version(output: str) -> tuple[str, int]:
    """``('17.0.15', 17)`` from ``java -version`` output; ``1.8.0_392`` gives feature 8."""
    match = _VERSION_RE.search(output)
    if not match:
        raise JavaError(f"cannot read the Java version from `java -version` output:\n{output.strip()}")
    version = match.group("v")
    parts = re.split(r"[._+-]", version)
    try:
        feature = int(parts[1]) if parts[0] == "1" and len(parts) > 1 else int(parts[0])
    except ValueError as exc:
        raise JavaError(f"cannot read the Java version from {version!r}") from exc
    return version, feature


def require_java() -> JavaInfo:
    """The Java to run Neo4j with; :class:`JavaError` when it is missing or older than 17."""
    java = find_java()
    if java is None:
        raise JavaError(
            f"`java` was not found (neither $JAVA_HOME/bin/java nor on PATH). Neo4j 5.26 needs "
            f"Java {' or '.join(map(str, SUPPORTED_JAVA))}: install e.g. OpenJDK 17 "
            "(apt install openjdk-17-jre-headless / brew install openjdk@17) or set JAVA_HOME."
        )
    try:
        proc = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise JavaError(f"could not run `{java} -version`: {exc}") from exc
    version, feature = parse_java_version(proc.stderr + proc.stdout)
    if feature < MIN_JAVA:
        raise JavaError(
            f"{java} is Java {version}; Neo4j 5.26 needs Java {MIN_JAVA} or newer "
            f"(supported: {', '.join(map(str, SUPPORTED_JAVA))}). Set JAVA_HOME to a newer JDK/JRE."
        )
    return JavaInfo(path=java, version=version, feature=feature)


def require_maven() -> str:
    """Path of ``mvn``; :class:`MavenError` when it is not on PATH."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MavenError(
            "`mvn` (Apache Maven 3.6.3+) was not found on PATH; it fetches Neo4j from Maven Central. "
            "Install it (apt install maven / brew install maven) or use docker/compose.yaml instead."
        )
    return mvn
