"""cf-lite: eval package."""
