"""Tests of cfpromise.eval."""
