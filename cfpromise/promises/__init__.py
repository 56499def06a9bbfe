"""cf-lite: promises package."""
