"""The speed machinery, in one place: what makes a one-shot start cheap, each piece with its guard and its fallback (see README, "The speed machinery")."""
