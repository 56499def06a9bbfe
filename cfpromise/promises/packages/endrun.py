"""End of a run: refresh the ``package_inventory`` modules' caches (cheap to import:
the package-module machinery is loaded only when common control names such modules)."""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def end_of_run(services: Any) -> None:
    if services.common_control("package_inventory"):
        from cfpromise.promises.packages.inventory import end_of_run as refresh
        refresh(services)
