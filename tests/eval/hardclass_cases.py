"""Cases recorded from the reference cf-agent 3.21, for test_hardclasses.py.

``DISTRIBUTIONS``: fake release files -> (the classes cf-agent adds, with a tag
code, and the variables it sets), from cf-agent run in a private mount
namespace with the files bound over /etc (see test_differential_distributions,
which re-checks them live).  Tag codes: ``inv`` = inventory,attribute_name=none,
source=agent; ``virt`` = the Virtual host inventory tags; ``flavor`` = derived
from sys.flavor; ``agent`` = source=agent; a path = derived-from-file=<path>.

``TIME_CASES``: the time classes of cf-agent run under faketime with TZ set.
"""
from __future__ import annotations

DISTRIBUTIONS: dict[str, tuple[dict[str, str], dict[str, str], dict[str, str | None]]] = {
    'centos7': (
        {
            '/etc/os-release': 'NAME="CentOS Linux"\nVERSION="7 (Core)"\nID="centos"\nID_LIKE="rhel fedora"\nVERSION_ID="7"\n',
            '/etc/redhat-release': 'CentOS Linux release 7.9.2009 (Core)\n',
            '/etc/system-release': 'CentOS Linux release 7.9.2009 (Core)\n',
        },
        {
            'centos': '/etc/os-release', 'centos_7': 'flavor', 'centos_7_9': '/etc/redhat-release',
            'redhat': '/etc/redhat-release',
        },
        {
            'flavor': 'centos_7', 'os_name_human': 'CentOS', 'os_version_major': '7',
            'doc_root': '/var/www/html',
        },
    ),
    'rhel8': (
        {
            '/etc/os-release': 'NAME="Red Hat Enterprise Linux"\nID="rhel"\nVERSION_ID="8.6"\n',
            '/etc/redhat-release': 'Red Hat Enterprise Linux release 8.6 (Ootpa)\n',
        },
        {
            'redhat': '/etc/os-release', 'redhat_8': '/etc/os-release',
            'redhat_8_6': '/etc/os-release', 'rhel': '/etc/os-release', 'rhel_8': 'flavor',
            'rhel_8_6': '/etc/os-release',
        },
        {
            'flavor': 'redhat_8', 'os_name_human': 'RHEL', 'os_version_major': '8',
            'doc_root': '/var/www/html',
        },
    ),
    'rhel6server': (
        {
            '/etc/redhat-release': 'Red Hat Enterprise Linux Server release 6.10 (Santiago)\n',
        },
        {
            'redhat': '/etc/redhat-release', 'redhat_6': 'flavor',
            'redhat_6_10': '/etc/redhat-release', 'redhat_s': '/etc/redhat-release',
            'redhat_s_6': '/etc/redhat-release', 'redhat_s_6_10': '/etc/redhat-release',
        },
        {
            'flavor': 'redhat_6', 'os_name_human': 'RHEL', 'os_version_major': '6',
            'doc_root': '/var/www/html',
        },
    ),
    'ubuntu2204': (
        {
            '/etc/os-release': 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\n',
            '/etc/debian_version': 'bookworm/sid\n',
            '/etc/issue': 'Ubuntu 22.04.3 LTS \\n \\l\n\n',
            '/etc/lsb-release': 'DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=22.04\n',
        },
        {
            'debian': '/etc/debian_version', 'debian_bookworm': '/etc/debian_version',
            'ubuntu': '/etc/os-release', 'ubuntu_22': 'flavor', 'ubuntu_22_04': '/etc/os-release',
        },
        {
            'flavor': 'ubuntu_22', 'os_name_human': 'Ubuntu', 'os_version_major': '22',
            'doc_root': '/var/www',
        },
    ),
    'debian_testing': (
        {
            '/etc/os-release': 'PRETTY_NAME="Debian GNU/Linux trixie/sid"\nID=debian\n',
            '/etc/debian_version': 'trixie/sid\n',
            '/etc/issue': 'Debian GNU/Linux trixie/sid \\n \\l\n\n',
        },
        {
            'debian': '/etc/os-release', 'debian_trixie': '/etc/debian_version',
        },
        {
            'flavor': 'debian_trixie', 'os_name_human': 'Debian', 'os_version_major': 'Unknown',
            'doc_root': '/var/www',
        },
    ),
    'debian11': (
        {
            '/etc/os-release': 'ID=debian\nVERSION_ID="11"\n',
            '/etc/debian_version': '11.7\n',
            '/etc/issue': 'Debian GNU/Linux 11 \\n \\l\n\n',
        },
        {
            'debian': '/etc/os-release', 'debian_11': 'flavor',
            'debian_11_7': '/etc/debian_version',
        },
        {
            'flavor': 'debian_11', 'os_name_human': 'Debian', 'os_version_major': '11',
            'doc_root': '/var/www',
        },
    ),
    'fedora38': (
        {
            '/etc/os-release': 'NAME="Fedora Linux"\nID=fedora\nVERSION_ID=38\n',
            '/etc/fedora-release': 'Fedora release 38 (Thirty Eight)\n',
            '/etc/redhat-release': 'Fedora release 38 (Thirty Eight)\n',
        },
        {
            'fedora': '/etc/os-release', 'fedora_38': 'flavor', 'redhat': 'inv',
        },
        {
            'flavor': 'fedora_38', 'os_name_human': 'Fedora', 'os_version_major': '38',
            'doc_root': '/var/www/html',
        },
    ),
    'leap154': (
        {
            '/etc/os-release': 'NAME="openSUSE Leap"\nID="opensuse-leap"\nID_LIKE="suse opensuse"\nVERSION_ID="15.4"\n',
        },
        {
            'opensuse': '/etc/os-release', 'opensuse_leap': '/etc/os-release',
            'opensuse_leap_15': 'flavor', 'opensuse_leap_15_4': '/etc/os-release',
        },
        {
            'flavor': 'opensuse_leap_15', 'os_name_human': 'OpenSUSE', 'os_version_major': '15',
            'doc_root': None,
        },
    ),
    'sles12': (
        {
            '/etc/os-release': 'NAME="SLES"\nID="sles"\nVERSION_ID="12.5"\n',
        },
        {
            'sles': '/etc/os-release', 'sles_12': 'flavor', 'sles_12_5': '/etc/os-release',
            'suse': '/etc/os-release', 'suse_12': '/etc/os-release',
            'suse_12_5': '/etc/os-release',
        },
        {
            'flavor': 'sles_12', 'os_name_human': 'SUSE', 'os_version_major': '12',
            'doc_root': None,
        },
    ),
    'sles11': (
        {
            '/etc/SuSE-release': 'SUSE Linux Enterprise Server 11 (x86_64)\nVERSION = 11\nPATCHLEVEL = 2\n',
        },
        {
            'SLES': 'inv', 'SLES11': 'inv', 'SLES_11': 'inv', 'SLES_11_2': 'inv', 'SUSE': 'inv',
            'SUSE_11': 'flavor', 'SuSE': 'inv', 'SuSE_11': 'agent', 'suse': 'inv',
        },
        {
            'flavor': 'SUSE_11', 'os_name_human': 'SUSE', 'os_version_major': '11',
            'doc_root': '/srv/www/htdocs',
        },
    ),
    'opensuse131': (
        {
            '/etc/SuSE-release': 'openSUSE 13.1 (x86_64)\nVERSION = 13.1\nCODENAME = Bottle\n',
        },
        {
            'SUSE': 'inv', 'SUSE_13': 'flavor', 'SUSE_13_1': 'inv', 'SuSE': 'inv',
            'SuSE_13': 'inv', 'SuSE_13_1': 'inv', 'suse': 'inv',
        },
        {
            'flavor': 'SUSE_13', 'os_name_human': 'SUSE', 'os_version_major': '13',
            'doc_root': '/srv/www/htdocs',
        },
    ),
    'amazon2': (
        {
            '/etc/os-release': 'NAME="Amazon Linux"\nID="amzn"\nVERSION_ID="2"\n',
            '/etc/system-release': 'Amazon Linux release 2 (Karoo)\n',
        },
        {
            'AmazonLinux': 'flavor', 'amazon_linux': '/etc/system-release',
            'amazon_linux__Karoo_': '/etc/system-release', 'amzn': '/etc/os-release',
            'amzn_2': 'flavor',
        },
        {
            'flavor': 'AmazonLinux', 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'alpine': (
        {
            '/etc/os-release': 'ID=alpine\nVERSION_ID=3.18.4\n',
            '/etc/alpine-release': '3.18.4\n',
        },
        {
            'alpine': '/etc/os-release', 'alpine_3': 'flavor', 'alpine_3_18': '/etc/os-release',
            'alpine_3_18_4': '/etc/os-release', 'alpine_linux': '/etc/alpine-release',
            'alpine_linux_3_18_4': '/etc/alpine-release', 'alpinelinux': 'flavor',
        },
        {
            'flavor': 'alpinelinux', 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'oracle8': (
        {
            '/etc/os-release': 'ID="ol"\nVERSION_ID="8.7"\n',
            '/etc/oracle-release': 'Oracle Linux Server release 8.7\n',
            '/etc/redhat-release': 'Red Hat Enterprise Linux release 8.7 (Ootpa)\n',
        },
        {
            'ol': '/etc/os-release', 'ol_8': 'flavor', 'ol_8_7': '/etc/os-release',
            'oracle': 'inv', 'oracle_8': 'flavor', 'oracle_8_7': 'inv',
            'redhat': '/etc/redhat-release', 'redhat_8': '/etc/redhat-release',
            'redhat_8_7': '/etc/redhat-release',
        },
        {
            'flavor': 'oracle_8', 'os_name_human': 'RHEL', 'os_version_major': '8',
            'doc_root': '/var/www/html',
        },
    ),
    'slackware': (
        {
            '/etc/slackware-version': 'Slackware 15.0\n',
        },
        {
            'slackware': 'inv', 'slackware_15': 'inv', 'slackware_15_0': 'inv',
        },
        {
            'flavor': None, 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'arch': (
        {
            '/etc/os-release': 'NAME="Arch Linux"\nID=arch\n',
            '/etc/arch-release': '',
        },
        {
            'arch': '/etc/os-release', 'archlinux': 'flavor',
        },
        {
            'flavor': 'archlinux', 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'gentoo': (
        {
            '/etc/os-release': 'ID=gentoo\nVERSION_ID=2.14\n',
            '/etc/gentoo-release': 'Gentoo Base System release 2.14\n',
        },
        {
            'gentoo': '/etc/os-release', 'gentoo_2': 'flavor', 'gentoo_2_14': '/etc/os-release',
        },
        {
            'flavor': 'gentoo', 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'cumulus': (
        {
            '/etc/lsb-release': 'DISTRIB_ID="Cumulus Linux"\nDISTRIB_RELEASE=4.4.0\n',
        },
        {
            'cumulus': 'inv', 'cumulus_4_4_0': 'flavor',
        },
        {
            'flavor': 'cumulus_4_4_0', 'os_name_human': 'Unknown', 'os_version_major': '4',
            'doc_root': None,
        },
    ),
    'rocky9': (
        {
            '/etc/os-release': 'ID="rocky"\nVERSION_ID="9.2"\n',
            '/etc/redhat-release': 'Rocky Linux release 9.2 (Blue Onyx)\n',
        },
        {
            'redhat': '/etc/redhat-release', 'rocky': '/etc/os-release', 'rocky_9': 'flavor',
            'rocky_9_2': '/etc/os-release',
        },
        {
            'flavor': 'rocky_9', 'os_name_human': 'RHEL', 'os_version_major': '9',
            'doc_root': '/var/www/html',
        },
    ),
    'bigip': (
        {
            '/etc/issue': 'BIG-IP 10.1.0 Build 3341.1084\n',
        },
        {
            'BIG_IP': 'flavor', 'big_ip': 'inv', 'big_ip_10_1_0': 'inv',
            'big_ip_10_1_0_3341_1084': 'inv',
        },
        {
            'flavor': 'BIG-IP', 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'mandriva': (
        {
            '/etc/mandriva-release': 'Mandriva Linux release 2010.2 (Official) for x86_64\n',
        },
        {
            'Mandrake': 'inv', 'Mandriva': 'inv', 'mandriva': 'inv', 'mandriva_2010': 'inv',
            'mandriva_2010_2': 'inv',
        },
        {
            'flavor': None, 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'eos': (
        {
            '/etc/Eos-release': 'Arista Networks EOS 4.10.2\n',
        },
        {
            'Eos': 'flavor', 'arista': 'agent', 'eos': 'inv', 'eos_4_10_2': 'inv',
        },
        {
            'flavor': 'Eos', 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'vmware': (
        {
            '/etc/vmware-release': 'VMware ESX Server 3 (Dali)\n',
        },
        {
            'VMware': 'virt', 'VMware_ESX_Server_3': 'inv', 'VMware_ESX_Server_3__Dali_': 'inv',
        },
        {
            'flavor': None, 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'scientific': (
        {
            '/etc/redhat-release': 'Scientific Linux release 6.4 (Carbon)\n',
        },
        {
            'redhat': '/etc/redhat-release', 'scientific': '/etc/redhat-release',
            'scientific_6': 'flavor', 'scientific_6_4': '/etc/redhat-release',
            'scientific_sl': '/etc/redhat-release', 'scientific_sl_6': '/etc/redhat-release',
            'scientific_sl_6_4': '/etc/redhat-release',
        },
        {
            'flavor': 'scientific_6', 'os_name_human': 'RHEL', 'os_version_major': '6',
            'doc_root': '/var/www/html',
        },
    ),
    'ovs': (
        {
            '/etc/ovs-release': 'Oracle VM server release 3.4.6\n',
        },
        {
            'oraclevmserver': 'virt', 'oraclevmserver_3': 'flavor', 'oraclevmserver_3_4': 'inv',
            'oraclevmserver_3_4_6': 'inv', 'redhat': 'inv',
        },
        {
            'flavor': 'oraclevmserver_3', 'os_name_human': 'RHEL', 'os_version_major': '3',
            'doc_root': '/var/www/html',
        },
    ),
    'unitedlinux': (
        {
            '/etc/UnitedLinux-release': 'UnitedLinux 1.0\n',
            '/etc/generic-release': 'x\n',
        },
        {
            'SunCobalt': 'flavor', 'UnitedLinux': 'flavor',
        },
        {
            'flavor': 'UnitedLinux', 'os_name_human': 'Unknown', 'os_version_major': 'Unknown',
            'doc_root': None,
        },
    ),
    'ubuntu1404': (
        {
            '/etc/debian_version': 'jessie/sid\n',
            '/etc/issue': 'Ubuntu 14.04.6 LTS \\n \\l\n',
        },
        {
            'debian': '/etc/debian_version', 'debian_jessie': '/etc/debian_version',
            'ubuntu': '/etc/issue', 'ubuntu_14': 'flavor',
        },
        {
            'flavor': 'ubuntu_14', 'os_name_human': 'Ubuntu', 'os_version_major': '14',
            'doc_root': '/var/www',
        },
    ),
    'debian_issue_version': (
        {
            '/etc/debian_version': '9.13\n',
            '/etc/issue': 'Debian GNU/Linux 9 \\n \\l\n',
        },
        {
            'debian': '/etc/debian_version', 'debian_9': 'flavor',
            'debian_9_13': '/etc/debian_version',
        },
        {
            'flavor': 'debian_9', 'os_name_human': 'Debian', 'os_version_major': '9',
            'doc_root': '/var/www',
        },
    ),
    'quoted': (
        {
            '/etc/os-release': 'ID="my-distro"\nVERSION_ID="1.2-beta"\nNAME="A \\"q\\" b"\n# c\n',
        },
        {
            'my': '/etc/os-release', 'my_distro': '/etc/os-release', 'my_distro_1': 'flavor',
            'my_distro_1_2': '/etc/os-release', 'my_distro_1_2_beta': '/etc/os-release',
        },
        {
            'flavor': 'my_distro_1', 'os_name_human': 'Unknown', 'os_version_major': '1',
            'doc_root': None,
        },
    ),
}

# (time zone, epoch seconds, classes): cf-agent under faketime with TZ set.
TIME_CASES: tuple[tuple[str, int, frozenset[str]], ...] = (
    ('UTC', 1767618600, frozenset(
        'Afternoon Day5 GMT_Afternoon GMT_Day5 GMT_Hr13 GMT_Hr13_Q1 GMT_January '
        'GMT_Lcycle_1 GMT_Min10 GMT_Min10_15 GMT_Monday GMT_Q1 GMT_Yr2026 Hr13 Hr13_Q1 '
        'January Lcycle_1 Min10 Min10_15 Monday Q1 Yr2026'
        .split())),
    ('UTC', 1709251170, frozenset(
        'Day29 Evening February GMT_Day29 GMT_Evening GMT_February GMT_Hr23 GMT_Hr23_Q4 '
        'GMT_Lcycle_2 GMT_Min55_00 GMT_Min59 GMT_Q4 GMT_Thursday GMT_Yr2024 Hr23 Hr23_Q4 '
        'Lcycle_2 Min55_00 Min59 Q4 Thursday Yr2024'
        .split())),
    ('America/New_York', 1772953080, frozenset(
        'Day8 GMT_Day8 GMT_Hr06 GMT_Hr06_Q4 GMT_Hr6 GMT_Lcycle_1 GMT_March GMT_Min55_00 '
        'GMT_Min58 GMT_Morning GMT_Q4 GMT_Sunday GMT_Yr2026 Hr01 Hr01_Q4 Hr1 Lcycle_1 '
        'March Min55_00 Min58 Night Q4 Sunday Yr2026'
        .split())),
    ('Asia/Kolkata', 1767186300, frozenset(
        'Day31 December Evening GMT_Afternoon GMT_Day31 GMT_December GMT_Hr13 GMT_Hr13_Q1 '
        'GMT_Lcycle_0 GMT_Min05 GMT_Min05_10 GMT_Q1 GMT_Wednesday GMT_Yr2025 Hr18 Hr18_Q3 '
        'Lcycle_0 Min35 Min35_40 Q3 Wednesday Yr2025'
        .split())),
    ('Europe/Oslo', 1780265099, frozenset(
        'Day1 GMT_Day31 GMT_Evening GMT_Hr22 GMT_Hr22_Q1 GMT_Lcycle_1 GMT_May '
        'GMT_Min00_05 GMT_Min04 GMT_Q1 GMT_Sunday GMT_Yr2026 Hr0 Hr00 Hr00_Q1 June '
        'Lcycle_1 Min00_05 Min04 Monday Night Q1 Yr2026'
        .split())),
    ('Pacific/Auckland', 1689444001, frozenset(
        'Day16 GMT_Day15 GMT_Evening GMT_Hr18 GMT_Hr18_Q1 GMT_July GMT_Lcycle_1 GMT_Min00 '
        'GMT_Min00_05 GMT_Q1 GMT_Saturday GMT_Yr2023 Hr06 Hr06_Q1 Hr6 July Lcycle_1 Min00 '
        'Min00_05 Morning Q1 Sunday Yr2023'
        .split())),
    ('UTC', 1818351900, frozenset(
        'Afternoon August Day15 GMT_Afternoon GMT_August GMT_Day15 GMT_Hr17 GMT_Hr17_Q4 '
        'GMT_Lcycle_2 GMT_Min45 GMT_Min45_50 GMT_Q4 GMT_Sunday GMT_Yr2027 Hr17 Hr17_Q4 '
        'Lcycle_2 Min45 Min45_50 Q4 Sunday Yr2027'
        .split())),
    ('America/Los_Angeles', 1793521800, frozenset(
        'Day1 GMT_Day1 GMT_Hr08 GMT_Hr08_Q3 GMT_Hr8 GMT_Lcycle_1 GMT_Min30 GMT_Min30_35 '
        'GMT_Morning GMT_November GMT_Q3 GMT_Sunday GMT_Yr2026 Hr01 Hr01_Q3 Hr1 Lcycle_1 '
        'Min30 Min30_35 Night November Q3 Sunday Yr2026'
        .split())),
)
