-- vegas-desk ledger on PostgreSQL (schema 8): the tables of schema.sql
-- (the SQLite ledger) in the schema "vegas", and the triggers that keep
-- the record append-only. Installed by the back office's role (the owner)
-- in one transaction. Nothing else is here: every question is decided in
-- Go (core's rule, the same code as a file's) by the back office's login
-- or a validation server's (vegas-desk serve, on that login); counters
-- hold no database login at all.
--
--   - the owner (the back office) owns every table; PUBLIC may use
--     nothing of the schema nor connect to the database (open.go);
--   - the journal is recorded, then chained (as a transparency log is): a
--     question records its entry in vegas.waiting, in its own
--     transaction, sharing nothing with other questions but the ticket's
--     row; the Go sequencer (sequencer.go, chain.go) then appends the
--     entries waiting to the hash chain, in the order it takes them, each
--     with its id, its number among its kind and its hash (core's
--     canonical text), under the row lock of vegas.chainer, one chain at
--     a time across processes.

CREATE SCHEMA vegas;
REVOKE ALL ON SCHEMA vegas FROM PUBLIC;

CREATE TABLE vegas.meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE vegas.games (
    code        integer PRIMARY KEY CHECK (code BETWEEN 100 AND 999),
    name        text    NOT NULL,
    price       integer NOT NULL CHECK (price > 0),
    on_sale     text    NOT NULL DEFAULT '',
    end_of_sale text    NOT NULL DEFAULT '',
    deadline    text    NOT NULL DEFAULT ''
);
INSERT INTO vegas.games (code, name, price) VALUES (531, 'VEGAS', 3);

CREATE TABLE vegas.blocks (
    id         bigint  PRIMARY KEY,
    game       integer NOT NULL REFERENCES vegas.games (code),
    number     integer NOT NULL CHECK (number BETWEEN 1 AND 9999),
    first_pack bigint  NOT NULL,
    tickets    integer NOT NULL,
    pack_size  integer NOT NULL,
    winners    integer NOT NULL,
    payout     bigint  NOT NULL,
    serial_key bytea   NOT NULL,
    digest     bytea   NOT NULL,
    created_at text    NOT NULL,
    UNIQUE (game, number)
);

CREATE TABLE vegas.packs (
    id     bigint PRIMARY KEY,
    hash   bytea  NOT NULL,
    prizes bytea  NOT NULL,
    codes  bytea  NOT NULL
);

CREATE TABLE vegas.finder (
    id      bigint PRIMARY KEY,
    entries bytea  NOT NULL
);

-- The journal: the columns of internal/ledger/tables (tables.Journal, declared
-- there once for every engine and written in place of {{journal}}), and seq:
-- its record's number, as it waited (vegas.waiting), outside the hash (NULL
-- for an entry appended directly).
{{journal}}
CREATE INDEX journal_by_ticket ON vegas.journal (ticket) WHERE ticket IS NOT NULL;
CREATE INDEX journal_by_ref ON vegas.journal (ref) WHERE ref IS NOT NULL;
CREATE INDEX journal_by_desk ON vegas.journal (desk, kind, at);
CREATE UNIQUE INDEX journal_requests ON vegas.journal (desk, request) WHERE kind = 'claim' AND request <> '';
CREATE INDEX journal_by_request ON vegas.journal (desk, request) WHERE request <> '';

-- A ticket's row here is its payment, once: a claim inserts it (ON
-- CONFLICT: a second claim of the ticket finds it), written once. claim
-- is its entry's id, or -seq, its record's number: a question's payment,
-- recorded before it has an id (vegas.waiting), then chained with its seq
-- (journal.seq); the row is not written again (tables.Paid).
{{paid}}

CREATE TABLE vegas.pack_states (
    block bigint  NOT NULL REFERENCES vegas.blocks (id),
    pack  integer NOT NULL,
    state text    NOT NULL CHECK (state IN ('delivered', 'received', 'on-sale', 'settled',
                                            'returned', 'stolen', 'destroyed')),
    desk  text    NOT NULL,
    entry bigint  NOT NULL, -- its last move's entry (-seq while it waits)
    PRIMARY KEY (block, pack)
);
CREATE INDEX pack_states_by_entry ON vegas.pack_states (entry);

CREATE TABLE vegas.desks (
    id           text    PRIMARY KEY,
    payout_limit integer NOT NULL CHECK (payout_limit >= 0),
    disabled     integer NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    locked_until text    NOT NULL DEFAULT '',
    unlocked_at  text    NOT NULL DEFAULT '',
    guesses      text    NOT NULL DEFAULT '' -- the lock-out's count (schema.sql)
);

-- The certificates each desk accepts (schema.sql's desk_certs).
CREATE TABLE vegas.desk_certs (
    desk      text NOT NULL REFERENCES vegas.desks (id),
    serial    text NOT NULL,
    not_after text NOT NULL,
    PRIMARY KEY (desk, serial)
);

CREATE TABLE vegas.settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE vegas.identities (
    claim      bigint PRIMARY KEY REFERENCES vegas.journal (id),
    name       text   NOT NULL,
    doc_type   text   NOT NULL,
    doc_number text   NOT NULL,
    skeleton   text   NOT NULL DEFAULT '' -- the name's confusable skeleton (schema.sql)
);

-- The entries recorded and not yet chained (tables.Waiting, written in
-- place of {{waiting}}): the journal's columns but those the chain gives
-- (id, number, hash), the time they were recorded (the server's clock:
-- how long they wait), and a payment's winner, whom the chainer writes
-- into vegas.identities. ref names a chained entry (or, recorded before
-- schema 8, -seq a waiting one).
CREATE SEQUENCE vegas.waiting_seq;
{{waiting}}
CREATE UNIQUE INDEX waiting_requests ON vegas.waiting (desk, request) WHERE kind = 'claim' AND request <> '';
CREATE INDEX waiting_by_request ON vegas.waiting (desk, request) WHERE request <> '';

-- The request ids of the claims of each desk: a claim with an id locks
-- its row (inserting it the first time) before it looks for the id's
-- prior use, so that two claims with one id, at once, are asked one after
-- the other; paid once one paid a ticket (the journal holds one payment
-- per desk and id).
CREATE TABLE vegas.requests (
    desk    text    NOT NULL,
    request text    NOT NULL,
    paid    boolean NOT NULL DEFAULT false,
    PRIMARY KEY (desk, request)
);

-- The chainer's lock: the one row of this table, which a chain (and a
-- back office's write) locks.
CREATE TABLE vegas.chainer (
    id integer PRIMARY KEY CHECK (id = 1)
);
INSERT INTO vegas.chainer VALUES (1);

-- Nothing of the record is changed in place, deleted or truncated: the
-- only PL/pgSQL of the ledger, a trigger that refuses, so that a mistake
-- or a script run as the owner cannot rewrite what the journal's chain
-- and verify vouch for (the chain would still show it; this stops it).
CREATE FUNCTION vegas.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'VD010';
END $$;
CREATE TRIGGER journal_no_change BEFORE UPDATE OR DELETE ON vegas.journal
    FOR EACH ROW EXECUTE FUNCTION vegas.refuse_change('the journal is append-only');
CREATE TRIGGER journal_no_truncate BEFORE TRUNCATE ON vegas.journal
    FOR EACH STATEMENT EXECUTE FUNCTION vegas.refuse_change('the journal is append-only');
CREATE TRIGGER packs_no_change BEFORE UPDATE OR DELETE ON vegas.packs
    FOR EACH ROW EXECUTE FUNCTION vegas.refuse_change('tickets are never changed');
CREATE TRIGGER packs_no_truncate BEFORE TRUNCATE ON vegas.packs
    FOR EACH STATEMENT EXECUTE FUNCTION vegas.refuse_change('tickets are never deleted');
CREATE TRIGGER blocks_no_change BEFORE UPDATE OR DELETE ON vegas.blocks
    FOR EACH ROW EXECUTE FUNCTION vegas.refuse_change('blocks are never changed');
CREATE TRIGGER blocks_no_truncate BEFORE TRUNCATE ON vegas.blocks
    FOR EACH STATEMENT EXECUTE FUNCTION vegas.refuse_change('blocks are never deleted');
CREATE TRIGGER finder_no_change BEFORE UPDATE OR DELETE ON vegas.finder
    FOR EACH ROW EXECUTE FUNCTION vegas.refuse_change('the finder is never changed');
CREATE TRIGGER meta_no_change BEFORE UPDATE OR DELETE ON vegas.meta
    FOR EACH ROW EXECUTE FUNCTION vegas.refuse_change('what a ledger is does not change');
CREATE TRIGGER identities_no_change BEFORE UPDATE OR DELETE ON vegas.identities
    FOR EACH ROW EXECUTE FUNCTION vegas.refuse_change('identities are never changed');
