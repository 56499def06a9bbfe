"""cf-lite: syntax package."""
