-- vegas-desk ledger on SQLite, schema version 3 (PRAGMA user_version = 3,
-- PRAGMA application_id = 0x56474453 "VGDS"). Applied by internal/ledger in
-- one BEGIN IMMEDIATE transaction. Later versions append migrations; they
-- never edit this file. On opening, the file's sqlite_master must be
-- exactly what these statements make: an extra trigger, view, table or
-- index, or a changed definition, and the file is refused untouched.
-- The same tables on PostgreSQL are internal/ledger/postgres.sql.
--
-- The journal is the record: every event (a block generated, a payment, a
-- void, a refused attempt, a pack's move, a setting) is an entry chained by
-- SHA-256 to the one before. The tables marked "kept" below hold the state
-- those entries lead to, written in the same transaction as the entry;
-- verify replays the journal and compares them.

-- What this ledger is, written once at its creation: id (32 hex digits,
-- names the ledger in copies and imports), kind ('back-office'), demo ('1'
-- for a demonstration ledger, whose unpaid winners the app may list).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Games (emissions): the game code of the serials, its name, the ticket
-- price and, kept from 'emission' entries, the sale and claim dates as UTC
-- instants ('' when not set): claims are refused before on_sale and after
-- deadline.
CREATE TABLE games (
    code        INTEGER PRIMARY KEY CHECK (code BETWEEN 100 AND 999),
    name        TEXT    NOT NULL,
    price       INTEGER NOT NULL CHECK (price > 0),  -- euros
    on_sale     TEXT    NOT NULL DEFAULT '',
    end_of_sale TEXT    NOT NULL DEFAULT '',
    deadline    TEXT    NOT NULL DEFAULT ''
);
INSERT INTO games (code, name, price) VALUES (531, 'VEGAS', 3);

-- Blocks of 2,000,000 tickets in 10,000 packs of pack_size = 200. The
-- packs of a block are the rows of packs with id first_pack + pack number,
-- 0 .. tickets/pack_size - 1, so the ticket at position p is byte offset
-- 14 * (p % pack_size) of the codes of pack row first_pack + p / pack_size.
-- A ticket's global number (journal.ticket) is first_pack * pack_size + p.
-- serial_key gives the secret part of every serial (game.SerialKey.Secret);
-- the block's seed is never stored.
CREATE TABLE blocks (
    id         INTEGER PRIMARY KEY,
    game       INTEGER NOT NULL REFERENCES games (code),
    number     INTEGER NOT NULL CHECK (number BETWEEN 1 AND 9999),
    first_pack INTEGER NOT NULL,
    tickets    INTEGER NOT NULL,
    pack_size  INTEGER NOT NULL,
    winners    INTEGER NOT NULL,
    payout     INTEGER NOT NULL,            -- euros
    serial_key BLOB    NOT NULL,            -- 32 bytes
    digest     BLOB    NOT NULL,            -- 32 bytes, game.Digest
    created_at TEXT    NOT NULL,            -- UTC, 2006-01-02T15:04:05.000000000Z
    UNIQUE (game, number)
);

-- Packs: one row per pack of pack_size tickets; the tickets themselves.
--   hash   SHA-256 over the secret part (8 bytes big-endian) and the 14-byte
--          encoding of each of the pack's tickets, in order (game.PackHasher),
--          so that verify names the pack of a changed ticket;
--   prizes one byte per ticket in position order: 0 for a loser, else 1 + the
--          index of its prize in game.PrizeTable (1 = 50,000 €, …, 8 = 3 €);
--   codes  the tickets' game.Encode (14 bytes each) concatenated in position
--          order (2,800 bytes).
-- A row is about 3 KiB: the file has 16 KiB pages, so that five packs fill
-- a page (with 4 KiB pages only one would fit).
CREATE TABLE packs (
    id     INTEGER PRIMARY KEY,   -- blocks.first_pack + pack number
    hash   BLOB NOT NULL,
    prizes BLOB NOT NULL,
    codes  BLOB NOT NULL
);

-- Find by contents: the winning tickets of each block by the first 4 bytes
-- of their encoding. A block's winners, sorted by (key, position), are cut
-- into chunks of about 1,000 entries, never between two entries of one
-- key; each chunk is a row: id = blocks.id * 2^32 + its first key, entries
-- = 7 bytes per winner, the key (4 bytes big-endian) and the position (3
-- bytes big-endian).
CREATE TABLE finder (
    id      INTEGER PRIMARY KEY,
    entries BLOB NOT NULL
);

-- The journal. Every entry has the columns of internal/ledger/tables
-- (tables.Journal, declared there once for every engine and written in
-- place of the line {{journal}} below); what each means for each kind, and
-- the canonical text its hash covers, are in internal/ledger/core/journal.go.
-- number is the entry's rank among the entries of its kind (a claim's
-- number is the payment number, without gaps).
{{journal}}
CREATE INDEX journal_by_ticket ON journal (ticket) WHERE ticket IS NOT NULL;
CREATE INDEX journal_by_ref ON journal (ref) WHERE ref IS NOT NULL;
CREATE INDEX journal_by_desk ON journal (desk, kind, at);
-- A claim's request id (made by the client) answers a retry with the first
-- answer: one claim per desk and request id; a question finds the id's
-- prior use through journal_by_request, whatever the desk's history.
CREATE UNIQUE INDEX journal_requests ON journal (desk, request) WHERE kind = 'claim' AND request <> '';
CREATE INDEX journal_by_request ON journal (desk, request) WHERE request <> '';

-- Kept: the tickets with a payment that no void cancels, one row at most
-- per ticket, which the primary key enforces (tables.Paid).
{{paid}}

-- Kept: the packs that left the stock, with their state and the counter
-- they went to ('' when generate --activate put them on sale). A pack
-- without a row is in stock.
CREATE TABLE pack_states (
    block INTEGER NOT NULL REFERENCES blocks (id),
    pack  INTEGER NOT NULL,
    state TEXT    NOT NULL CHECK (state IN ('delivered', 'received', 'on-sale', 'settled',
                                            'returned', 'stolen', 'destroyed')),
    desk  TEXT    NOT NULL,
    entry INTEGER NOT NULL REFERENCES journal (id),
    PRIMARY KEY (block, pack)
) WITHOUT ROWID;

-- Kept: the counters, with their payout limit. role is unused (the
-- PostgreSQL login an earlier shared ledger made; always NULL); locked_until is the end of a
-- lock-out after too many refused serials ('' when not locked); guesses are the times of the
-- desk's last refused serials and contents since its unlock, at most 20, comma-separated
-- (core.Lock: the lock-out's count, one row's read; verify does not replay them),
-- written as upgrade step 2→3's ALTER TABLE leaves it (sqlite/migrate.go).
CREATE TABLE desks (
    id           TEXT    PRIMARY KEY,
    role         TEXT    UNIQUE,
    payout_limit INTEGER NOT NULL CHECK (payout_limit >= 0),
    disabled     INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    locked_until TEXT    NOT NULL DEFAULT '',
    unlocked_at  TEXT    NOT NULL DEFAULT ''
, guesses      TEXT    NOT NULL DEFAULT '') WITHOUT ROWID;

-- Kept: the certificates each desk accepts, from its 'desk' entries
-- 'certified' (desks add --out, desks cert) and 'revoked' (desks cert
-- without --keep-old, desks revoke): a validation server answers a desk's
-- certificate only while its serial number (lowercase hex) is listed here
-- for the desk; not_after is its expiry (UTC instant).
CREATE TABLE desk_certs (
    desk      TEXT NOT NULL REFERENCES desks (id),
    serial    TEXT NOT NULL,
    not_after TEXT NOT NULL,
    PRIMARY KEY (desk, serial)
) WITHOUT ROWID;

-- Kept: settings from 'setting' entries (identity_threshold, commission).
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Winners' identities, recorded with a payment from the identity threshold
-- on. Personal data: kept out of the journal (its claim entry records their
-- SHA-256), out of exports unless asked, never shown at a counter.
-- skeleton is the name's confusable skeleton (Unicode TR39: core.NameSkeleton),
-- kept beside it so that look-alikes of one name meet; written as upgrade
-- step 2→3's ALTER TABLE leaves it (sqlite/migrate.go).
CREATE TABLE identities (
    claim      INTEGER PRIMARY KEY REFERENCES journal (id),
    name       TEXT NOT NULL,
    doc_type   TEXT NOT NULL,
    doc_number TEXT NOT NULL
, skeleton   TEXT NOT NULL DEFAULT '');

-- Nothing of the record is changed in place or deleted.
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER packs_no_update BEFORE UPDATE ON packs
BEGIN SELECT RAISE(ABORT, 'tickets are never changed'); END;
CREATE TRIGGER packs_no_delete BEFORE DELETE ON packs
BEGIN SELECT RAISE(ABORT, 'tickets are never deleted'); END;
CREATE TRIGGER blocks_no_update BEFORE UPDATE ON blocks
BEGIN SELECT RAISE(ABORT, 'blocks are never changed'); END;
CREATE TRIGGER blocks_no_delete BEFORE DELETE ON blocks
BEGIN SELECT RAISE(ABORT, 'blocks are never deleted'); END;
CREATE TRIGGER finder_no_update BEFORE UPDATE ON finder
BEGIN SELECT RAISE(ABORT, 'the finder is never changed'); END;
CREATE TRIGGER finder_no_delete BEFORE DELETE ON finder
BEGIN SELECT RAISE(ABORT, 'the finder is never changed'); END;
CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta
BEGIN SELECT RAISE(ABORT, 'what a ledger is does not change'); END;
CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta
BEGIN SELECT RAISE(ABORT, 'what a ledger is does not change'); END;
CREATE TRIGGER identities_no_update BEFORE UPDATE ON identities
BEGIN SELECT RAISE(ABORT, 'identities are never changed'); END;
CREATE TRIGGER identities_no_delete BEFORE DELETE ON identities
BEGIN SELECT RAISE(ABORT, 'identities are never deleted'); END;
