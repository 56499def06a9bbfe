"""cf-lite: agent package."""
