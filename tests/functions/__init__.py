"""Tests of the built-in functions (cfpromise.eval.functions)."""
