"""Package discovery that pyproject.toml alone cannot express: `cypher/` sits at the top level of the
checkout yet ships as `kalma_graph.cypher`.

Folders that hold only data (`kalma_graph/data`, `kalma_graph/prompts/<stage>`, `cypher/browse`) have
no `__init__.py`; they are listed as (namespace) packages too, so that setuptools ships them without
its "Package would be ignored" warning. Which files they ship is `[tool.setuptools.package-data]`
in pyproject.toml."""
import os

from setuptools import find_packages, setup


def data_packages(root: str, package: str) -> list[str]:
    """Every folder under `root` without an `__init__.py`, named as a package under `package`."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(s for s in subfolders if s != "__pycache__" and not s.startswith("."))
        if folder != root and "__init__.py" not in files:
            found.append(".".join([package, *os.path.relpath(folder, root).split(os.sep)]))
    return found


packages = find_packages(include=["kalma_graph", "kalma_graph.*"])
packages += ["kalma_graph.cypher"]
packages += data_packages("kalma_graph", "kalma_graph") + data_packages("cypher", "kalma_graph.cypher")
setup(packages=packages)
