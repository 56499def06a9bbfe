"""What cf-monitord 3.21 observes, as data: the observable slots, the services whose
connections it counts, the packet kinds of its sniffer, the slots its extra probes register.

cf-monitord has 100 slots.  The first 72 are fixed (names, descriptions and units as in
CFEngine's OBSERVABLES/UNITS tables); the rest are "spare" until a probe or a weekly
``measurements`` promise registers a name in one (the memory and I/O probes do at start).
The env_data file lists every slot, spare ones as ``value_spare=0.00``.
"""
from __future__ import annotations

SLOT_COUNT = 100

# (name, description, units), in slot order
FIXED: tuple[tuple[str, str, str], ...] = (
    ("users", "Users with active processes - including system users", "average users per 2.5 mins"),
    ("rootprocs", "Sum privileged system processes", "processes"),
    ("otherprocs", "Sum non-privileged process", "processes"),
    ("diskfree", "Free disk on / partition", "percent"),
    ("loadavg", "Kernel load average utilization (sum over cores)", "jobs"),
    ("netbiosns_in", "netbios name lookups (in)", "connections"),
    ("netbiosns_out", "netbios name lookups (out)", "connections"),
    ("netbiosdgm_in", "netbios name datagrams (in)", "connections"),
    ("netbiosdgm_out", "netbios name datagrams (out)", "connections"),
    ("netbiosssn_in", "Samba/netbios name sessions (in)", "connections"),
    ("netbiosssn_out", "Samba/netbios name sessions (out)", "connections"),
    ("imap_in", "imap mail client sessions (in)", "connections"),
    ("imap_out", "imap mail client sessions (out)", "connections"),
    ("cfengine_in", "cfengine connections (in)", "connections"),
    ("cfengine_out", "cfengine connections (out)", "connections"),
    ("nfsd_in", "nfs connections (in)", "connections"),
    ("nfsd_out", "nfs connections (out)", "connections"),
    ("smtp_in", "smtp connections (in)", "connections"),
    ("smtp_out", "smtp connections (out)", "connections"),
    ("www_in", "www connections (in)", "connections"),
    ("www_out", "www connections (out)", "connections"),
    ("ftp_in", "ftp connections (in)", "connections"),
    ("ftp_out", "ftp connections (out)", "connections"),
    ("ssh_in", "ssh connections (in)", "connections"),
    ("ssh_out", "ssh connections (out)", "connections"),
    ("wwws_in", "wwws connections (in)", "connections"),
    ("wwws_out", "wwws connections (out)", "connections"),
    ("icmp_in", "ICMP packets (in)", "packets"),
    ("icmp_out", "ICMP packets (out)", "packets"),
    ("udp_in", "UDP dgrams (in)", "packets"),
    ("udp_out", "UDP dgrams (out)", "packets"),
    ("dns_in", "DNS requests (in)", "packets"),
    ("dns_out", "DNS requests (out)", "packets"),
    ("tcpsyn_in", "TCP sessions (in)", "packets"),
    ("tcpsyn_out", "TCP sessions (out)", "packets"),
    ("tcpack_in", "TCP acks (in)", "packets"),
    ("tcpack_out", "TCP acks (out)", "packets"),
    ("tcpfin_in", "TCP finish (in)", "packets"),
    ("tcpfin_out", "TCP finish (out)", "packets"),
    ("tcpmisc_in", "TCP misc (in)", "packets"),
    ("tcpmisc_out", "TCP misc (out)", "packets"),
    ("webaccess", "Webserver hits", "entries"),
    ("weberrors", "Webserver errors", "entries"),
    ("syslog", "New log entries (Syslog)", "entries"),
    ("messages", "New log entries (messages)", "entries"),
    ("temp0", "CPU Temperature 0", "Celcius"),
    ("temp1", "CPU Temperature 1", "Celcius"),
    ("temp2", "CPU Temperature 2", "Celcius"),
    ("temp3", "CPU Temperature 3", "Celcius"),
    ("cpu", "%CPU utilization (all)", "percent"),
    ("cpu0", "%CPU utilization 0", "percent"),
    ("cpu1", "%CPU utilization 1", "percent"),
    ("cpu2", "%CPU utilization 2", "percent"),
    ("cpu3", "%CPU utilization 3", "percent"),
    ("microsoft_ds_in", "Samba/MS_ds name sessions (in)", "packets"),
    ("microsoft_ds_out", "Samba/MS_ds name sessions (out)", "packets"),
    ("www_alt_in", "Alternative web service connections (in)", "connections"),
    ("www_alt_out", "Alternative web client connections (out)", "connections"),
    ("imaps_in", "encrypted imap mail service sessions (in)", "connections"),
    ("imaps_out", "encrypted imap mail client sessions (out)", "connections"),
    ("ldap_in", "LDAP directory service service sessions (in)", "connections"),
    ("ldap_out", "LDAP directory service client sessions (out)", "connections"),
    ("ldaps_in", "LDAP directory service service sessions (in)", "connections"),
    ("ldaps_out", "LDAP directory service client sessions (out)", "connections"),
    ("mongo_in", "Mongo database service sessions (in)", ""),
    ("mongo_out", "Mongo database client sessions (out)", ""),
    ("mysql_in", "MySQL database service sessions (in)", ""),
    ("mysql_out", "MySQL database client sessions (out)", ""),
    ("postgres_in", "PostgreSQL database service sessions (in)", ""),
    ("postgres_out", "PostgreSQL database client sessions (out)", ""),
    ("ipp_in", "Internet Printer Protocol (in)", ""),
    ("ipp_out", "Internet Printer Protocol (out)", ""),
)
FIXED_NAMES: tuple[str, ...] = tuple(name for name, _, _ in FIXED)

# Slots the probes register at start (name, description, units), in cf-monitord's order.
PROBE_SLOTS: tuple[tuple[str, str, str], ...] = (
    ("io_reads", "Number of I/O reads", "reads per second"),
    ("io_writes", "Number of I/O writes", "writes per second"),
    ("io_readdata", "Aggregate mount of data read across all devices", "megabytes/s"),
    ("io_writtendata", "Aggregate amount of data written across all devices", "megabytes/s"),
    ("mem_total", "Total system memory", "megabytes"),
    ("mem_free", "Free system memory", "megabytes"),
    ("mem_cached", "Size of disk cache", "megabytes"),
    ("mem_swap", "Total swap size", "megabytes"),
    ("mem_freeswap", "Free swap size", "megabytes"),
)

# (port, file name of the per-service snapshot, in-observable, out-observable); cf-monitord's
# table, 443 counted on 433 as it does.
SERVICES: tuple[tuple[int, str, str, str], ...] = (
    (137, "netbiosns", "netbiosns_in", "netbiosns_out"),
    (138, "netbiosdgm", "netbiosdgm_in", "netbiosdgm_out"),
    (139, "netbiosssn", "netbiosssn_in", "netbiosssn_out"),
    (445, "microsoft_ds", "microsoft_ds_in", "microsoft_ds_out"),
    (5308, "cfengine", "cfengine_in", "cfengine_out"),
    (2049, "nfsd", "nfsd_in", "nfsd_out"),
    (25, "smtp", "smtp_in", "smtp_out"),
    (80, "www", "www_in", "www_out"),
    (8080, "www-alt", "www_alt_in", "www_alt_out"),
    (21, "ftp", "ftp_in", "ftp_out"),
    (22, "ssh", "ssh_in", "ssh_out"),
    (433, "wwws", "wwws_in", "wwws_out"),
    (143, "imap", "imap_in", "imap_out"),
    (993, "imaps", "imaps_in", "imaps_out"),
    (389, "ldap", "ldap_in", "ldap_out"),
    (636, "ldaps", "ldaps_in", "ldaps_out"),
    (27017, "mongo", "mongo_in", "mongo_out"),
    (3306, "mysql", "mysql_in", "mysql_out"),
    (5432, "postgresql", "postgres_in", "postgres_out"),
    (631, "ipp", "ipp_in", "ipp_out"),
)

# The packet kinds of cf-monitord's tcpdump sniffer: entropy classes are published for them
# even without tcpdump (an empty distribution has low entropy).
SNIFFER_KINDS: tuple[str, ...] = ("icmp", "udp", "dns", "tcpsyn", "tcpack", "tcpfin", "misc")

# CFEngine's DataType numbers, used in the static store keys ("handle:type")
DATA_TYPE_NUMBER = {"string": 0, "int": 1, "real": 2, "slist": 3, "counter": 14}
