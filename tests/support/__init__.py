"""Helpers shared by the test suites (real databases, no mocks)."""
