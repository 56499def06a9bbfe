"""Build hook: the standard library (bundles/) and the default policy (policy/) go into
the package as cfpromise/share/, so an installed cf-lite has them (cfpromise.resources)."""
from __future__ import annotations

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

SHARED = ("bundles", "policy")


class BuildWithPolicy(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:          # a checkout finds them at the top level
            return
        here = os.path.dirname(os.path.abspath(__file__))
        for name in SHARED:
            target = os.path.join(self.build_lib, "cfpromise", "share", name)
            os.makedirs(target, exist_ok=True)
            for entry in sorted(os.listdir(os.path.join(here, name))):
                if entry.endswith(".cf"):
                    shutil.copy2(os.path.join(here, name, entry), target)


setup(cmdclass={"build_py": BuildWithPolicy})
