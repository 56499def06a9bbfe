"""The ``guest_environments`` promise type: virtual machines and networks through libvirt.
See :mod:`.handler`."""
