"""anonlab's version, in a module of its own so that any module can read it without importing
the package's top level (which imports the data model: a module below it importing
``anonlab.__version__`` ran back up the layers, issue 18, item 3). pyproject.toml reads it too."""

__version__ = "0.1.0"
