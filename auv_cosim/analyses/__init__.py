"""Analyses, summaries and plots of vehicles and missions, registered with the master through
entry points (pyproject.toml); see docs/architecture.md. ``metrics`` holds the figures shared
by the summaries and the tests."""
