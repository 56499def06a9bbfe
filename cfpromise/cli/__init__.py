"""cf-lite: cli package (the programs' command lines; the work is elsewhere).

Nothing is imported here: cf-lite-agent and cf-lite-promises start without argparse
(:mod:`.options`); the help layout is in :mod:`.helpformat`.
"""
