"""Where a container's sandbox uids start (``sandbox/uid_map.py``, asked by the image's
entrypoint): the rootful place when the container maps every uid, inside the mapped block when a
rootless container maps few, from uid maps written as the kernel shows them."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from autograder import paths
from autograder.sandbox import uid_map

ROOTFUL = "         0          0 4294967295\n"
ROOTLESS = "         0       1000          1\n         1     100000      65536\n"  # podman, /etc/subuid of 65536
BIG = "0 1000 1\n1 200000 1000000\n"  # a rootless user given a million subuids

#: id: (uid_map, spread, the first sandbox uid)
CASES = {
    "rootful: the host's place, as before": (ROOTFUL, 12345, 100000 + 64 * 12345),
    "rootful: the spread wraps at 60000 slots": (ROOTFUL, 60001, 100000 + 64),
    "rootless 65536: a slot from 1000, below nobody": (ROOTLESS, 5, 1000 + 64 * 5),
    "rootless 65536: the spread wraps at its 1008 slots": (ROOTLESS, 1008 + 7, 1000 + 64 * 7),
    "rootless 65536: the last slot ends below 65534": (ROOTLESS, 1007, 1000 + 64 * 1007),
    "a million mapped: the host's place when it is mapped": (BIG, 3, 100000 + 64 * 3),
    "a million mapped: a slot inside when the host's place is not": (
        BIG,
        20000,  # 100000 + 64 * 20000 = 1,380,000: past the 1,000,001 mapped
        65536 + 64 * (20000 % ((1000001 - 65536) // 64)),  # the part above nobody, the larger
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_the_range_starts_inside_the_mapped_uids(case):
    """Is the first sandbox uid the rootful place when mapped, else a slot of the mapped block,
    and are its 64 uids all mapped, none of them root's, a system account's or nobody's?"""
    text, spread, expected = case
    first = uid_map.first_uid(text, spread)
    assert first == expected
    blocks = uid_map.blocks(text)
    assert any(start <= first and first + uid_map.SLOT <= start + count for start, count in blocks)
    assert first >= 1000 and not first <= 65534 < first + uid_map.SLOT


#: id: (uid_map, what the message says)
REFUSED = {
    "root alone mapped": ("0 1000 1\n", "maps too few uids for sandbox uids (0 1000 1 in /proc/self/uid_map"),
    "a block of system uids only": ("0 1000 1\n1 100000 999\n", "give the rootless user a range in /etc/subuid"),
    "not a uid map": ("0 1000\n", "uid_map line '0 1000' is not 'inside outside count'"),
}


@pytest.mark.parametrize("case", REFUSED.values(), ids=REFUSED.keys())
def test_too_few_mapped_uids_are_refused_saying_what_to_do(case):
    """Is a map with no room for a range (or no map at all) refused, saying what to give?"""
    text, message = case
    with pytest.raises(ValueError, match=re.escape(message)):
        uid_map.first_uid(text, 0)


def test_the_entrypoint_asks_for_its_uids_here():
    """Run as the image's entrypoint runs it, on this machine's own uid map: does it print the
    place first_uid gives that map?"""
    with open(uid_map.UID_MAP, encoding="ascii") as source:
        expected = uid_map.first_uid(source.read(), 4242)
    entrypoint = (paths.ROOT / "autograder" / "local" / "templates" / "entrypoint").read_text()
    call = re.search(r"\"\$PYTHON\" (-c '[^']+')", entrypoint)
    assert call is not None, "the entrypoint no longer asks uid_map"
    done = subprocess.run(
        ["bash", "-c", f'PYTHON=python3; cd "{paths.ROOT}" && "$PYTHON" {call.group(1)} 4242'],
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(done.stdout) == expected


def test_a_grader_refuses_sandbox_uids_its_namespace_does_not_map(monkeypatch, tmp_path):
    """In a rootless container's map, are sandbox uids from 100064 (unmapped: where the entrypoint
    used to put them) refused with a message saying why and what to give, and are uids from the
    entrypoint's choice leased, every one mapped?"""
    from autograder.sandbox import leases

    if os.geteuid() != 0:
        pytest.fail("leasing sandbox uids needs root (the suite runs as root)", pytrace=False)
    monkeypatch.setattr(leases, "_map_text", lambda: ROOTLESS)
    with pytest.raises(
        leases.LeaseError,
        match=re.escape("are not mapped in this user namespace (/proc/self/uid_map: 0 1000 1 1 100000 65536)"),
    ):
        leases.lease(1, 100064, folder=tmp_path)
    first = uid_map.first_uid(ROOTLESS, 977)
    taken = leases.lease(2, first)  # the machine's own lease folder: never a uid another grader holds
    try:
        # uids this process already holds count first (a batch graded earlier in it): all mapped
        assert len(taken) == 2 and all(1000 <= uid < 65534 for uid in taken), taken
    finally:
        leases.release(taken)
