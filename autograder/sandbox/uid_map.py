"""Where a container's sandbox uids start (the image's entrypoint asks, ``first_uid``): inside the
uids its user namespace maps (``/proc/self/uid_map``), spread by a checksum of its host name.

A rootful container maps every uid (``0 0 4294967295``): its sandbox uids are host uids, and each
container starts at ``100000 + 64 x (checksum mod 60000)``, where no other container's range is
likely to be (docs/CONTAINER.md). A rootless one (Podman without root, a user-namespaced pod) maps
a few: root to its user and, typically, 65,536 uids of its ``/etc/subuid`` range to 1 to 65,536; a
uid outside them cannot be taken (``setuid`` fails), so the range starts in the largest mapped
block instead, above the image's system accounts (1000) and apart from ``nobody`` (65534), still
spread by the checksum (rootless containers of one user share that block).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from autograder.errors import InputError

SLOT = 64  # uids a container's range starts apart by
SLOTS = 60000  # the rootful spread: 100000 to 3,940,000
HOST_BASE = 100000
FIRST = 1000  # the image's system accounts are below
NOBODY = 65534  # nobody and the overflow uid (65534, 65535) are never a sandbox uid
UID_MAP = "/proc/self/uid_map"


def blocks(uid_map: str) -> list[tuple[int, int]]:
    """The uids a user namespace maps, as (first inside uid, how many) per line of its uid_map; a
    ``ValueError`` naming a line that is not three whole numbers."""
    found = []
    for line in uid_map.splitlines():
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3 or not all(field.isdigit() for field in fields):
            raise InputError(f"uid_map line {line.strip()!r} is not 'inside outside count': read {UID_MAP} again")
        found.append((int(fields[0]), int(fields[2])))
    return found


def _usable(first: int, count: int) -> list[tuple[int, int]]:
    """The parts of a mapped block a sandbox range may use, as (first uid, how many): from FIRST,
    and around nobody and the overflow uid (65534, 65535) when the block holds them."""
    start, end = max(first, FIRST), first + count
    parts = [(start, min(end, NOBODY)), (max(start, NOBODY + 2), end)]
    return [(low, high - low) for low, high in parts if high > low]


def first_uid(uid_map: str, spread: int) -> int:
    """The first sandbox uid of a container whose ``/proc/self/uid_map`` is ``uid_map`` (``spread``:
    a checksum of its host name): the rootful place when its whole slot is mapped, else a slot of
    the largest usable mapped block; a ``ValueError`` when no block holds a slot."""
    mapped = blocks(uid_map)
    preferred = HOST_BASE + SLOT * (spread % SLOTS)
    if any(first <= preferred and preferred + SLOT <= first + count for first, count in mapped):
        return preferred
    usable = [part for first, count in mapped for part in _usable(first, count)]
    start, count = max(usable, key=lambda part: part[1], default=(0, 0))
    if count < SLOT:
        raise InputError(
            f"this container maps too few uids for sandbox uids ({' '.join(uid_map.split()) or 'none'} in "
            f"{UID_MAP}; {SLOT} are needed from uid {FIRST}): give the rootless user a range in /etc/subuid "
            "(e.g. 65536 uids), or set AUTOGRADER_SANDBOX_UID to a mapped uid"
        )
    return start + SLOT * (spread % (count // SLOT))


def main(argv: Sequence[str]) -> int:
    """``python -c ... SPREAD``, for the entrypoint: print the first sandbox uid (status 0), or why
    none can be chosen (status 2)."""
    try:
        with open(UID_MAP, encoding="ascii") as source:
            print(first_uid(source.read(), int(argv[0])))
    except (OSError, ValueError, IndexError) as error:
        print(f"the sandbox uids cannot be placed: {error}", file=sys.stderr)
        return 2
    return 0
