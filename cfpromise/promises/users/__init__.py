"""users promises (see handler): local accounts through the shadow utilities."""
