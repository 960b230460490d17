"""``python -m anonlab.experiments.li``: see :func:`anonlab.experiments.li.cli.main`."""

from anonlab.experiments.li.cli import main

raise SystemExit(main())
