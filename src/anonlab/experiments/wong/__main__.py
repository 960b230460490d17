"""``python -m anonlab.experiments.wong``: see :func:`anonlab.experiments.wong.cli.main`."""

from anonlab.experiments.wong.cli import main

raise SystemExit(main())
