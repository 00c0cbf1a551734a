"""The wheel ships every data folder: each folder without `__init__.py` under `kalma_graph/` and
`cypher/` (setup.py lists them as packages) has its `[tool.setuptools.package-data]` key in
pyproject.toml, and every key's patterns match the files in its folder."""
import fnmatch
import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Where each package's folder sits in the checkout (pyproject's package-dir mapping).
FOLDERS = {"kalma_graph": ROOT / "kalma_graph", "kalma_graph.cypher": ROOT / "cypher"}


def package_data() -> dict[str, list[str]]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]["package-data"]


def folder_of(package: str) -> Path:
    base = max((p for p in FOLDERS if package == p or package.startswith(p + ".")), key=len)
    rest = package[len(base) + 1:].split(".") if package != base else []
    return FOLDERS[base].joinpath(*rest)


def data_folders() -> dict[str, Path]:
    found = {}
    for package, root in FOLDERS.items():
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = [s for s in subfolders if s != "__pycache__" and not s.startswith(".")]
            if Path(folder) != root and "__init__.py" not in files:
                rel = Path(folder).relative_to(root).parts
                found[".".join([package, *rel])] = Path(folder)
    return found


def test_every_data_folder_has_its_package_data_key():
    folders = data_folders()
    assert "kalma_graph.data" in folders and "kalma_graph.cypher.browse" in folders
    missing = sorted(set(folders) - set(package_data()))
    assert not missing, f"data folders with no [tool.setuptools.package-data] key: {missing}"


def test_every_non_python_file_of_a_data_folder_is_matched():
    data = package_data()
    for package, folder in data_folders().items():
        for name in os.listdir(folder):
            if (folder / name).is_file() and name != "README.md":
                assert any(fnmatch.fnmatch(name, pat) for pat in data[package]), (package, name)


def test_every_package_data_pattern_matches_a_file():
    for package, patterns in package_data().items():
        folder = folder_of(package)
        assert folder.is_dir(), package
        for pattern in patterns:
            assert list(folder.glob(pattern)), (package, pattern)
