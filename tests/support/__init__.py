"""Helpers shared by the tests; no test file imports another."""
