"""Guest environments promises as cf-agent 3.21 keeps them (VerifyEnvironmentsPromise).

The promiser names a libvirt domain (or, for a ``*_net`` type, a network).
Checks first: ``environment_host`` is required (``No environment_host defined
for environment promise``), and an ``env_spec`` excludes ``env_cpus``,
``env_memory`` and ``env_disk``.  On a host where the ``environment_host``
class is not defined, 3.21 logs that ``create`` and ``running`` become
``down``, then verifies the promised state all the same; cf-lite does as 3.21
does (shutting guests down on a class typo would be worse).

``environment_state`` (VerifyVirtDomain):

* ``create``: an active domain of that name is kept; a defined, inactive one
  is started; otherwise one is created from ``env_spec`` (libvirt domain XML)
  or 3.21's default test-domain XML, then ``env_cpus``/``env_memory`` applied;
* ``delete``: the domain is destroyed (and undefined when persistent);
  missing: kept;
* ``running``: running or blocked: kept; paused: resumed; shut off: started;
  crashed: rebooted; shutting down: interrupted; missing: created as above;
  ``env_cpus``/``env_memory`` are then brought to the promised values (only
  when they differ: 3.21 sets them every run);
* ``suspended``: running: suspended; paused or shut off: kept; missing: kept;
* ``down``: running: shut down; shut off: kept; paused: interrupted (``is
  suspended - ignoring promise``); missing: kept.

Network types: ``create`` starts the network from ``env_spec`` or 3.21's
default NAT network; ``delete`` destroys (and undefines) it.
``environment_interface`` (``env_addresses``, ``env_name``, ``env_network``)
is read as 3.21 reads it: only its sanity check on network types.  ``env_disk``
and ``env_baseline`` are verbose notes, as in 3.21.

Without libvirt's Python binding each promise is not kept with one error.  A
libvirt failure is one error naming the promise and libvirt's reason.  Under
``-n`` or ``action_policy => "warn"`` nothing changes: a warning says what
would.  Changes are recorded for ``--report json`` (kind ``domain`` or
``network``, old and new state).
"""
from __future__ import annotations

from typing import Any, Callable

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun, handler
from cfpromise.promises.guest_environments import hypervisor as hv

_STATE_NAMES = {hv.NOSTATE: "no state", hv.RUNNING: "running", hv.BLOCKED: "blocked",
                hv.PAUSED: "paused", hv.SHUTDOWN: "shutting down", hv.SHUTOFF: "shut off",
                hv.CRASHED: "crashed", hv.PMSUSPENDED: "suspended by power management"}


def _int(value: Any) -> int | None:
    from cfpromise.eval.functions.common import CF_NOINT, int_from_string
    if value is None:
        return None
    number = int_from_string(str(value))
    return None if number == CF_NOINT else number


@handler("guest_environments")
def verify_guest_environment(run: PromiseRun) -> Outcome:
    log = run.agent.log
    attrs = run.attributes
    resources = run.body("environment_resources")
    interface = run.body("environment_interface")
    cpus, memory, disk = (_int(resources.get(k)) for k in ("env_cpus", "env_memory",
                                                              "env_disk"))
    spec = resources.get("env_spec")
    if spec and (cpus is not None or memory is not None or disk is not None):
        log("error", "Conflicting promise of both a spec and cpu/memory/disk resources "
                     f"({run.where()})")
        return Outcome.FAILED
    host = attrs.get("environment_host")
    if not host:
        log("error", f"No environment_host defined for environment promise ({run.where()})")
        return Outcome.FAILED
    env_type = str(attrs.get("environment_type") or "test")
    network = env_type.endswith("_net")
    if network and (cpus is not None or memory is not None or disk is not None
                    or interface.get("env_name") or interface.get("env_addresses")):
        log("error", f"Network environment promises computational resources ({run.where()})")
    base = env_type[:-4] if network else env_type
    if base in hv.NOT_ON_LINUX or base not in hv.URIS:
        log("error", f"Environment type '{env_type}' not currently supported on this "
                     f"platform ({run.where()})")
        return Outcome.FAILED
    uri = hv.URIS[base]
    log("verbose", f"Selecting environment type '{env_type}' '{uri}'")
    state = attrs.get("environment_state")
    if state in ("create", "running") and not run.agent.eval_class_expr(str(host)):
        log("verbose", f"This host is not the promised host for the environment '{host}'; "
                       f"cf-agent 3.21 says it treats the state as 'down' but verifies "
                       f"'{state}', and so does cf-lite")
    if not state:
        log("info", "No state specified for this environment")
        return Outcome.KEPT
    if disk is not None:
        log("verbose", "Info: env_disk parameter is not currently supported on this platform")
    try:
        conn = hv.connect(uri)
        if network:
            return _NETWORK_STATES.get(state, _no_network_state)(run, conn, spec)
        return _DOMAIN_STATES[state](_Domain(run, conn, spec, cpus, memory))
    except hv.MissingBinding as exc:
        log("error", f"{exc}: {run.where()} is not kept")
        return Outcome.FAILED
    except hv.VirtError as exc:
        log("error", f"{exc} ({run.where()})")
        return Outcome.FAILED


class _Domain:
    """One domain promise: the lookups and actions its states share."""

    def __init__(self, run: PromiseRun, conn: Any, spec: str | None, cpus: int | None,
                 memory: int | None) -> None:
        self.run, self.conn, self.spec, self.cpus, self.memory = run, conn, spec, cpus, memory
        self.name = run.promiser
        self.log = run.agent.log

    def lookup(self) -> Any:
        return hv.lookup_domain(self.conn, self.name)

    def state(self, dom: Any) -> int:
        return int(hv.call(f"Unable to probe virtual domain '{self.name}'", dom.info)[0])

    def act(self, old: str, new: str, doing: str, done: str, fn: Callable[[], Any]) -> Outcome:
        """Change the domain (or under warn-only say what would change)."""
        if self.run.warn_only:
            self.log("warning", f"Virtual domain '{self.name}' is {old}: should be {new} "
                                f"({doing}), but only warning was promised")
            return Outcome.WARN
        hv.call(f"Virtual domain '{self.name}' failed to {doing}", fn)
        self.log("info", done)
        self.run.agent.note_change(self.run, kind="domain", name=self.name, old=old, new=new)
        return Outcome.REPAIRED

    def create(self) -> Outcome:
        """CreateVirtDom: from env_spec or the default test-domain XML."""
        xml = self.spec or hv.DEFAULT_DOMAIN_XML.format(name=self.name)
        if not self.spec:
            self.log("verbose", "No spec file is promised, so reverting to default settings")
        if self.run.warn_only:
            self.log("warning", f"Virtual domain '{self.name}' should be created, but only "
                                "warning was promised")
            return Outcome.WARN
        dom = hv.call(f"Failed to create a virtual domain '{self.name}' - check spec for "
                      "errors", self.conn.createXML, xml, 0)
        self.log("info", f"Created a virtual domain '{self.name}'")
        self.run.agent.note_change(self.run, kind="domain", name=self.name, old="absent",
                                   new="running")
        return merge([Outcome.REPAIRED, self.resources(dom, created=True)])

    def resources(self, dom: Any, created: bool = False) -> Outcome:
        """env_cpus and env_memory (kB), set where they differ; failures are info, as 3.21."""
        libvirt = hv.binding()
        results: list[Outcome] = []
        info = hv.call(f"Unable to probe virtual domain '{self.name}'", dom.info)
        if self.cpus is not None and self.cpus > 0 and int(info[3]) != self.cpus:
            if self.run.warn_only:
                self.log("warning", f"Virtual domain '{self.name}' has {info[3]} CPUs, not "
                                    f"{self.cpus}, but only warning was promised")
                results.append(Outcome.WARN)
            else:
                try:
                    dom.setVcpus(self.cpus)
                    self.log("info", f"Verified that environment CPU count is now {self.cpus}")
                    self.run.agent.note_change(self.run, kind="domain", name=self.name,
                                               attribute="env_cpus", old=int(info[3]),
                                               new=self.cpus)
                    results.append(Outcome.REPAIRED)
                except libvirt.libvirtError as exc:
                    self.log("info", f"Unable to adjust CPU count to {self.cpus} "
                                     f"({exc.get_error_message()})")
        if self.memory is not None and self.memory > 0 and int(info[2]) != self.memory:
            if self.run.warn_only:
                self.log("warning", f"Virtual domain '{self.name}' has {info[2]} kB of memory, "
                                    f"not {self.memory}, but only warning was promised")
                results.append(Outcome.WARN)
            else:
                try:
                    if int(info[1]) < self.memory:
                        dom.setMaxMemory(self.memory)
                    dom.setMemory(self.memory)
                    self.log("info", f"Setting the memory limit to {self.memory}")
                    self.run.agent.note_change(self.run, kind="domain", name=self.name,
                                               attribute="env_memory", old=int(info[2]),
                                               new=self.memory)
                    results.append(Outcome.REPAIRED)
                except libvirt.libvirtError as exc:
                    self.log("info", f"Unable to set the memory to {self.memory} "
                                     f"({exc.get_error_message()})")
        return merge(results)


def _kept(d: _Domain, text: str) -> Outcome:
    d.log("verbose", text)
    return Outcome.KEPT


def _create(d: _Domain) -> Outcome:
    dom = d.lookup()
    if dom is None:
        return d.create()
    if hv.call(f"Unable to probe virtual domain '{d.name}'", dom.isActive):
        return _kept(d, f"Found a running environment called '{d.name}' - promise kept")
    return d.act("defined, not running", "running", "start",
                 f"Virtual domain '{d.name}' was inactive, booting...", dom.create)


def _delete(d: _Domain) -> Outcome:
    dom = d.lookup()
    if dom is None:
        return _kept(d, f"No such virtual domain called '{d.name}' - promise kept")

    def remove() -> None:
        persistent = dom.isPersistent()          # a transient domain vanishes when destroyed
        if dom.isActive():
            dom.destroy()
        if persistent:
            dom.undefine()
    return d.act(_STATE_NAMES.get(d.state(dom), "present"), "absent", "delete",
                 f"Deleted virtual domain '{d.name}'", remove)


def _running(d: _Domain) -> Outcome:
    dom = d.lookup()
    if dom is None:
        d.log("verbose", f"Virtual domain '{d.name}' cannot be located, attempting to recreate")
        return d.create()
    state = d.state(dom)
    if state in (hv.RUNNING, hv.BLOCKED):
        outcome = _kept(d, f"Virtual domain '{d.name}' running - promise kept")
    elif state == hv.SHUTDOWN:
        d.log("info", f"Virtual domain '{d.name}' is shutting down")
        return Outcome.INTERRUPTED
    elif state == hv.PAUSED:
        outcome = d.act("paused", "running", "resume after suspension",
                        f"Virtual domain '{d.name}' was suspended, resuming", dom.resume)
    elif state == hv.SHUTOFF:
        outcome = d.act("shut off", "running", "resume after halting",
                        f"Virtual domain '{d.name}' was inactive, booting...", dom.create)
    elif state == hv.CRASHED:
        outcome = d.act("crashed", "running", "reboot",
                        f"Virtual domain '{d.name}' has crashed, rebooting...",
                        lambda: dom.reboot(0))
    else:
        return _kept(d, f"Virtual domain '{d.name}' is reported as having no state, whatever "
                        "that means")
    return merge([outcome, d.resources(dom)])


def _suspended(d: _Domain) -> Outcome:
    dom = d.lookup()
    if dom is None:
        return _kept(d, f"Virtual domain '{d.name}' cannot be found - take promise as kept")
    state = d.state(dom)
    if state in (hv.RUNNING, hv.BLOCKED, hv.CRASHED):
        return d.act(_STATE_NAMES[state], "paused", "suspend",
                     f"Virtual domain '{d.name}' running, suspending", dom.suspend)
    if state == hv.SHUTDOWN:
        d.log("info", f"Virtual domain '{d.name}' is shutting down")
        return Outcome.INTERRUPTED
    return _kept(d, f"Virtual domain '{d.name}' is {_STATE_NAMES.get(state, 'down')} - "
                    "promise kept")


def _down(d: _Domain) -> Outcome:
    dom = d.lookup()
    if dom is None:
        return _kept(d, f"Virtual domain '{d.name}' cannot be found - take promise as kept")
    state = d.state(dom)
    if state in (hv.RUNNING, hv.BLOCKED, hv.CRASHED):
        return d.act(_STATE_NAMES[state], "shut off", "shutdown",
                     f"Virtual domain '{d.name}' running, terminating", dom.shutdown)
    if state == hv.PAUSED:
        d.log("info", f"Virtual domain '{d.name}' is suspended - ignoring promise")
        return Outcome.INTERRUPTED
    return _kept(d, f"Virtual domain '{d.name}' is down - promise kept")


_DOMAIN_STATES: dict[str, Callable[[_Domain], Outcome]] = {
    "create": _create, "delete": _delete, "running": _running, "suspended": _suspended,
    "down": _down,
}


# --- networks ----------------------------------------------------------------------------

def _network_create(run: PromiseRun, conn: Any, spec: str | None) -> Outcome:
    name, log = run.promiser, run.agent.log
    net = hv.lookup_network(conn, name)
    if net is not None and hv.call(f"Unable to probe network '{name}'", net.isActive):
        log("verbose", f"Network '{name}' exists - promise kept")
        return Outcome.KEPT
    if run.warn_only:
        log("warning", f"Network '{name}' should be created, but only warning was promised")
        return Outcome.WARN
    if net is not None:
        hv.call(f"Unable to create network '{name}'", net.create)
    else:
        xml = spec or hv.DEFAULT_NETWORK_XML.format(name=name)
        hv.call(f"Unable to create network '{name}'", conn.networkCreateXML, xml)
    log("info", f"Created network '{name}' - promise repaired")
    run.agent.note_change(run, kind="network", name=name, old="absent", new="active")
    return Outcome.REPAIRED


def _network_delete(run: PromiseRun, conn: Any, spec: str | None) -> Outcome:
    name, log = run.promiser, run.agent.log
    net = hv.lookup_network(conn, name)
    if net is None:
        log("verbose", f"Couldn't find a network called '{name}' - promise assumed kept")
        return Outcome.KEPT
    if run.warn_only:
        log("warning", f"Network '{name}' should be deleted, but only warning was promised")
        return Outcome.WARN

    def remove() -> None:
        persistent = net.isPersistent()
        if net.isActive():
            net.destroy()
        if persistent:
            net.undefine()
    hv.call(f"Network deletion of '{name}' failed", remove)
    log("info", f"Deleted network '{name}' - promise repaired")
    run.agent.note_change(run, kind="network", name=name, old="active", new="absent")
    return Outcome.REPAIRED


def _no_network_state(run: PromiseRun, conn: Any, spec: str | None) -> Outcome:
    run.agent.log("info", "No recognized state specified for this network environment")
    return Outcome.KEPT


_NETWORK_STATES: dict[str, Callable[[PromiseRun, Any, str | None], Outcome]] = {
    "create": _network_create, "delete": _network_delete,
}
