"""Transposition table in preallocated numpy arrays, used by the df-pn search.

Keys: the board key (side to move included) mixed with the *sum* of both hands. Under
玉方残り駒全部 that sum is fixed by the board, and in any position it does not change when
a piece passes from one hand to the other, so entries that differ only in how the
pieces in hand are split between attacker and defender share a key. Each entry stores
the attacker's hand, and lookups use hand superiority (SPEC §2.2, issue #4):

* proven with attacker hand P (the proof pieces) -> proven for any hand that holds P;
* disproven with attacker hand D -> disproven for any hand that D holds.

Entries live in clusters of CLUSTER slots chosen by the key; a full cluster drops
its entry with the least search effort, never a proof if something else can go, so
the memory is fixed by --hash and a long search never runs out of it.

A search may use only the first clusters of the arrays (views of them: the cluster
count comes from the arrays' length) and move to a larger prefix as it grows
(tt_grow). A short search then stays within a few megabytes, where lookups meet far
fewer cache and TLB misses than across the whole table (bench/MEASUREMENTS.md). The
memory of a larger prefix can be faulted in before the search reaches it (populate).
"""
import ctypes
import functools
import mmap
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .errors import TsumeError
from .pieces import HAND_GUARD

CLUSTER = 8
ENTRY_BYTES = 36
INF = np.int64(1 << 30)          # proof/disproof number meaning "proven"/"disproven"
NO_LIMIT = 1 << 29               # depth bound of a disproof that holds at any depth
# Per entry: key (int64), attacker hand (int64) and five int32 values: pn, dn, amount
# (search effort; 0 = free slot), length (for a proof the mate length in plies, for a
# disproof the depth up to which there is no mate; NO_LIMIT: none at any depth) and
# generation (which problem wrote it: a reused table evicts other problems' entries
# first, so results do not depend on what was solved before).
# The hand word's high half is a check of the entry (_entry_check of key, hand, pn, dn
# and length): threads share the table without locks (solver.py), so a lookup may read
# an entry while another thread writes it, half old and half new. Such a mix fails the
# check (but for one chance in 2**32) and is taken for no entry, never for a result.


# The columns of `vals`.
V_PN, V_DN, V_AMOUNT, V_LEN, V_GEN = 0, 1, 2, 3, 4
# tt_lookup's `out` (a lookup record): what it writes in each slot.
LOOK_PN, LOOK_DN, LOOK_LEN, LOOK_HAND = 0, 1, 2, 3
LOOK_SIZE = 4


class Table(NamedTuple):
    """The table's three parallel arrays; a kernel takes them as `*table`."""
    keys: np.ndarray     # int64[slots]
    hands: np.ndarray    # int64[slots]: the attacker's (proof or disproof) hand
    vals: np.ndarray     # int32[slots, 5]: pn, dn, amount, length, generation


# Memory a process needs beside its table (numba, the interpreter, work arrays): a
# table is refused unless this much stays free after it.
RESERVE_MB = 200


class TableSizeError(TsumeError):
    """A table larger than the memory this process can have (one line for the user)."""


def _table_slots(hash_mb):
    clusters = max(1, (hash_mb * 1024 * 1024) // (ENTRY_BYTES * CLUSTER))
    clusters = 1 << (clusters.bit_length() - 1)          # a power of two: index by mask
    return clusters * CLUSTER


def table_bytes(hash_mb):
    """What new_table(hash_mb) allocates (at most hash_mb MB, at least one cluster)."""
    return _table_slots(hash_mb) * ENTRY_BYTES


def available_bytes():
    """Memory this process may still take without the system running out: the least of
    the machine's MemAvailable, the cgroup's limit less its usage, and the address-space
    limit (RLIMIT_AS) less what is mapped. None where none of them can be read. Linux
    overcommits, so a mapping too large succeeds and the first write kills a process
    (or a neighbour): a size must be checked against this before the table is touched."""
    found = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if limit != "max":
            with open("/sys/fs/cgroup/memory.current") as f:
                found.append(int(limit) - int(f.read()))
    except (OSError, ValueError):
        pass
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm") as f:
                mapped = int(f.read().split()[0]) * resource.getpagesize()
            found.append(soft - mapped)
    except (ImportError, OSError, ValueError, IndexError):
        pass
    return min(found) if found else None


def check_table_size(hash_mb):
    """Raise TableSizeError when a table of hash_mb MB (and RESERVE_MB beside it) does
    not fit in the memory available now; the message names the largest size that does."""
    if hash_mb < 1:
        raise TableSizeError(f"hash size must be at least 1 MB, not {hash_mb}")
    free = available_bytes()
    if free is None:
        return
    need = table_bytes(hash_mb) + RESERVE_MB * 1024 * 1024 + (_HUGE_PAGE if hash_mb >= 2 else 0)
    if need > free:
        fits = max(0, free // (1024 * 1024) - RESERVE_MB - 2)
        raise TableSizeError(f"a {hash_mb} MB hash table does not fit in the memory available "
                             f"({free // (1024 * 1024)} MB free, {RESERVE_MB} MB kept for the rest); "
                             f"at most {fits} MB" if fits else
                             f"a {hash_mb} MB hash table does not fit: only "
                             f"{free // (1024 * 1024)} MB of memory are free")


def new_table(hash_mb):
    """A table of about hash_mb megabytes (at least one cluster). The caller checks the
    size first (check_table_size): the memory is mapped here and written on first use."""
    slots = _table_slots(hash_mb)
    keys = _zeroed(slots * 8).view(np.int64)
    hands = _zeroed(slots * 8).view(np.int64)
    vals = _zeroed(slots * 20).view(np.int32).reshape(slots, 5)
    return Table(keys, hands, vals)


_HUGE_PAGE = 2 << 20


def _zeroed(nbytes):
    """nbytes of zeroed memory; from 2 MB on, asked of the kernel as huge pages (Linux
    transparent huge pages, granted on request where they are set to "madvise"): a
    long search probes the table at random over gigabytes, and with 4 KB pages nearly
    every probe also misses the TLB. Plain numpy memory where that cannot be asked."""
    if nbytes >= _HUGE_PAGE:
        try:
            # (Private: a shared mapping would be shmem, which huge pages skip.)
            region = mmap.mmap(-1, nbytes + _HUGE_PAGE,      # anonymous: zero-filled
                               flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            region.madvise(mmap.MADV_HUGEPAGE)
            whole = np.frombuffer(region, dtype=np.uint8)
            start = -whole.ctypes.data % _HUGE_PAGE           # huge pages are 2 MB-aligned
            return whole[start:start + nbytes]
        except (AttributeError, OSError, ValueError):
            pass
    return np.zeros(nbytes, dtype=np.uint8)


# madvise(2) advice (Linux 5.14+): fault the pages of a range in, writable, as a write
# would, keeping their contents. Not in the mmap module of every Python we support.
_MADV_POPULATE_WRITE = 23
_PAGE = mmap.PAGESIZE


@functools.lru_cache(maxsize=None)
def _madvise():
    """libc's madvise, called through ctypes (which lets go of the GIL during the call);
    None where there is none to call."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.madvise
    except (OSError, AttributeError):
        return None
    call.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    call.restype = ctypes.c_int
    return call


def populate(table, lo, hi):
    """Fault in slots [lo, hi) of the table's arrays, their contents unchanged, before
    a search grows into them (tt_grow): memory written for the first time costs the
    kernel, and a hypervisor, seconds per GB on some machines (bench/MEASUREMENTS.md).
    Blocks; the solver calls it on a thread of its own. False where the system cannot
    (no libc, a kernel before 5.14): the pages then come in on first write."""
    call = _madvise()
    if call is None or hi <= lo:
        return False
    for array in table:
        per_slot = array.strides[0]
        start = array.ctypes.data + lo * per_slot
        end = array.ctypes.data + hi * per_slot
        start -= start % _PAGE
        end += -end % _PAGE
        if call(start, end - start, _MADV_POPULATE_WRITE) != 0:
            return False
    return True


@intrinsic
def _prefetch(typingctx, array, index):
    """Ask the CPU to start loading array[index] into its caches, without waiting."""
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        arrayty = signature.args[0]
        view = context.make_array(arrayty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, arrayty, view, [args[1]])
        byte_ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        # The typed-pointer name: what LLVM 14 (numba 0.59) needs, and newer LLVMs
        # still accept it (they rename it for their opaque pointers).
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_ptr.type, i32, i32, i32]),
            "llvm.prefetch.p0i8")
        # read, high temporal locality, data cache
        builder.call(fn, [byte_ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return sig, codegen


@njit(cache=True, inline="always")
def cluster_of(key, mask):
    """The cluster of `key` in a table of mask + 1 clusters. The key's high half is
    folded in: the namespaces of one problem (search salts that differ only in bits
    32 and up, see answer.py and mudaai.py) then put one position in different
    clusters. Without that, every namespace's copy of a hot position went to the same
    eight slots, and a search in a new namespace evicted its own proofs from a cluster
    full of the older namespaces' copies (無双14's 無駄合 proof could not be read back
    after nine rule searches: its cluster held the same entry seven times)."""
    return (key ^ (key >> 32)) & mask


@njit(cache=True, inline="always")
def tt_prefetch(keys, key):
    """Start loading the cluster of `key` (its keys), so that a lookup of it a little
    later does not wait for memory."""
    mask = keys.shape[0] // CLUSTER - 1
    _prefetch(keys, cluster_of(key, mask) * CLUSTER)


_LOW32 = np.int64(0xFFFF_FFFF)
_CHECK_MIX1 = np.int64(-0x61C8_8646_80B5_83EB)    # 0x9E3779B97F4A7C15
_CHECK_MIX2 = np.int64(-0x40A7_B892_E31B_1A47)    # 0xBF58476D1CE4E5B9


@njit(cache=True, inline="always")
def _entry_check(key, hand, pn, dn, length):
    """The 32 bits that the hand word's high half holds (see the note on entries)."""
    x = key ^ (hand * _CHECK_MIX1) ^ ((np.int64(pn) << 32) | np.int64(dn)) * _CHECK_MIX2
    x ^= np.int64(length) * _CHECK_MIX1
    return (x ^ (x >> 32)) & _LOW32


@njit(cache=True, inline="always")
def _read_entry(hands, vals, i, key):
    """Slot i's (hand, pn, dn, length), each word read once, the hand -1 unless they
    belong together under `key` (another thread may be writing the slot: the values
    used are the ones checked, never read again)."""
    w = hands[i]
    pn = np.int64(vals[i, V_PN])
    dn = np.int64(vals[i, V_DN])
    length = np.int64(vals[i, V_LEN])
    hand = w & _LOW32
    if (w >> 32) & _LOW32 != _entry_check(key, hand, pn, dn, length):
        hand = np.int64(-1)
    return hand, pn, dn, length


@njit(cache=True, inline="always")
def hand_covers(big, small):
    """Does hand `big` hold at least every piece of hand `small`?"""
    return ((big - small) & HAND_GUARD) == 0


@njit(cache=True, _nrt=False)
def tt_lookup(keys, hands, vals, key, hand, remaining, out):
    """Look up (key, attacker hand) for a node with `remaining` plies of depth left.
    out[LOOK_PN, LOOK_DN, LOOK_LEN, LOOK_HAND] <- pn, dn, length, proof/disproof hand.
    Returns True when something usable
    was found: a proof of at most `remaining` plies that transfers by hand superiority
    (the shortest one), else a disproof valid for at least `remaining` plies that
    transfers, else the exact entry's running numbers."""
    mask = keys.shape[0] // CLUSTER - 1
    base = cluster_of(key, mask) * CLUSTER
    kind = 0                    # of what was found: 3 proof, 2 disproof, 1 running
    for i in range(base, base + CLUSTER):
        if keys[i] != key or vals[i, V_AMOUNT] == 0:
            continue
        h, pn, dn, length = _read_entry(hands, vals, i, key)
        if h < 0:
            continue
        if pn == 0:
            if length <= remaining and hand_covers(hand, h) and (
                    kind < 3 or length < out[LOOK_LEN]):
                kind = 3
                out[LOOK_PN], out[LOOK_DN], out[LOOK_LEN], out[LOOK_HAND] = 0, INF, length, h
        elif dn == 0:
            if kind < 3 and length >= remaining and hand_covers(h, hand):
                kind = 2
                out[LOOK_PN], out[LOOK_DN], out[LOOK_LEN], out[LOOK_HAND] = INF, 0, length, h
        elif kind < 2 and h == hand:
            kind = 1
            out[LOOK_PN], out[LOOK_DN], out[LOOK_LEN], out[LOOK_HAND] = pn, dn, length, h
    return kind > 0


@njit(cache=True, _nrt=False)
def tt_store(keys, hands, vals, generation, key, hand, pn, dn, amount, length):
    """Store a result. A proof also clears the same board's running entries that it
    makes redundant (hands that hold the proof pieces); a disproof likewise. Final
    results of the other kind stay: with depth limits a proof and a shallower
    disproof of one position are both true."""
    mask = keys.shape[0] // CLUSTER - 1
    base = cluster_of(key, mask) * CLUSTER
    slot = -1
    for i in range(base, base + CLUSTER):
        if vals[i, V_AMOUNT] == 0:
            if slot < 0:
                slot = i
            continue
        if keys[i] != key:
            continue
        h, old_pn, old_dn, old_len = _read_entry(hands, vals, i, key)
        if h < 0:
            if slot < 0:
                slot = i          # torn by another thread's write: free to take
            continue
        if h == hand:
            if (old_pn == 0 or old_dn == 0) and (old_pn != 0 or pn != 0) \
                    and (old_dn != 0 or dn != 0):
                # A final result that this one does not repeat stays: with depth
                # limits a proof too long to be used here and a disproof too shallow
                # both remain true, and a later search at another depth needs them.
                continue
            # The same kind again: keep the tighter of the two true bounds (a line read
            # from the table relies on lengths that fall from parent to child).
            if pn == 0 and old_pn == 0:
                length = min(length, old_len)
            elif dn == 0 and old_dn == 0:
                length = max(length, old_len)
            slot = i
            break
        running = old_pn != 0 and old_dn != 0
        if pn == 0 and running and hand_covers(h, hand):
            vals[i, V_AMOUNT] = 0     # made redundant by this proof
            if slot < 0:
                slot = i
        elif dn == 0 and running and hand_covers(hand, h):
            vals[i, V_AMOUNT] = 0     # made redundant by this disproof
            if slot < 0:
                slot = i
    if slot < 0:
        # Replace the entry with the least effort, keeping final results when possible.
        best = -1
        best_score = np.int64(1) << 62
        for i in range(base, base + CLUSTER):
            score = np.int64(vals[i, V_AMOUNT])
            if vals[i, V_GEN] != generation:
                score = np.int64(-1)          # left over from another problem
            elif vals[i, V_PN] == 0 or vals[i, V_DN] == 0:
                score += np.int64(1) << 40
            if score < best_score:
                best_score = score
                best = i
        slot = best
    pn = min(pn, INF)
    dn = min(dn, INF)
    keys[slot] = key
    hands[slot] = hand | (_entry_check(key, hand, pn, dn, length) << 32)
    vals[slot, V_PN] = pn
    vals[slot, V_DN] = dn
    vals[slot, V_AMOUNT] = max(1, min(amount, 1 << 30))
    vals[slot, V_LEN] = length
    vals[slot, V_GEN] = generation


@njit(cache=True, _nrt=False)
def tt_grow(keys, hands, vals, old_clusters, new_clusters):
    """Move the entries of the first old_clusters clusters to the clusters where a table
    of the first new_clusters (a power of two, at most 16 times as many) looks for them,
    losing none: the entries of cluster c go to clusters c + k * old_clusters, which no
    one else's move reaches, and those clusters, beyond the prefix used so far, hold
    only entries of earlier problems (other salts: never found again), which are
    overwritten. Call it only while the first old_clusters are all the search used."""
    new_mask = new_clusters - 1
    for c in range(old_clusters):
        filled = np.int64(0)      # slots taken so far in each target cluster, 4 bits each
        for i in range(c * CLUSTER, (c + 1) * CLUSTER):
            if vals[i, V_AMOUNT] == 0:
                continue
            t = cluster_of(keys[i], new_mask)
            if t == c:
                continue
            k = (t - c) // old_clusters
            used = (filled >> (4 * k)) & 15
            filled += np.int64(1) << (4 * k)
            j = t * CLUSTER + used
            keys[j] = keys[i]
            hands[j] = hands[i]
            for f in range(5):
                vals[j, f] = vals[i, f]
            vals[i, V_AMOUNT] = 0


def usage_permille(vals, sample=1000):
    """Share of the first `sample` slots in use, per mille (USI `hashfull`)."""
    used = vals[:sample, V_AMOUNT] != 0
    return int(round(1000 * int(used.sum()) / max(1, len(used))))
