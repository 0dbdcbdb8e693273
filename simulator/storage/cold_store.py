"""What a catalogue will seldom read again, kept on disk: a long run's archive out of memory.

A run that writes for a simulated year records millions of files, their stripes and the
pieces on its tapes: some 5 KB a file in Python objects, gigabytes by the end, although a
read of one of them is rare once it is old. :class:`ColdStore` keeps such records on disk,
as plain values (:mod:`marshal`), in an SQLite database of its own (the standard library's), and
:class:`HotCache` is what the catalogue keeps in memory in front of it: the records used
last, up to a bound, each written to the store when it leaves the cache and read back,
equal, when it is asked for again. The catalogue's answers are the same whatever the
bound; only what it holds in memory changes.

The database lives in a temporary file that is unlinked as soon as it is open (with no
journal beside it), so that nothing is left on disk by a run that ends, fails or is
killed; it is opened only when a cache first overflows, and a short run never opens one.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

K = TypeVar("K", int, str)
V = TypeVar("V")

CACHE_PAGES_KIB = 8192
"""SQLite's page cache of a store, in KiB (its own memory, beside the catalogue's caches)."""


class ColdStore:
    """Records by table and key, on disk (see the module): each a value of Python's plain
    types (numbers, texts, tuples, lists), as :mod:`marshal` writes them.

    Tables are made on first use; a key is an integer or a text, one kind a table.
    """

    def __init__(self) -> None:
        self._db: sqlite3.Connection | None = None
        self._tables: set[str] = set()

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            handle, path = tempfile.mkstemp(prefix="tapesched-", suffix=".catalogue")
            os.close(handle)
            try:
                db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                # A scratch store: no journal, no syncing, nothing to recover after a crash.
                db.execute("PRAGMA journal_mode=OFF")
                db.execute("PRAGMA synchronous=OFF")
                db.execute("PRAGMA locking_mode=EXCLUSIVE")
                db.execute(f"PRAGMA cache_size=-{CACHE_PAGES_KIB}")
                db.execute("CREATE TABLE IF NOT EXISTS probe (k INTEGER)")  # takes the lock
                # One transaction for the store's life: what is put is read back by this
                # connection alone, and is never committed (a commit a record would write
                # its pages out every time).
                db.execute("BEGIN")
            finally:
                os.unlink(path)
            self._db = db
        return self._db

    def _table(self, table: str, key: int | str) -> sqlite3.Connection:
        db = self._open()
        if table not in self._tables:
            kind = "INTEGER" if isinstance(key, int) else "TEXT"
            db.execute(f"CREATE TABLE IF NOT EXISTS {table} (k {kind} PRIMARY KEY, v BLOB)")
            self._tables.add(table)
        return db

    def put(self, table: str, key: int | str, value: object) -> None:
        """Keep ``value`` under ``key`` (replacing what was there)."""
        blob = marshal.dumps(value)  # type: ignore[arg-type]  # plain values, as documented
        self._table(table, key).execute(
            f"INSERT OR REPLACE INTO {table} (k, v) VALUES (?, ?)", (key, blob)
        )

    def get(self, table: str, key: int | str) -> Any:
        """The value under ``key`` (``None``: none)."""
        if self._db is None or table not in self._tables:
            return None
        row = self._db.execute(f"SELECT v FROM {table} WHERE k = ?", (key,)).fetchone()
        return None if row is None else marshal.loads(row[0])

    def has(self, table: str, key: int | str) -> bool:
        """Whether something is kept under ``key``."""
        if self._db is None or table not in self._tables:
            return False
        found = self._db.execute(f"SELECT 1 FROM {table} WHERE k = ?", (key,)).fetchone()
        return found is not None

    def items(self, table: str) -> Iterator[tuple[Any, Any]]:
        """Every key and value of ``table``, read a few at a time."""
        if self._db is None or table not in self._tables:
            return
        cursor = self._db.execute(f"SELECT k, v FROM {table}")
        while rows := cursor.fetchmany(256):
            for key, blob in rows:
                yield key, marshal.loads(blob)

    def count(self, table: str) -> int:
        """Records kept in ``table``."""
        if self._db is None or table not in self._tables:
            return 0
        return int(self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    def close(self) -> None:
        """Drop every record (the file is gone already)."""
        if self._db is not None:
            self._db.close()
            self._db = None
            self._tables.clear()


class HotCache(Generic[K, V]):
    """The records of one table used last, at most ``size`` of them, before a :class:`ColdStore`.

    A record put or read goes to the front; one pushed out of the back is written to the
    store if it changed since it was read (an unchanged one is there already), as
    ``encode`` makes it of plain values; :meth:`get` reads the store for a record not in
    memory, ``decode`` makes it again, and the cache keeps it.

    Parameters
    ----------
    store
        Where records go when they leave.
    table
        The store's table.
    size
        Records kept in memory (at least 1).
    encode, decode
        A record as plain values (:class:`ColdStore`), and back, equal.
    """

    def __init__(
        self,
        store: ColdStore,
        table: str,
        size: int,
        encode: Callable[[V], object],
        decode: Callable[[Any], V],
    ) -> None:
        if size < 1:
            raise ValueError(f"a cache keeps at least one record, got {size}")
        self._store = store
        self._table = table
        self._size = size
        self._encode = encode
        self._decode = decode
        self._hot: OrderedDict[K, V] = OrderedDict()
        self._dirty: set[K] = set()

    def __contains__(self, key: K) -> bool:
        return key in self._hot or self._store.has(self._table, key)

    def hot(self, key: K) -> V | None:
        """The record under ``key`` when it is in memory (the store is not read)."""
        return self._hot.get(key)

    def get(self, key: K) -> V | None:
        """The record under ``key``, read back from the store if need be (``None``: none)."""
        value = self._hot.get(key)
        if value is not None:
            self._hot.move_to_end(key)
            return value
        stored = self._store.get(self._table, key)
        if stored is None:
            return None
        value = self._decode(stored)
        self._keep(key, value)
        return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key``, changed (it will be written when it leaves)."""
        self._dirty.add(key)
        self._keep(key, value)

    def changed(self, key: K) -> None:
        """The record under ``key`` (in memory) was changed in place."""
        self._dirty.add(key)

    def _keep(self, key: K, value: V) -> None:
        hot = self._hot
        hot[key] = value
        hot.move_to_end(key)
        if len(hot) > self._size:
            old, record = hot.popitem(last=False)
            if old in self._dirty:
                self._dirty.discard(old)
                self._store.put(self._table, old, self._encode(record))

    def values(self) -> Iterator[V]:
        """Every record, those in memory as they are now, the others from the store."""
        hot, decode = self._hot, self._decode
        for key, value in self._store.items(self._table):
            if key not in hot:
                yield decode(value)
        yield from hot.values()
