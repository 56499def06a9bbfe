"""The libvirt side of guest_environments promises (the binding is imported lazily).

``environment_type`` names the hypervisor as cf-agent 3.21 maps it: ``kvm`` is
``qemu:///session``, ``xen`` ``xen:///``, ``esx`` ``esx://127.0.0.1``, ``vbox``
``vbox:///session``, ``test`` libvirt's in-process test driver
``test:///default``; a ``*_net`` type manages that hypervisor's networks.
Connections stay open for the life of the agent process, one per URI, as
cf-agent keeps them (CFVC): the test driver's state lives only as long as a
connection to it does.  libvirt's own error printing is switched off; its
errors come back as :class:`VirtError` with libvirt's message.
"""
from __future__ import annotations

from typing import Any

URIS = {"xen": "xen:///", "kvm": "qemu:///session", "esx": "esx://127.0.0.1",
        "vbox": "vbox:///session", "test": "test:///default"}
NOT_ON_LINUX = ("zone", "ec2", "eucalyptus")

# The VIR_DOMAIN_* states
NOSTATE, RUNNING, BLOCKED, PAUSED, SHUTDOWN, SHUTOFF, CRASHED, PMSUSPENDED = range(8)

DEFAULT_DOMAIN_XML = ("<domain type='test'>  <name>{name}</name>  <memory>8388608</memory>"
                      "  <currentMemory>2097152</currentMemory>  <vcpu>2</vcpu>  <os>"
                      "    <type>hvm</type>  </os></domain>")
DEFAULT_NETWORK_XML = ('<network><name>{name}</name><bridge name="virbr0" />'
                       '<forward mode="nat"/><ip address="192.168.122.1" '
                       'netmask="255.255.255.0"><dhcp><range start="192.168.122.2" '
                       'end="192.168.122.254" /></dhcp></ip></network>')

_CONNECTIONS: dict[str, Any] = {}     # per process, as cf-agent's CFVC


class VirtError(Exception):
    pass


class MissingBinding(VirtError):
    pass


def binding() -> Any:
    try:
        import libvirt
    except ImportError as exc:
        raise MissingBinding("libvirt's Python binding is not installed (pip install "
                             "'cf-lite[virt]', which builds against libvirt-dev)") from exc
    libvirt.registerErrorHandler(lambda _ctx, _err: None, None)
    return libvirt


def connect(uri: str) -> Any:
    conn = _CONNECTIONS.get(uri)
    if conn is not None:
        return conn
    libvirt = binding()
    try:
        conn = libvirt.open(uri)
    except libvirt.libvirtError as exc:
        raise VirtError(f"Failed to connect to virtualization monitor '{uri}': "
                        f"{_message(exc)}") from None
    if conn is None:
        raise VirtError(f"Failed to connect to virtualization monitor '{uri}'")
    if not _CONNECTIONS:
        import atexit
        atexit.register(close_all)
    _CONNECTIONS[uri] = conn
    return conn


def close_all() -> None:
    """Close the connections while the binding can still do it (at exit)."""
    while _CONNECTIONS:
        _, conn = _CONNECTIONS.popitem()
        try:
            conn.close()
        except Exception:           # best effort, at exit
            pass


def _message(exc: Exception) -> str:
    """libvirt's message on one line (XML errors come with the spec quoted on more)."""
    text = getattr(exc, "get_error_message", lambda: None)() or str(exc)
    return " ".join(text.split("\n", 1)[0].split())


def call(what: str, fn: Any, *args: Any) -> Any:
    """Run a libvirt call; a libvirtError becomes VirtError('what: message')."""
    libvirt = binding()
    try:
        return fn(*args)
    except libvirt.libvirtError as exc:
        raise VirtError(f"{what}: {_message(exc)}") from None


def lookup_domain(conn: Any, name: str) -> Any:
    """The domain called ``name``, or None."""
    libvirt = binding()
    try:
        return conn.lookupByName(name)
    except libvirt.libvirtError:
        return None


def lookup_network(conn: Any, name: str) -> Any:
    libvirt = binding()
    try:
        return conn.networkLookupByName(name)
    except libvirt.libvirtError:
        return None
