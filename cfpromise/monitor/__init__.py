"""cf-lite: monitor package."""
