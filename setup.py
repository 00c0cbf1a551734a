"""Package discovery that pyproject.toml alone cannot express: `cypher/` and `cli/` sit at the top
level of the checkout yet ship as `kalma_graph.cypher` and `kalma_graph.cli`."""
from setuptools import find_packages, setup

packages = find_packages(include=["kalma_graph", "kalma_graph.*"])
packages += ["kalma_graph.cypher", "kalma_graph.cli"]
setup(packages=packages)
