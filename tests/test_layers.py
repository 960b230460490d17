"""The layering rules of docs/contributing.md that a parse of ``src/`` can check.

* **No private name is imported across modules** (issue 18, item 3): no ``from anonlab.x import
  _name`` (nor a relative one) anywhere in ``src/``, and no ``module._name`` read through an
  imported anonlab module. A helper another module needs is public, with a docstring. Modules
  of one package count as separate modules too (e.g. the parts of ``attacks/foreground/``).
  Dunder names (``__version__``, ``__all__``) are not private.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
MODULES = sorted((SRC / "anonlab").rglob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """The module an ``ImportFrom`` reads, with a relative import resolved."""
    if not node.level:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def private_imports(path: Path, source: str | None = None) -> list[str]:
    """``file:line: module -> _name`` for every private name ``path`` takes from another
    anonlab module (imported by name, or read as an attribute of an imported module);
    ``source``: the text to parse as if it were ``path``'s (default: the file's)."""
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    found = []
    modules: dict[str, str] = {}  # local name -> anonlab module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = _absolute(path, node)
            if not module.startswith("anonlab"):
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{path.relative_to(SRC)}:{node.lineno}: {module} -> {alias.name}")
                elif _is_module(f"{module}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("anonlab") and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            module = modules[node.value.id]
            found.append(f"{path.relative_to(SRC)}:{node.lineno}: {module} -> {node.attr}")
    return found


def test_the_walk_sees_the_package():
    names = {_module_name(p) for p in MODULES}
    assert {"anonlab.attacks.foreground.kernel", "anonlab.distributed.measures.foreground"} <= names


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from anonlab.mining.itemsets import _node, node_labels\n", ["_node"]),
        ("from .kernel import _link\n", ["_link"]),
        ("from anonlab.attacks.foreground import kernel\nkernel._FAST_COST\n", ["_FAST_COST"]),
        ("import anonlab.utility.workload as wl\nwl._subsets\n", ["_subsets"]),
        ("from anonlab.version import __version__\nfrom numpy import _pytesttester\n", []),
    ],
)
def test_the_check_finds_what_it_should(source, expected):
    # parsed as if it lived in the foreground package (relative imports resolve against it)
    found = private_imports(SRC / "anonlab" / "attacks" / "foreground" / "probe.py", source)
    assert [f.rsplit(" -> ", 1)[1] for f in found] == expected


def test_no_private_name_is_imported_across_modules():
    found = [line for path in MODULES for line in private_imports(path)]
    assert not found, "private names used across modules (make them public):\n" + "\n".join(found)
