"""The connection table (cfpromise.server.slots): unidentified connections give way to
newcomers, the address holding the most gives way first, identified ones never do, and
cf-serverd's refusals stay (maxconnections identified peers; a second connection from an
address outside allowallconnects beside an identified one)."""
from __future__ import annotations

import socket

import pytest

from cfpromise.server.slots import HANDSHAKEN, HELLO, ConnectionTable, pending_cap


class Peers:
    """Socket pairs standing for accepted connections: the server end goes in the table,
    the client end tells whether the server shut it down."""

    def __init__(self) -> None:
        self.table = ConnectionTable(lambda level, msg: self.logs.append(msg))
        self.logs: list[str] = []
        self.pairs: list[tuple[socket.socket, socket.socket]] = []

    def connect(self, ip: str, all_connects: bool = True, maxconn: int = 6, stage: int = 0):
        server, client = socket.socketpair()
        self.pairs.append((server, client))
        conn = self.table.admit(ip, server.fileno(), all_connects, maxconn, stage)
        return conn, client

    def close(self) -> None:
        for a, b in self.pairs:
            a.close()
            b.close()


@pytest.fixture
def peers():
    p = Peers()
    yield p
    p.close()


def dropped(client: socket.socket) -> bool:
    client.setblocking(False)
    try:
        return client.recv(1) == b""
    except BlockingIOError:
        return False


def test_a_full_table_of_unidentified_connections_makes_room(peers: Peers) -> None:
    hoard = [peers.connect("10.0.0.9") for _ in range(pending_cap(6))]       # 3
    others = [peers.connect(f"10.0.0.{i}") for i in (1, 2, 3)]               # table full
    newcomer, nc = peers.connect("10.0.0.4")
    assert newcomer is not None and len(peers.table) == 6
    # the address holding the most gave up its oldest connection
    assert dropped(hoard[0][1]) and not any(dropped(c) for _, c in hoard[1:] + others)
    assert not dropped(nc)


def test_one_address_cannot_hold_more_than_half_unidentified(peers: Peers) -> None:
    first = [peers.connect("10.0.0.9") for _ in range(pending_cap(6))]
    conn, client = peers.connect("10.0.0.9")
    assert conn is not None
    assert dropped(first[0][1]) and len(peers.table) == pending_cap(6)


def test_identified_connections_are_never_preempted(peers: Peers) -> None:
    held = [peers.connect(f"10.0.0.{i}") for i in range(6)]
    for conn, _ in held:
        assert peers.table.identified(conn)
    conn, _ = peers.connect("10.0.0.99")
    assert conn is None and any("Too many threads" in m for m in peers.logs)
    assert not any(dropped(c) for _, c in held)


def test_a_preempted_connection_cannot_become_identified(peers: Peers) -> None:
    victim, client = peers.connect("10.0.0.9")
    for _ in range(pending_cap(6)):
        peers.connect("10.0.0.9")
    assert dropped(client) and not peers.table.identified(victim)


def test_outside_allowallconnects_one_connection_per_address(peers: Peers) -> None:
    first, c1 = peers.connect("10.0.0.5", all_connects=False)
    second, c2 = peers.connect("10.0.0.5", all_connects=False)       # replaces a pending one
    assert second is not None and dropped(c1) and not dropped(c2)
    assert peers.table.identified(second)
    third, _ = peers.connect("10.0.0.5", all_connects=False)         # beside an identified one
    assert third is None and any("allowallconnects" in m for m in peers.logs)


def test_released_connections_free_their_slot(peers: Peers) -> None:
    conns = [peers.connect(f"10.0.0.{i}") for i in range(6)]
    for conn, _ in conns:
        peers.table.identified(conn)
    peers.table.release(conns[0][0])
    assert peers.connect("10.0.0.50")[0] is not None


def test_a_peer_getting_somewhere_outlives_silent_ones_from_its_own_address(peers: Peers) -> None:
    agent, ac = peers.connect("10.0.0.1", stage=HELLO)        # its ClientHello came with it
    for _ in range(20):                                        # silent sockets, same address
        peers.connect("10.0.0.1")
    assert not dropped(ac)
    peers.table.progressed(agent, HANDSHAKEN)
    for _ in range(20):                                        # a static ClientHello each
        peers.connect("10.0.0.1", stage=HELLO)
    assert not dropped(ac) and peers.table.identified(agent)


def test_lowest_stage_goes_first_when_the_table_is_full(peers: Peers) -> None:
    hellos = [peers.connect(f"10.0.0.{i}", stage=HELLO) for i in range(5)]
    silent, sc = peers.connect("10.0.0.9")
    peers.connect("10.0.0.10", stage=HELLO)
    assert dropped(sc) and not any(dropped(c) for _, c in hellos)
