"""Tests of the speed machinery (cfpromise.fast) and its plain-path switch."""
