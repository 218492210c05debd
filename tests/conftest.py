"""Test-suite settings shared by every test directory."""

import os

from hypothesis import settings

# CI runs must be reproducible: the same examples every run (a failure found locally with
# random examples is still reported with its seed). Locally, examples stay random.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
