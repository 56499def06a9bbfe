"""The CFEngine acceptance-suite runner (runner.py), its ratchet and their tests."""
