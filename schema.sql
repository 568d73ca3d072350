-- vegas-desk ledger, schema version 1 (PRAGMA user_version = 1,
-- PRAGMA application_id = 0x56474453 "VGDS"). Applied by internal/ledger in
-- one BEGIN IMMEDIATE transaction; later versions append migrations, never
-- edit this file.

-- Games (emissions): the game code of the serials, name and ticket price.
CREATE TABLE games (
    code  INTEGER PRIMARY KEY CHECK (code BETWEEN 100 AND 999),
    name  TEXT    NOT NULL,
    price INTEGER NOT NULL CHECK (price > 0)  -- euros
);
INSERT INTO games (code, name, price) VALUES (531, 'VEGAS', 3);

-- Blocks of 2,000,000 tickets in 10,000 packs of pack_size = 200. The
-- packs of a block are the rows of packs with id first_pack + pack number,
-- 0 .. tickets/pack_size - 1, so the ticket at position p is byte offset
-- 14 * (p % pack_size) of the codes of pack row first_pack + p / pack_size.
-- A ticket's global number (journal.ticket) is first_pack * pack_size + p.
-- serial_key gives the secret part of every serial
-- (game.SerialKey.Secret); the block's seed is never stored.
CREATE TABLE blocks (
    id           INTEGER PRIMARY KEY,
    game         INTEGER NOT NULL REFERENCES games (code),
    number       INTEGER NOT NULL CHECK (number BETWEEN 1 AND 9999),
    first_pack   INTEGER NOT NULL,
    tickets      INTEGER NOT NULL,
    pack_size    INTEGER NOT NULL,
    winners      INTEGER NOT NULL,
    payout       INTEGER NOT NULL,            -- euros
    serial_key   BLOB    NOT NULL,            -- 32 bytes
    digest       BLOB    NOT NULL,            -- 32 bytes, game.Digest
    created_at   TEXT    NOT NULL,            -- UTC, 2006-01-02T15:04:05.000000000Z
    UNIQUE (game, number)
);

-- Packs: one row per pack of pack_size tickets; the tickets themselves.
--   hash   SHA-256 over the secret part (4 bytes big-endian) and the 14-byte
--          encoding of each of the pack's tickets, in order, so that verify
--          names the pack of a changed ticket;
--   prizes one byte per ticket in position order: 0 for a loser, else 1 + the
--          index of its prize in game.PrizeTable (1 = 50,000 €, …, 8 = 3 €);
--   codes  the tickets' game.Encode (14 bytes each) concatenated in position
--          order (2,800 bytes).
-- The serial is not stored: it is derived from the block and the position.
-- A row is about 3 KiB: the file has 16 KiB pages, so that five packs fill
-- a page (with 4 KiB pages only one would fit).
CREATE TABLE packs (
    id     INTEGER PRIMARY KEY,   -- blocks.first_pack + pack number
    hash   BLOB NOT NULL,
    prizes BLOB NOT NULL,
    codes  BLOB NOT NULL
);

-- Find by contents: the winning tickets of each block by the first 4 bytes
-- of their encoding (the roulette's winning numbers and first bet, 32 bits).
-- A block's winners, sorted by (key, position), are cut into chunks of about
-- 1,000 entries, never between two entries of one key; each chunk is a row
-- keyed by its block and its first key: id = blocks.id * 2^32 + first key.
-- entries holds 7 bytes per winner: the key (4 bytes big-endian) and the
-- position (3 bytes big-endian). A lookup reads, per block, the last chunk
-- whose first key is not above the key, and compares the candidates' whole
-- encodings in packs.
CREATE TABLE finder (
    id      INTEGER PRIMARY KEY,
    entries BLOB NOT NULL
);

-- The journal: append-only, each entry hashed with the previous entry's
-- hash (see internal/ledger/journal.go for the canonical text).
--   kind 'block': a block was generated (game, block, amount = payout, detail = digest hex)
--   kind 'claim': a payment (ticket, serial, game, block, position, amount, desk, operator, method)
--   kind 'void' : claim voids the claim entry; reason, desk, operator
CREATE TABLE journal (
    id       INTEGER PRIMARY KEY,
    kind     TEXT    NOT NULL CHECK (kind IN ('block', 'claim', 'void')),
    at       TEXT    NOT NULL,
    ticket   INTEGER,
    serial   TEXT    NOT NULL DEFAULT '',
    game     INTEGER NOT NULL DEFAULT 0,
    block    INTEGER NOT NULL DEFAULT 0,
    position INTEGER NOT NULL DEFAULT 0,
    amount   INTEGER NOT NULL DEFAULT 0,
    desk     TEXT    NOT NULL DEFAULT '',
    operator TEXT    NOT NULL DEFAULT '',
    method   TEXT    NOT NULL DEFAULT '',
    claim    INTEGER REFERENCES journal (id),
    reason   TEXT    NOT NULL DEFAULT '',
    detail   TEXT    NOT NULL DEFAULT '',
    hash     BLOB    NOT NULL
);
CREATE INDEX journal_by_ticket ON journal (ticket) WHERE ticket IS NOT NULL;
CREATE INDEX journal_by_claim ON journal (claim) WHERE claim IS NOT NULL;

-- Refused attempts: unknown serial or wrong secret part, a claim of a
-- losing ticket, a second claim.
CREATE TABLE refusals (
    id       INTEGER PRIMARY KEY,
    at       TEXT NOT NULL,
    reason   TEXT NOT NULL,   -- 'unknown-serial' | 'not-winner' | 'already-claimed'
    serial   TEXT NOT NULL,
    desk     TEXT NOT NULL DEFAULT '',
    operator TEXT NOT NULL DEFAULT '',
    detail   TEXT NOT NULL DEFAULT ''
);

-- Nothing of the record is changed in place or deleted.
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER packs_no_update BEFORE UPDATE ON packs
BEGIN SELECT RAISE(ABORT, 'tickets are never changed'); END;
CREATE TRIGGER packs_no_delete BEFORE DELETE ON packs
BEGIN SELECT RAISE(ABORT, 'tickets are never deleted'); END;
CREATE TRIGGER refusals_no_update BEFORE UPDATE ON refusals
BEGIN SELECT RAISE(ABORT, 'refused attempts are never changed'); END;
CREATE TRIGGER refusals_no_delete BEFORE DELETE ON refusals
BEGIN SELECT RAISE(ABORT, 'refused attempts are never deleted'); END;
CREATE TRIGGER blocks_no_update BEFORE UPDATE ON blocks
BEGIN SELECT RAISE(ABORT, 'blocks are never changed'); END;
CREATE TRIGGER blocks_no_delete BEFORE DELETE ON blocks
BEGIN SELECT RAISE(ABORT, 'blocks are never deleted'); END;

-- Convenience views for people reading the file with the sqlite3 tool.
CREATE VIEW active_claims AS
SELECT c.* FROM journal c
WHERE c.kind = 'claim'
  AND NOT EXISTS (SELECT 1 FROM journal v WHERE v.kind = 'void' AND v.claim = c.id);
