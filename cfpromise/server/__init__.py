"""cf-lite: server package."""
