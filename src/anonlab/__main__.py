"""``python -m anonlab``: the command line (:func:`anonlab.cli.main`), as ``anonlab`` runs it."""

from anonlab.cli import main

if __name__ == "__main__":
    main()
