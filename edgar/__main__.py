"""`python -m edgar` runs the same entry point as the `edgar` script."""

from edgar.cli.main import main

raise SystemExit(main())
