"""Root pytest configuration: deterministic Hypothesis runs in CI."""

import os

from hypothesis import settings

# CI (CI=true): the same examples on every run, and no flaky deadlines on a shared 2-core box.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
