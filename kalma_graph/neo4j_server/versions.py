"""Pinned versions of everything the local Neo4j server is assembled from (all from Maven Central).

Changing a version here needs a new lockfile (``neo4j-<version>.sha256`` next to this module);
see :func:`kalma_graph.neo4j_server.installer.write_lockfile`.
"""

from __future__ import annotations

#: Neo4j Community, 5.26 LTS line (supported until June 2028). ``org.neo4j:neo4j`` pulls the
#: kernel, Cypher, Bolt and the HTTP server (``org.neo4j.app:neo4j-server``) with every runtime dep.
NEO4J_VERSION = "5.26.30"

#: Neo4j Browser served at ``/browser/`` from the classpath. 5.24.0 is the newest 5.x Browser
#: published to Maven Central (``org.neo4j.client:neo4j-browser``); the 5.26 server accepts it.
BROWSER_VERSION = "5.24.0"

#: APOC Core. On Maven Central it is ``org.neo4j.procedure:apoc-core`` without a classifier (the
#: ``-core`` suffix is only the GitHub release file name, a shaded jar) plus
#: ``org.neo4j.procedure:apoc-common``. APOC is released for some 5.26 patches only; APOC
#: compatibility is by major.minor, and 5.26.19 is the newest 5.26 build.
APOC_VERSION = "5.26.19"

#: The Maven plugin that copies the resolved jars; pinned so resolution does not depend on the
#: defaults of whichever Maven the user has.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"

#: Java feature releases Neo4j 5.26 supports; others get a warning (older ones an error).
SUPPORTED_JAVA = (17, 21)
MIN_JAVA = 17

#: Main classes inside ``neo4j-<version>.jar`` / ``neo4j-command-line-<version>.jar``.
SERVER_MAIN_CLASS = "org.neo4j.server.CommunityEntryPoint"
ADMIN_MAIN_CLASS = "org.neo4j.cli.AdminTool"

#: Neo4j's default user.
NEO4J_USER = "neo4j"
