"""Suite-wide settings.

Under CI (``CI`` set: `.ci/run` exports ``CI=1`` unless hosted CI already set it) hypothesis
is derandomized: the same examples every run, so a landing is never decided by a lucky or
unlucky draw. Locally (no ``CI``) it explores with fresh random examples each run — that is
where new counterexamples come from; pin each one with an explicit test when it is found.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
