-- vegas-desk ledger on PostgreSQL (layout 3): the tables of schema.sql
-- (the SQLite ledger) in the schema "vegas", the journal's chain, and the
-- rule's helpers; counters.sql adds what counters may call. Installed by
-- the back office's role (the owner) in one transaction; Schema
-- (constants.go) replaces {{db}} with the database's name, and each other
-- {{name}} with the rule's constant in Go (Constants): core's, one source.
--
-- Who may do what is PostgreSQL's to enforce:
--   - the owner (the back office) owns every table and function;
--   - each counter logs in with its own role, a member of the group role
--     vd_{{db}}_counters, which may read and write no table: it may only
--     call the procedures and functions counters.sql grants it, which take
--     the counter's desk from its login (session_user) and enforce its
--     payout limit and lock-out;
--   - the journal is recorded, then chained (as a transparency log is): a
--     counter's question records its entry in vegas.waiting, in its own
--     transaction, sharing nothing with other counters but the ticket's
--     row; the chainer (vegas.chain_waiting) then appends the entries
--     waiting to the hash chain, in the order it takes them, each with its
--     id, its number among its kind and its hash, under a lock only it
--     takes (the row of vegas.chainer, which no counter can reach, and
--     which a counter's procedure takes only between two commits of its
--     own). The canonical text an entry's hash covers is unchanged.

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

CREATE TABLE vegas.journal (
    id         bigint  PRIMARY KEY,
    kind       text    NOT NULL CHECK (kind IN ('block', 'claim', 'void', 'refusal', 'packs',
                                               'emission', 'desk', 'referral', 'setting', 'import', 'checkpoint')),
    at         text    NOT NULL,
    number     bigint  NOT NULL,
    ticket     bigint,
    serial     text    NOT NULL DEFAULT '',
    game       integer NOT NULL DEFAULT 0,
    block      integer NOT NULL DEFAULT 0,
    position   integer NOT NULL DEFAULT 0,
    pack_first integer NOT NULL DEFAULT 0,
    pack_last  integer NOT NULL DEFAULT 0,
    state      text    NOT NULL DEFAULT '',
    amount     bigint  NOT NULL DEFAULT 0,
    desk       text    NOT NULL DEFAULT '',
    operator   text    NOT NULL DEFAULT '',
    method     text    NOT NULL DEFAULT '',
    ref        bigint  REFERENCES vegas.journal (id),
    request    text    NOT NULL DEFAULT '',
    reason     text    NOT NULL DEFAULT '',
    detail     text    NOT NULL DEFAULT '',
    hash       bytea   NOT NULL,
    seq        bigint  UNIQUE, -- the waiting entry it was (vegas.waiting), outside the hash
    UNIQUE (kind, number)
);
CREATE INDEX journal_by_ticket ON vegas.journal (ticket) WHERE ticket IS NOT NULL;
CREATE INDEX journal_by_ref ON vegas.journal (ref) WHERE ref IS NOT NULL;
CREATE INDEX journal_by_desk ON vegas.journal (desk, kind, at);
CREATE INDEX journal_by_kind ON vegas.journal (kind, at);
CREATE UNIQUE INDEX journal_requests ON vegas.journal (desk, request) WHERE kind = 'claim' AND request <> '';
CREATE INDEX journal_by_request ON vegas.journal (desk, request) WHERE request <> '';

-- A ticket's row here is its payment, once: a claim inserts it (ON
-- CONFLICT: a second claim of the ticket finds it). claim is the claim's
-- entry, or while the entry waits to be chained, -seq of its waiting row.
CREATE TABLE vegas.paid (
    ticket bigint PRIMARY KEY,
    claim  bigint NOT NULL UNIQUE
);

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
    role         text    UNIQUE,
    payout_limit integer NOT NULL CHECK (payout_limit >= 0),
    disabled     integer NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    locked_until text    NOT NULL DEFAULT '',
    unlocked_at  text    NOT NULL DEFAULT ''
);

CREATE TABLE vegas.settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE vegas.identities (
    claim      bigint PRIMARY KEY REFERENCES vegas.journal (id),
    name       text   NOT NULL,
    doc_type   text   NOT NULL,
    doc_number text   NOT NULL
);

-- One row per login whose questions recorded something: vegas.durable
-- writes it, so that its commit waits for the WAL to be flushed.
CREATE TABLE vegas.flushes (
    login text   PRIMARY KEY,
    n     bigint NOT NULL
);

-- The entries recorded and not yet chained: the journal's columns but
-- those the chain gives (id, number, hash), the time they were recorded
-- (the server's clock: how long they wait), and a payment's winner, whom
-- the chainer writes into vegas.identities. ref names a chained entry, or
-- -seq a waiting one.
CREATE SEQUENCE vegas.waiting_seq;
CREATE TABLE vegas.waiting (
    seq        bigint  PRIMARY KEY DEFAULT nextval('vegas.waiting_seq'),
    recorded   timestamptz NOT NULL DEFAULT clock_timestamp(),
    kind       text    NOT NULL,
    at         text    NOT NULL,
    ticket     bigint,
    serial     text    NOT NULL DEFAULT '',
    game       integer NOT NULL DEFAULT 0,
    block      integer NOT NULL DEFAULT 0,
    position   integer NOT NULL DEFAULT 0,
    pack_first integer NOT NULL DEFAULT 0,
    pack_last  integer NOT NULL DEFAULT 0,
    state      text    NOT NULL DEFAULT '',
    amount     bigint  NOT NULL DEFAULT 0,
    desk       text    NOT NULL DEFAULT '',
    operator   text    NOT NULL DEFAULT '',
    method     text    NOT NULL DEFAULT '',
    ref        bigint,
    request    text    NOT NULL DEFAULT '',
    reason     text    NOT NULL DEFAULT '',
    detail     text    NOT NULL DEFAULT '',
    name       text,
    doc_type   text,
    doc_number text
);
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

-- The chainer's lock: the one row of this table, which only the chainer
-- locks (a counter can neither read it nor lock it).
CREATE TABLE vegas.chainer (
    id integer PRIMARY KEY CHECK (id = 1)
);
INSERT INTO vegas.chainer VALUES (1);

-- When the counters' sessions whose transaction began more than
-- reap_after ago were last ended (vegas.reap): a row of its own, which
-- any question may update without waiting for the chainer's lock.
CREATE TABLE vegas.reaper (
    id         integer     PRIMARY KEY CHECK (id = 1),
    reap_after interval    NOT NULL DEFAULT '2 minutes',
    reaped     timestamptz NOT NULL DEFAULT '-infinity'
);
INSERT INTO vegas.reaper VALUES (1);

-- Nothing of the record is changed in place, deleted or truncated.
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

-- The small helpers below are PL/pgSQL, not SQL functions: called from
-- PL/pgSQL, a SQL function is planned again at each call. The inner
-- functions have no search_path of their own (a SET clause costs each
-- call): none is granted to counters, and each runs under a SECURITY
-- DEFINER function's fixed search_path, or the owner's; they name this
-- schema's objects in full.

-- The time of an entry: UTC, fixed width, as the Go side writes it.
CREATE FUNCTION vegas.now_text() RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RETURN to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"000Z"');
END $$;

-- The canonical text an entry's hash covers (journal.go has the same): one
-- line per column, integers in decimal, a missing reference as null, a
-- string as its length in bytes, ':' and its bytes; last the previous
-- entry's hash in hex.
CREATE FUNCTION vegas.canonical(e vegas.journal, prev bytea) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN format(E'vegas-desk journal 2\nid=%s\nkind=%s:%s\nat=%s:%s\nnumber=%s\nticket=%s\nserial=%s:%s\ngame=%s\nblock=%s\nposition=%s\npack_first=%s\npack_last=%s\nstate=%s:%s\namount=%s\ndesk=%s:%s\noperator=%s:%s\nmethod=%s:%s\nref=%s\nrequest=%s:%s\nreason=%s:%s\ndetail=%s:%s\nprev=%s\n',
        e.id, octet_length(e.kind), e.kind, octet_length(e.at), e.at, e.number, coalesce(e.ticket::text, 'null'),
        octet_length(e.serial), e.serial, e.game, e.block, e.position, e.pack_first, e.pack_last,
        octet_length(e.state), e.state, e.amount, octet_length(e.desk), e.desk, octet_length(e.operator), e.operator,
        octet_length(e.method), e.method, coalesce(e.ref::text, 'null'), octet_length(e.request), e.request,
        octet_length(e.reason), e.reason, octet_length(e.detail), e.detail, encode(prev, 'hex'));
END $$;

-- record records an entry, to be chained: its row of vegas.waiting, its
-- time taken now unless the back office gives one.
CREATE FUNCTION vegas.record(p_kind text, p_at text, p_ticket bigint, p_serial text, p_game integer,
    p_block integer, p_position integer, p_pack_first integer, p_pack_last integer, p_state text,
    p_amount bigint, p_desk text, p_operator text, p_method text, p_ref bigint, p_request text,
    p_reason text, p_detail text) RETURNS vegas.waiting LANGUAGE plpgsql AS $$
DECLARE
    w vegas.waiting;
BEGIN
    INSERT INTO vegas.waiting (kind, at, ticket, serial, game, block, position, pack_first, pack_last, state,
        amount, desk, operator, method, ref, request, reason, detail)
    VALUES (p_kind, coalesce(p_at, vegas.now_text()), p_ticket, coalesce(p_serial, ''), coalesce(p_game, 0),
        coalesce(p_block, 0), coalesce(p_position, 0), coalesce(p_pack_first, 0), coalesce(p_pack_last, 0),
        coalesce(p_state, ''), coalesce(p_amount, 0), coalesce(p_desk, ''), coalesce(p_operator, ''),
        coalesce(p_method, ''), p_ref, coalesce(p_request, ''), coalesce(p_reason, ''), coalesce(p_detail, ''))
    RETURNING * INTO w;
    RETURN w;
END $$;

-- chain_waiting appends the entries waiting (those committed) to the
-- chain, in the order of their records: each gets its id (after the last
-- entry), its number among its kind and its hash chained to the previous
-- entry, and what refers to it waiting (a payment's paid row, a pack's
-- state, a later entry's ref) its id; a payment's winner goes to
-- vegas.identities. The caller holds the chainer's lock. It returns how
-- many entries it chained.
CREATE FUNCTION vegas.chain_waiting() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    w     vegas.waiting;
    e     vegas.journal;
    prev  bytea;
    last  bigint;
    kinds text[] := '{}';
    nums  bigint[] := '{}';
    k     integer;
    done  bigint[] := '{}';
BEGIN
    SELECT j.id, j.hash INTO last, prev FROM vegas.journal j ORDER BY j.id DESC LIMIT 1;
    last := coalesce(last, 0);
    prev := coalesce(prev, ''::bytea);
    FOR w IN SELECT * FROM vegas.waiting ORDER BY seq LOOP
        e.id := last + 1;
        k := array_position(kinds, w.kind);
        IF k IS NULL THEN
            kinds := kinds || w.kind;
            nums := nums || (SELECT coalesce(max(j.number), 0) FROM vegas.journal j WHERE j.kind = w.kind);
            k := cardinality(kinds);
        END IF;
        nums[k] := nums[k] + 1;
        e.number := nums[k];
        e.kind := w.kind; e.at := w.at; e.ticket := w.ticket; e.serial := w.serial; e.game := w.game;
        e.block := w.block; e.position := w.position; e.pack_first := w.pack_first; e.pack_last := w.pack_last;
        e.state := w.state; e.amount := w.amount; e.desk := w.desk; e.operator := w.operator; e.method := w.method;
        e.ref := w.ref;
        IF w.ref < 0 THEN
            SELECT j.id INTO e.ref FROM vegas.journal j WHERE j.seq = -w.ref;
        END IF;
        e.request := w.request; e.reason := w.reason; e.detail := w.detail; e.seq := w.seq;
        e.hash := sha256(convert_to(vegas.canonical(e, prev), 'UTF8'));
        INSERT INTO vegas.journal VALUES (e.*);
        IF w.kind = 'claim' THEN
            UPDATE vegas.paid SET claim = e.id WHERE claim = -w.seq;
            IF w.name IS NOT NULL THEN
                INSERT INTO vegas.identities (claim, name, doc_type, doc_number) VALUES (e.id, w.name, w.doc_type, w.doc_number);
            END IF;
        ELSIF w.kind = 'packs' THEN
            UPDATE vegas.pack_states SET entry = e.id WHERE entry = -w.seq;
        END IF;
        done := done || w.seq;
        last := e.id;
        prev := e.hash;
    END LOOP;
    DELETE FROM vegas.waiting WHERE seq = ANY (done);
    RETURN cardinality(done);
END $$;

-- append is the back office's: in its write transaction, it takes the
-- chainer's lock (waiting for a chain in progress), chains what waits, and
-- appends its entry after them. The lock is held until the back office's
-- transaction ends.
CREATE FUNCTION vegas.append(p_kind text, p_at text, p_ticket bigint, p_serial text, p_game integer,
    p_block integer, p_position integer, p_pack_first integer, p_pack_last integer, p_state text,
    p_amount bigint, p_desk text, p_operator text, p_method text, p_ref bigint, p_request text,
    p_reason text, p_detail text) RETURNS vegas.journal LANGUAGE plpgsql AS $$
DECLARE
    w vegas.waiting;
    e vegas.journal;
BEGIN
    PERFORM 1 FROM vegas.chainer FOR UPDATE;
    w := vegas.record(p_kind, p_at, p_ticket, p_serial, p_game, p_block, p_position, p_pack_first, p_pack_last,
        p_state, p_amount, p_desk, p_operator, p_method, p_ref, p_request, p_reason, p_detail);
    PERFORM vegas.chain_waiting();
    SELECT * INTO e FROM vegas.journal WHERE seq = w.seq;
    RETURN e;
END $$;

-- The secret part of a serial (game.SerialKey.Secret): the first 8 bytes of
-- SHA-256(key ‖ position as 4 bytes big-endian), big-endian, modulo 10^16.
CREATE FUNCTION vegas.secret(k bytea, pos integer) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v bigint := ('x' || encode(substr(sha256(k || int4send(pos)), 1, 8), 'hex'))::bit(64)::bigint;
BEGIN
    IF v >= 0 THEN
        RETURN v % 10000000000000000;
    END IF;
    -- The 8 bytes as an unsigned number: v + 2^64, and 2^64 mod 10^16 is
    -- 6744073709551616.
    RETURN (v % 10000000000000000 + 10000000000000000 + 6744073709551616) % 10000000000000000;
END $$;

-- The Damm check digit of a string of digits (game's, the same table).
CREATE FUNCTION vegas.damm(d text) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    t integer[] := ARRAY[0,3,1,7,5,9,8,6,4,2, 7,0,9,2,1,5,4,8,6,3, 4,2,0,6,8,7,1,3,5,9,
                         1,7,5,0,9,8,3,4,2,6, 6,1,2,3,0,4,5,9,7,8, 3,6,7,4,2,0,9,5,8,1,
                         5,8,6,9,7,2,0,1,3,4, 8,9,4,5,3,6,2,0,1,7, 9,4,3,8,6,1,7,2,0,5,
                         2,5,8,1,4,3,6,7,9,0];
    c integer := 0;
BEGIN
    IF d IS NULL THEN
        RETURN NULL;
    END IF;
    FOR i IN 1..length(d) LOOP
        c := t[c * 10 + ascii(substr(d, i, 1)) - 48 + 1];
    END LOOP;
    RETURN c;
END $$;

-- The serial's text (game.Serial.String), Damm check digit included.
CREATE FUNCTION vegas.serial_text(p_game integer, p_block integer, p_position integer, p_secret bigint)
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    d text := lpad(p_game::text, 3, '0') || lpad(p_block::text, 4, '0') || lpad(p_position::text, 7, '0')
              || lpad(p_secret::text, 16, '0');
BEGIN
    RETURN substr(d, 1, 3) || '-' || substr(d, 4, 4) || '-' || substr(d, 8, 7) || '-' || substr(d, 15, 4) || '-'
        || substr(d, 19, 4) || '-' || substr(d, 23, 4) || '-' || substr(d, 27, 4) || '-' || vegas.damm(d);
END $$;

-- The prize of a stored prize byte.
CREATE FUNCTION vegas.prize_of(b integer) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN CASE WHEN b = 0 THEN 0 ELSE ({{prizes}})[b] END;
END $$;

-- A serial's parts as a counter's call gives them: none missing, each in
-- its range (game.Serial); otherwise the call is refused before anything
-- is looked up. (A missing secret part must never compare as unknown
-- rather than wrong: NULL <> x is not true.)
CREATE FUNCTION vegas.check_serial(p_game integer, p_block integer, p_position integer, p_secret bigint)
RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_game IS NULL OR p_block IS NULL OR p_position IS NULL OR p_secret IS NULL
       OR p_game NOT BETWEEN 100 AND 999 OR p_block NOT BETWEEN 1 AND 9999
       OR p_position NOT BETWEEN 0 AND 9999999 OR p_secret NOT BETWEEN 0 AND 9999999999999999 THEN
        RAISE EXCEPTION 'a serial has a game (100–999), a block (1–9999), a position (0–9999999) and a secret part (16 digits)'
            USING ERRCODE = 'VD010';
    END IF;
END $$;

-- Text a call records (operator, request id, desk; a winner's identity):
-- at most p_max characters (core.MaxText, core.MaxIdentity), for the
-- append-only journal's sake.
CREATE FUNCTION vegas.check_text(p_field text, p_value text, p_max integer) RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF length(p_value) > p_max THEN
        RAISE EXCEPTION '%: at most % characters', p_field, p_max USING ERRCODE = 'VD011';
    END IF;
END $$;

-- A text trimmed of every Unicode white space, as core.Blank trims it
-- (the characters are core.Spaces): '' for a blank or missing text.
CREATE FUNCTION vegas.trimmed(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN btrim(coalesce(t, ''), {{spaces}});
END $$;

-- A payout limit lowered by the one asked (core.Limit.Lower): NULL is no
-- limit, above every number.
CREATE FUNCTION vegas.lower_limit(p_limit integer, p_asked integer) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_limit IS NULL THEN
        RETURN p_asked;
    ELSIF p_asked IS NULL THEN
        RETURN p_limit;
    END IF;
    RETURN least(p_limit, p_asked);
END $$;

-- What a counter may know of a ticket it holds, found by its block and
-- position once its secret part matched.
CREATE TYPE vegas.facts AS (
    block_id   bigint,
    ticket     bigint,
    prize      integer,
    code       bytea,
    pack_state text,
    paid_claim bigint
);

CREATE FUNCTION vegas.facts_at(b vegas.blocks, p_position integer) RETURNS vegas.facts LANGUAGE plpgsql STABLE AS $$
DECLARE
    f   vegas.facts;
    off integer := p_position % b.pack_size;
BEGIN
    f.block_id := b.id;
    f.ticket := b.first_pack * b.pack_size + p_position;
    SELECT vegas.prize_of(get_byte(p.prizes, off)), substr(p.codes, off * 14 + 1, 14) INTO f.prize, f.code
        FROM vegas.packs p WHERE p.id = b.first_pack + p_position / b.pack_size;
    SELECT s.state INTO f.pack_state FROM vegas.pack_states s WHERE s.block = b.id AND s.pack = p_position / b.pack_size;
    SELECT claim INTO f.paid_claim FROM vegas.paid WHERE ticket = f.ticket;
    RETURN f;
END $$;

-- The verdict on a ticket at a desk at a time, in this order (rules.go has
-- the same): before the on-sale date, after the deadline, a stolen pack, a
-- pack not on sale, a loser, already paid, above the limit, identity needed.
CREATE FUNCTION vegas.verdict(f vegas.facts, g vegas.games, p_at text, p_limit integer, p_identity boolean)
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
    threshold integer := coalesce((SELECT value::integer FROM vegas.settings WHERE key = 'identity_threshold'), {{identity_threshold}});
BEGIN
    IF g.on_sale <> '' AND p_at < g.on_sale THEN RETURN 'not-yet-on-sale'; END IF;
    IF g.deadline <> '' AND p_at > g.deadline THEN RETURN 'expired'; END IF;
    IF f.pack_state = 'stolen' THEN RETURN 'stolen'; END IF;
    IF f.pack_state IS NULL OR f.pack_state NOT IN ('on-sale', 'settled') THEN RETURN 'not-activated'; END IF;
    IF f.prize = 0 THEN RETURN 'not-winner'; END IF;
    IF f.paid_claim IS NOT NULL THEN RETURN 'already-claimed'; END IF;
    IF p_limit IS NOT NULL AND f.prize > p_limit THEN RETURN 'over-limit'; END IF;
    IF f.prize >= threshold AND NOT p_identity THEN RETURN 'identity-required'; END IF;
    RETURN 'payable';
END $$;

-- Instants as text (UTC, fixed width) and back.
CREATE FUNCTION vegas.instant(t text) RETURNS timestamp LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN t::timestamptz AT TIME ZONE 'UTC';
END $$;
CREATE FUNCTION vegas.instant_text(t timestamp) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS.US"000Z"');
END $$;

-- The answer of lookup, find, claim and a counter's move of packs. status
-- is 'payable' or a verdict of vegas.verdict, or 'paid' (the claim was
-- recorded, or is the first answer to this request id), 'voided',
-- 'unknown-serial', 'unknown-contents', 'locked', 'moved'. The ticket's
-- columns are empty for an unknown serial and when locked. seq is the
-- entry the question recorded while it waits to be chained (then entry,
-- or claim_entry for a payment, is its id); chain_ms how long it waited.
CREATE TYPE vegas.answer AS (
    status       text,
    game         integer,
    block        integer,
    position     integer,
    secret       bigint,
    prize        integer,
    code         bytea,
    pack_state   text,
    digest       bytea,
    created_at   text,
    claim_entry  bigint,   -- the paid claim, or the claim just made (0 while it waits)
    claim_number bigint,
    claim_at     text,
    claim_amount bigint,
    claim_desk   text,
    claim_operator text,
    claim_method text,
    claim_hash   bytea,
    entry        bigint,   -- the refusal, referral or move recorded
    until        text,     -- lock-out end, on-sale date or deadline
    void_at      text,     -- 'voided': the void of the payment
    void_reason  text,
    voided_by    text,
    void_desk    text,
    seq          bigint,
    recorded     timestamptz,
    chain_ms     double precision,
    flushed      boolean   -- its commit waited for the disk (chain_answer)
);

-- claim_of fills in a's payment: the claim entry e.
CREATE FUNCTION vegas.claim_of(a vegas.answer, e vegas.journal) RETURNS vegas.answer LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    a.claim_entry := e.id; a.claim_number := e.number; a.claim_at := e.at; a.claim_amount := e.amount;
    a.claim_desk := e.desk; a.claim_operator := e.operator; a.claim_method := e.method; a.claim_hash := e.hash;
    RETURN a;
END $$;

-- paid_claim is the payment a paid row names: its claim entry, or the
-- claim still waiting to be chained (id 0, number 0, no hash).
CREATE FUNCTION vegas.paid_claim(p_claim bigint) RETURNS vegas.journal LANGUAGE plpgsql STABLE AS $$
DECLARE
    e vegas.journal;
BEGIN
    IF p_claim > 0 THEN
        SELECT * INTO e FROM vegas.journal WHERE id = p_claim;
    ELSE
        SELECT 0, w.kind, w.at, 0, w.ticket, w.serial, w.game, w.block, w.position, w.pack_first, w.pack_last,
            w.state, w.amount, w.desk, w.operator, w.method, NULL, w.request, w.reason, w.detail, NULL, w.seq
            INTO e FROM vegas.waiting w WHERE w.seq = -p_claim;
    END IF;
    RETURN e;
END $$;

CREATE FUNCTION vegas.answer_of(p_status text, b vegas.blocks, p_position integer, p_secret bigint, f vegas.facts, g vegas.games)
RETURNS vegas.answer LANGUAGE plpgsql STABLE AS $$
DECLARE
    a vegas.answer;
BEGIN
    a.status := p_status;
    a.game := b.game; a.block := b.number; a.position := p_position;
    a.secret := p_secret;
    a.prize := f.prize; a.code := f.code; a.pack_state := coalesce(f.pack_state, 'stock');
    a.digest := b.digest; a.created_at := b.created_at;
    IF f.paid_claim IS NOT NULL THEN
        a := vegas.claim_of(a, vegas.paid_claim(f.paid_claim));
    END IF;
    IF p_status = 'not-yet-on-sale' THEN a.until := g.on_sale; END IF;
    IF p_status = 'expired' THEN a.until := g.deadline; END IF;
    RETURN a;
END $$;
