"""Tests of the lexer, parser and checks."""
