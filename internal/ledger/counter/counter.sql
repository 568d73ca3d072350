-- vegas-desk sealed counter ledger on SQLite, schema version 2 (PRAGMA
-- user_version = 2, PRAGMA application_id = 0x56474443 "VGDC"). Written
-- once by the back office (vegas-desk counter-ledger) for one offline
-- counter; the counter then only appends to its journal. On opening, the
-- file's sqlite_master must be exactly what these statements make, as for
-- a back-office ledger (schema.sql).
--
-- It holds what a ticket's full serial, or its full scratched contents,
-- unlock, and nothing from which a prize or a secret part can be read
-- without them: no serial key, no prize, no ticket in clear (see
-- internal/ledger/seal.go and the README, "Trust model").

-- What this ledger is, written at its issue (see internal/ledger/counter.go):
-- id, kind ('counter'), demo ('0'), created_at, back_office (the issuing
-- ledger's id), desk, payout_limit, identity_threshold, and seal: the text
-- the back office signed, which names the digest of every table below
-- written at the issue.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- The games of the sealed blocks, with their dates (as schema.sql).
CREATE TABLE games (
    code        INTEGER PRIMARY KEY CHECK (code BETWEEN 100 AND 999),
    name        TEXT    NOT NULL,
    price       INTEGER NOT NULL CHECK (price > 0),
    on_sale     TEXT    NOT NULL DEFAULT '',
    end_of_sale TEXT    NOT NULL DEFAULT '',
    deadline    TEXT    NOT NULL DEFAULT ''
);

-- The sealed blocks: the back office's rows without their serial key (id
-- and first_pack are the back office's, so that a ticket's global number
-- is the same in both ledgers).
CREATE TABLE blocks (
    id         INTEGER PRIMARY KEY,
    game       INTEGER NOT NULL REFERENCES games (code),
    number     INTEGER NOT NULL CHECK (number BETWEEN 1 AND 9999),
    first_pack INTEGER NOT NULL,
    tickets    INTEGER NOT NULL,
    pack_size  INTEGER NOT NULL,
    winners    INTEGER NOT NULL,
    payout     INTEGER NOT NULL,
    digest     BLOB    NOT NULL,
    created_at TEXT    NOT NULL,
    UNIQUE (game, number)
);

-- Serial records, one per ticket: 12 bytes of index then the ticket's
-- 14-byte encoding XORed with a pad, both from the serial (seal.go). A
-- block's records sorted by index are cut into rows of about 16,000 bytes
-- (one to a page), never between two records of one 4-byte index prefix;
-- id = blocks.id * 2^32 + the first record's prefix.
CREATE TABLE serials (
    id      INTEGER PRIMARY KEY,
    records BLOB NOT NULL
);

-- Contents records, one per winning ticket: 12 bytes of index then its
-- position and secret part XORed with a pad, both from the block and the
-- ticket's contents (seal.go); rows as for serials.
CREATE TABLE contents (
    id      INTEGER PRIMARY KEY,
    records BLOB NOT NULL
);

-- The packs of the sealed blocks that had left the stock at the issue, with
-- their state then (packs on sale are payable at every counter).
CREATE TABLE pack_states (
    block INTEGER NOT NULL REFERENCES blocks (id),
    pack  INTEGER NOT NULL,
    state TEXT    NOT NULL CHECK (state IN ('delivered', 'received', 'on-sale', 'settled',
                                            'returned', 'stolen', 'destroyed')),
    PRIMARY KEY (block, pack)
) WITHOUT ROWID;

-- The tickets of the sealed blocks that the back office had paid at the
-- issue (a payment not voided then), with that payment's number, time,
-- desk, operator and amount: the counter refuses them as already claimed.
-- A paid ticket is worth nothing to a thief.
CREATE TABLE paid_before (
    ticket   INTEGER PRIMARY KEY,
    block    INTEGER NOT NULL REFERENCES blocks (id),
    number   INTEGER NOT NULL,
    at       TEXT    NOT NULL,
    desk     TEXT    NOT NULL,
    operator TEXT    NOT NULL,
    amount   INTEGER NOT NULL
);

-- The back office's settings at the issue (identity_threshold).
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- The counter's journal: the columns (tables.Journal, written in place of
-- {{journal}}) and canonical text (internal/ledger/core/journal.go) of the
-- back office's, with the counter's kinds. Its first entry, 'issue', names
-- the digest of the seal; then the counter's payments, refused attempts and
-- referrals. A refusal or referral records the serial without its secret
-- part (GGG-BBBB-PPPPPPP): a stolen file must not give an unpaid winner's
-- serial away.
{{journal}}
CREATE INDEX journal_by_ticket ON journal (ticket) WHERE ticket IS NOT NULL;
CREATE INDEX journal_by_kind ON journal (kind, at);
CREATE UNIQUE INDEX journal_requests ON journal (desk, request) WHERE kind = 'claim' AND request <> '';

-- Kept: the tickets this counter paid, one row per ticket (tables.Paid).
{{paid}}

-- Winners' identities, recorded with a payment from the identity
-- threshold on (as schema.sql); they go home with the payments.
CREATE TABLE identities (
    claim      INTEGER PRIMARY KEY REFERENCES journal (id),
    name       TEXT NOT NULL,
    doc_type   TEXT NOT NULL,
    doc_number TEXT NOT NULL
);

-- Nothing of the record is changed in place or deleted.
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER paid_no_update BEFORE UPDATE ON paid
BEGIN SELECT RAISE(ABORT, 'a counter does not void'); END;
CREATE TRIGGER paid_no_delete BEFORE DELETE ON paid
BEGIN SELECT RAISE(ABORT, 'a counter does not void'); END;
CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta
BEGIN SELECT RAISE(ABORT, 'what a ledger is does not change'); END;
CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta
BEGIN SELECT RAISE(ABORT, 'what a ledger is does not change'); END;
CREATE TRIGGER games_no_update BEFORE UPDATE ON games
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER games_no_delete BEFORE DELETE ON games
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER blocks_no_update BEFORE UPDATE ON blocks
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER blocks_no_delete BEFORE DELETE ON blocks
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER serials_no_update BEFORE UPDATE ON serials
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER serials_no_delete BEFORE DELETE ON serials
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER contents_no_update BEFORE UPDATE ON contents
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER contents_no_delete BEFORE DELETE ON contents
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER pack_states_no_update BEFORE UPDATE ON pack_states
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER pack_states_no_delete BEFORE DELETE ON pack_states
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER paid_before_no_update BEFORE UPDATE ON paid_before
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER paid_before_no_delete BEFORE DELETE ON paid_before
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER settings_no_update BEFORE UPDATE ON settings
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER settings_no_delete BEFORE DELETE ON settings
BEGIN SELECT RAISE(ABORT, 'sealed'); END;
CREATE TRIGGER identities_no_update BEFORE UPDATE ON identities
BEGIN SELECT RAISE(ABORT, 'identities are never changed'); END;
CREATE TRIGGER identities_no_delete BEFORE DELETE ON identities
BEGIN SELECT RAISE(ABORT, 'identities are never deleted'); END;
