"""The run record's SQLite schema and its migrations (docs/harness.md, section "Schema").

The schema is the list MIGRATIONS: migration N (1-based) takes a database at version N-1 to version N.  A
database records its version in the one-row table schema_version; open_database() applies every migration
above it, each in its own transaction, so a record written by an older harness is brought up to date when
it is opened (never downgraded: a database newer than this code is refused).  The journal is WAL, so
several processes (agents, an evaluation service) can write one record; busy_timeout makes a writer wait
for another's transaction instead of failing."""

from __future__ import annotations

import sqlite3
import time
from typing import List, Optional

# Migration 1: candidates, their lineage and the outcome of each compiler stage.
_V1 = """
CREATE TABLE candidates (
    id INTEGER PRIMARY KEY,
    ir_sha256 TEXT NOT NULL,
    ir_text TEXT NOT NULL,
    defines TEXT NOT NULL DEFAULT '{}',
    arch TEXT NOT NULL DEFAULT '',
    kernel TEXT NOT NULL DEFAULT '',
    producer TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    UNIQUE (ir_sha256, defines, arch)
);
CREATE TABLE lineage (
    child_id INTEGER NOT NULL REFERENCES candidates(id),
    parent_id INTEGER NOT NULL REFERENCES candidates(id),
    PRIMARY KEY (child_id, parent_id)
);
CREATE TABLE stages (
    id INTEGER PRIMARY KEY,
    candidate_id INTEGER NOT NULL REFERENCES candidates(id),
    stage TEXT NOT NULL,
    shape TEXT NOT NULL DEFAULT '',
    ok INTEGER NOT NULL,
    exit_code INTEGER,
    diagnostics TEXT NOT NULL DEFAULT '[]',
    output TEXT NOT NULL DEFAULT '{}',
    failure_signature TEXT,
    compiler_version TEXT NOT NULL DEFAULT '',
    seconds REAL,
    created_at TEXT NOT NULL
);
CREATE INDEX stages_by_candidate ON stages(candidate_id, stage);
CREATE INDEX stages_by_signature ON stages(failure_signature);
CREATE TABLE estimates (
    stage_id INTEGER NOT NULL REFERENCES stages(id),
    candidate_id INTEGER NOT NULL REFERENCES candidates(id),
    kernel TEXT NOT NULL,
    shape TEXT NOT NULL,
    machine TEXT NOT NULL DEFAULT '',
    predicted_ms REAL NOT NULL,
    bottleneck TEXT NOT NULL DEFAULT ''
);
CREATE INDEX estimates_by_kernel_shape ON estimates(kernel, shape, predicted_ms);
CREATE TABLE resources (
    stage_id INTEGER NOT NULL REFERENCES stages(id),
    candidate_id INTEGER NOT NULL REFERENCES candidates(id),
    kernel TEXT NOT NULL,
    registers INTEGER,
    spill_stores INTEGER,
    spill_loads INTEGER,
    static_smem INTEGER,
    dynamic_smem INTEGER,
    stack INTEGER
);
"""

# Migration 2: results measured outside the compiler: correctness checks and GPU timings.
_V2 = """
CREATE TABLE correctness (
    id INTEGER PRIMARY KEY,
    candidate_id INTEGER NOT NULL REFERENCES candidates(id),
    kernel TEXT NOT NULL DEFAULT '',
    shape TEXT NOT NULL DEFAULT '',
    passed INTEGER NOT NULL,
    max_abs_error REAL,
    max_rel_error REAL,
    mismatches INTEGER,
    method TEXT NOT NULL DEFAULT '',
    detail TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
);
CREATE TABLE timings (
    id INTEGER PRIMARY KEY,
    candidate_id INTEGER NOT NULL REFERENCES candidates(id),
    kernel TEXT NOT NULL DEFAULT '',
    shape TEXT NOT NULL DEFAULT '',
    time_ms REAL NOT NULL,
    gpu TEXT NOT NULL DEFAULT '',
    sm_clock_mhz REAL,
    mem_clock_mhz REAL,
    peer TEXT NOT NULL DEFAULT '',
    peer_time_ms REAL,
    seed INTEGER,
    detail TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
);
CREATE INDEX timings_by_kernel_shape ON timings(kernel, shape, time_ms);
"""

MIGRATIONS: List[str] = [_V1, _V2]
CURRENT_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    """The database's schema version; 0 for an empty database."""
    row = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
    if row is None:
        return 0
    found = conn.execute("SELECT version FROM schema_version").fetchone()
    return int(found[0]) if found else 0


def migrate(conn: sqlite3.Connection, target: Optional[int] = None) -> int:
    """Applies the migrations from the database's version up to target (default: the current one); returns
    the version reached.  ValueError for a database newer than this code."""
    goal = CURRENT_VERSION if target is None else target
    while True:
        # One transaction per migration; the version is read again under the write lock, so two processes
        # opening a new record at once apply each migration once.
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = schema_version(conn)
            if version > CURRENT_VERSION:
                raise ValueError("the run record has schema version %d; this harness knows versions up to %d"
                                 % (version, CURRENT_VERSION))
            if version >= goal:
                conn.execute("COMMIT")
                return version
            for statement in MIGRATIONS[version].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            conn.execute("DELETE FROM schema_version")
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version + 1,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def open_database(path: str, target: Optional[int] = None) -> sqlite3.Connection:
    """Opens (creating it when missing) the run record at path in WAL mode and migrates it."""
    # A connection may move between threads (the MCP server runs each call in a worker thread); its users
    # take turns, never use it at once.
    conn = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 30000")
    # Switching to WAL reads the database (a shared lock) and then needs an exclusive one; while another
    # process writes (e.g. creates and migrates it at the same moment) SQLite reports "database is locked" at
    # once instead of calling its busy handler (waiting there could deadlock): retry until the timeout.
    deadline = time.monotonic() + 30.0
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            break
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
    conn.execute("PRAGMA foreign_keys = ON")
    migrate(conn, target)
    return conn
