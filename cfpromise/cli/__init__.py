"""cf-lite: cli package."""
