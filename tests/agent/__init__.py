"""Tests of the agent engine."""
