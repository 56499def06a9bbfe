"""cf-lite: eval functions package."""
