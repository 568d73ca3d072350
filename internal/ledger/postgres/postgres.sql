-- vegas-desk ledger on PostgreSQL, schema version 2: the tables of
-- schema.sql (the SQLite ledger) in the schema "vegas", and the functions
-- through which counters reach them. Installed by the back office's role
-- (the owner) in one transaction; Schema (constants.go) replaces {{db}}
-- with the database's name, and each other {{name}} with the rule's
-- constant in Go (Constants): core's, one source.
--
-- Who may do what is PostgreSQL's to enforce:
--   - the owner (the back office) owns every table and function;
--   - each counter logs in with its own role, a member of the group role
--     vd_{{db}}_counters, which may read and write no table: it may only
--     call the SECURITY DEFINER functions granted below, which run with a
--     fixed search_path, take the counter's desk from its login
--     (session_user) and enforce its payout limit and lock-out;
--   - every journal entry is appended by vegas.append, under one lock (a
--     SHARE ROW EXCLUSIVE lock of vegas.journal, which a counter has no
--     right to take), so the hash chain stays one line whoever writes.

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
    UNIQUE (kind, number)
);
CREATE INDEX journal_by_ticket ON vegas.journal (ticket) WHERE ticket IS NOT NULL;
CREATE INDEX journal_by_ref ON vegas.journal (ref) WHERE ref IS NOT NULL;
CREATE INDEX journal_by_desk ON vegas.journal (desk, kind, at);
CREATE INDEX journal_by_kind ON vegas.journal (kind, at);
CREATE UNIQUE INDEX journal_requests ON vegas.journal (desk, request) WHERE kind = 'claim' AND request <> '';

CREATE TABLE vegas.paid (
    ticket bigint PRIMARY KEY,
    claim  bigint NOT NULL UNIQUE REFERENCES vegas.journal (id)
);

CREATE TABLE vegas.pack_states (
    block bigint  NOT NULL REFERENCES vegas.blocks (id),
    pack  integer NOT NULL,
    state text    NOT NULL CHECK (state IN ('delivered', 'received', 'on-sale', 'settled',
                                            'returned', 'stolen', 'destroyed')),
    desk  text    NOT NULL,
    entry bigint  NOT NULL REFERENCES vegas.journal (id),
    PRIMARY KEY (block, pack)
);

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

-- One row per login that claims: vegas.durable writes it, so that its
-- commit waits for the WAL to be flushed (see vegas.claim).
CREATE TABLE vegas.flushes (
    login text   PRIMARY KEY,
    n     bigint NOT NULL
);

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
-- PL/pgSQL, a SQL function is planned again at each call, and the claims
-- of every counter wait for them under the journal's lock.

-- The time of an entry: UTC, fixed width, as the Go side writes it.
CREATE FUNCTION vegas.now_text() RETURNS text LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"000Z"');
END $$;

-- The canonical text an entry's hash covers (journal.go has the same): one
-- line per column, integers in decimal, a missing reference as null, a
-- string as its length in bytes, ':' and its bytes; last the previous
-- entry's hash in hex.
CREATE FUNCTION vegas.canonical(e vegas.journal, prev bytea) RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN format(E'vegas-desk journal 2\nid=%s\nkind=%s:%s\nat=%s:%s\nnumber=%s\nticket=%s\nserial=%s:%s\ngame=%s\nblock=%s\nposition=%s\npack_first=%s\npack_last=%s\nstate=%s:%s\namount=%s\ndesk=%s:%s\noperator=%s:%s\nmethod=%s:%s\nref=%s\nrequest=%s:%s\nreason=%s:%s\ndetail=%s:%s\nprev=%s\n',
        e.id, octet_length(e.kind), e.kind, octet_length(e.at), e.at, e.number, coalesce(e.ticket::text, 'null'),
        octet_length(e.serial), e.serial, e.game, e.block, e.position, e.pack_first, e.pack_last,
        octet_length(e.state), e.state, e.amount, octet_length(e.desk), e.desk, octet_length(e.operator), e.operator,
        octet_length(e.method), e.method, coalesce(e.ref::text, 'null'), octet_length(e.request), e.request,
        octet_length(e.reason), e.reason, octet_length(e.detail), e.detail, encode(prev, 'hex'));
END $$;

-- append adds an entry after the last one, under the journal's lock: its
-- id, its number among its kind, its time (taken under the lock, unless the
-- back office gives one) and its hash chained to the previous entry.
CREATE FUNCTION vegas.append(p_kind text, p_at text, p_ticket bigint, p_serial text, p_game integer,
    p_block integer, p_position integer, p_pack_first integer, p_pack_last integer, p_state text,
    p_amount bigint, p_desk text, p_operator text, p_method text, p_ref bigint, p_request text,
    p_reason text, p_detail text) RETURNS vegas.journal LANGUAGE plpgsql
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    e    vegas.journal;
    prev bytea;
BEGIN
    LOCK TABLE vegas.journal IN SHARE ROW EXCLUSIVE MODE;
    SELECT j.id, j.hash INTO e.id, prev FROM vegas.journal j ORDER BY j.id DESC LIMIT 1;
    e.id := coalesce(e.id, 0) + 1;
    SELECT coalesce(max(j.number), 0) + 1 INTO e.number FROM vegas.journal j WHERE j.kind = p_kind;
    e.kind := p_kind;
    e.at := coalesce(p_at, vegas.now_text());
    e.ticket := p_ticket;
    e.serial := coalesce(p_serial, '');
    e.game := coalesce(p_game, 0);
    e.block := coalesce(p_block, 0);
    e.position := coalesce(p_position, 0);
    e.pack_first := coalesce(p_pack_first, 0);
    e.pack_last := coalesce(p_pack_last, 0);
    e.state := coalesce(p_state, '');
    e.amount := coalesce(p_amount, 0);
    e.desk := coalesce(p_desk, '');
    e.operator := coalesce(p_operator, '');
    e.method := coalesce(p_method, '');
    e.ref := p_ref;
    e.request := coalesce(p_request, '');
    e.reason := coalesce(p_reason, '');
    e.detail := coalesce(p_detail, '');
    e.hash := sha256(convert_to(vegas.canonical(e, coalesce(prev, ''::bytea)), 'UTF8'));
    INSERT INTO vegas.journal VALUES (e.*);
    RETURN e;
END $$;

-- The secret part of a serial (game.SerialKey.Secret): the first 8 bytes of
-- SHA-256(key ‖ position as 4 bytes big-endian), big-endian, modulo 10^16.
CREATE FUNCTION vegas.secret(k bytea, pos integer) RETURNS bigint LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    h bytea := sha256(k || int4send(pos));
    v numeric := 0;
BEGIN
    FOR i IN 0..7 LOOP
        v := v * 256 + get_byte(h, i);
    END LOOP;
    RETURN (v % 10000000000000000)::bigint;
END $$;

-- The serial's text (game.Serial.String), Damm check digit included.
CREATE FUNCTION vegas.serial_text(p_game integer, p_block integer, p_position integer, p_secret bigint)
RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d text := lpad(p_game::text, 3, '0') || lpad(p_block::text, 4, '0') || lpad(p_position::text, 7, '0')
              || lpad(p_secret::text, 16, '0');
    t integer[] := ARRAY[0,3,1,7,5,9,8,6,4,2, 7,0,9,2,1,5,4,8,6,3, 4,2,0,6,8,7,1,3,5,9,
                         1,7,5,0,9,8,3,4,2,6, 6,1,2,3,0,4,5,9,7,8, 3,6,7,4,2,0,9,5,8,1,
                         5,8,6,9,7,2,0,1,3,4, 8,9,4,5,3,6,2,0,1,7, 9,4,3,8,6,1,7,2,0,5,
                         2,5,8,1,4,3,6,7,9,0];
    c integer := 0;
BEGIN
    FOR i IN 1..30 LOOP
        c := t[c * 10 + ascii(substr(d, i, 1)) - 48 + 1];
    END LOOP;
    RETURN substr(d, 1, 3) || '-' || substr(d, 4, 4) || '-' || substr(d, 8, 7) || '-' || substr(d, 15, 4) || '-'
        || substr(d, 19, 4) || '-' || substr(d, 23, 4) || '-' || substr(d, 27, 4) || '-' || c;
END $$;

-- The prize of a stored prize byte.
CREATE FUNCTION vegas.prize_of(b integer) RETURNS integer LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN CASE WHEN b = 0 THEN 0 ELSE ({{prizes}})[b] END;
END $$;

-- A serial's parts as a counter's call gives them: none missing, each in
-- its range (game.Serial); otherwise the call is refused before anything
-- is looked up. (A missing secret part must never compare as unknown
-- rather than wrong: NULL <> x is not true.)
CREATE FUNCTION vegas.check_serial(p_game integer, p_block integer, p_position integer, p_secret bigint)
RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
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
CREATE FUNCTION vegas.check_text(p_field text, p_value text, p_max integer) RETURNS void LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF length(p_value) > p_max THEN
        RAISE EXCEPTION '%: at most % characters', p_field, p_max USING ERRCODE = 'VD011';
    END IF;
END $$;

-- A text trimmed of every Unicode white space, as core.Blank trims it
-- (the characters are core.Spaces): '' for a blank or missing text.
CREATE FUNCTION vegas.trimmed(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN btrim(coalesce(t, ''), {{spaces}});
END $$;

-- A payout limit lowered by the one asked (core.Limit.Lower): NULL is no
-- limit, above every number.
CREATE FUNCTION vegas.lower_limit(p_limit integer, p_asked integer) RETURNS integer LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF p_limit IS NULL THEN
        RETURN p_asked;
    ELSIF p_asked IS NULL THEN
        RETURN p_limit;
    END IF;
    RETURN least(p_limit, p_asked);
END $$;

-- The guesses of a counter, counted where a rollback cannot undo them: its
-- sequence vegas."guesses <desk>" (made by desks add; a sequence
-- is not transactional) holds bucket × 1000 + the refused serials of the
-- bucket, a bucket being a 10-minute window of the server's clock. The
-- journal counts the refusals its transactions committed (count_refusal);
-- this counts every one, those of a transaction the caller rolled back or
-- made fail on purpose too. guess counts one and returns the bucket's
-- count; guesses_locked is when a counter with 20 in a bucket may guess
-- again ('' when it may now): 20 to 30 minutes after its 20th.
CREATE FUNCTION vegas.guess(p_desk text) RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    seq    regclass := to_regclass(format('vegas.%I', 'guesses ' || p_desk));
    bucket bigint := floor(extract(epoch FROM clock_timestamp()) / 600);
    v      bigint;
BEGIN
    IF seq IS NULL THEN
        RETURN 0;
    END IF;
    v := nextval(seq);
    IF v / 1000 <> bucket THEN
        v := setval(seq, bucket * 1000 + 1);
    END IF;
    RETURN v % 1000;
END $$;

CREATE FUNCTION vegas.guesses_locked(p_desk text) RETURNS text LANGUAGE plpgsql
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    seq    regclass := to_regclass(format('vegas.%I', 'guesses ' || p_desk));
    v      bigint;
    called boolean;
    until  timestamp;
BEGIN
    IF seq IS NULL THEN
        RETURN '';
    END IF;
    EXECUTE format('SELECT last_value, is_called FROM %s', seq) INTO v, called;
    IF NOT called OR v % 1000 < 20 THEN
        RETURN '';
    END IF;
    until := to_timestamp((v / 1000 + 3) * 600) AT TIME ZONE 'UTC';
    IF until <= clock_timestamp() AT TIME ZONE 'UTC' THEN
        RETURN '';
    END IF;
    RETURN vegas.instant_text(until);
END $$;

-- A counter's lookup, claim or find records what it refuses: in a
-- read-only transaction it could not, and a wrong guess would fail where a
-- right one answers, uncounted.
CREATE FUNCTION vegas.check_recording(p_counter boolean) RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF p_counter AND current_setting('transaction_read_only') = 'on' THEN
        RAISE EXCEPTION 'a counter''s lookups and claims record what they refuse: not in a read-only transaction'
            USING ERRCODE = 'VD009';
    END IF;
END $$;

-- Who calls: a counter (its login is a desk's role: its desk, whatever it
-- names, and its payout limit) or the back office (the owner: the desk it
-- names, and that desk's payout limit when the ledger knows the desk).
CREATE FUNCTION vegas.caller(p_desk text, OUT desk text, OUT counter boolean, OUT payout_limit integer,
    OUT locked_until text, OUT unlocked_at text) LANGUAGE plpgsql
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    d vegas.desks;
BEGIN
    SELECT * INTO d FROM vegas.desks WHERE role = session_user;
    IF FOUND THEN
        IF coalesce(p_desk, '') <> '' AND p_desk <> d.id THEN
            RAISE EXCEPTION 'this login is desk %''s; it cannot act as desk %', d.id, p_desk USING ERRCODE = 'VD001';
        END IF;
        IF d.disabled = 1 THEN
            RAISE EXCEPTION 'desk % is disabled; ask the back office', d.id USING ERRCODE = 'VD002';
        END IF;
        desk := d.id; counter := true; payout_limit := d.payout_limit;
        locked_until := greatest(d.locked_until, vegas.guesses_locked(d.id)); unlocked_at := d.unlocked_at;
        RETURN;
    END IF;
    IF NOT pg_has_role(session_user, current_user, 'MEMBER') THEN
        RAISE EXCEPTION 'login % is not a desk of this ledger', session_user USING ERRCODE = 'VD003';
    END IF;
    -- The back office, as the desk it names: that desk's stored limit when
    -- the ledger knows it (none otherwise).
    desk := coalesce(p_desk, ''); counter := false; locked_until := ''; unlocked_at := '';
    SELECT d2.payout_limit INTO payout_limit FROM vegas.desks d2 WHERE d2.id = desk;
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

CREATE FUNCTION vegas.facts_at(b vegas.blocks, p_position integer) RETURNS vegas.facts LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
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
RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
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
CREATE FUNCTION vegas.instant(t text) RETURNS timestamp LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN t::timestamptz AT TIME ZONE 'UTC';
END $$;
CREATE FUNCTION vegas.instant_text(t timestamp) RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS.US"000Z"');
END $$;

-- A refused serial (unknown, or a wrong secret part) of a counter: the
-- 20th in 10 minutes locks the counter out for 30 minutes.
CREATE FUNCTION vegas.count_refusal(p_desk text, p_at text, p_unlocked_at text) RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    since text := vegas.instant_text(vegas.instant(p_at) - interval '10 minutes');
    n integer;
    until text;
BEGIN
    SELECT count(*) INTO n FROM vegas.journal
        WHERE desk = p_desk AND kind = 'refusal' AND reason = 'unknown-serial' AND at > since AND at > p_unlocked_at;
    IF n >= 20 THEN
        until := vegas.instant_text(vegas.instant(p_at) + interval '30 minutes');
        UPDATE vegas.desks SET locked_until = until WHERE id = p_desk;
        PERFORM vegas.append('desk', p_at, NULL, '', 0, 0, 0, 0, 0, 'locked', 0, p_desk, '', '', NULL, '',
            '20 refused serials in 10 minutes', until);
    END IF;
END $$;

-- The answer of lookup, find and claim. status is 'payable' or a verdict of
-- vegas.verdict, or 'paid' (the claim was recorded, or is the first answer
-- to this request id), 'unknown-serial', 'unknown-contents', 'locked'.
-- The ticket's columns are empty for an unknown serial and when locked.
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
    claim_entry  bigint,   -- the paid claim, or the claim just made
    claim_number bigint,
    claim_at     text,
    claim_amount bigint,
    claim_desk   text,
    claim_operator text,
    claim_method text,
    claim_hash   bytea,
    entry        bigint,   -- the refusal or referral entry recorded
    until        text,     -- lock-out end, on-sale date or deadline
    void_at      text,     -- 'voided': the void of the payment
    void_reason  text,
    voided_by    text,
    void_desk    text
);

CREATE FUNCTION vegas.answer_of(p_status text, b vegas.blocks, p_position integer, f vegas.facts, g vegas.games)
RETURNS vegas.answer LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    a vegas.answer;
    c vegas.journal;
BEGIN
    a.status := p_status;
    a.game := b.game; a.block := b.number; a.position := p_position;
    a.secret := vegas.secret(b.serial_key, p_position);
    a.prize := f.prize; a.code := f.code; a.pack_state := coalesce(f.pack_state, 'stock');
    a.digest := b.digest; a.created_at := b.created_at;
    IF f.paid_claim IS NOT NULL THEN
        SELECT * INTO c FROM vegas.journal WHERE id = f.paid_claim;
        a.claim_entry := c.id; a.claim_number := c.number; a.claim_at := c.at; a.claim_amount := c.amount;
        a.claim_desk := c.desk; a.claim_operator := c.operator; a.claim_method := c.method; a.claim_hash := c.hash;
    END IF;
    IF p_status = 'not-yet-on-sale' THEN a.until := g.on_sale; END IF;
    IF p_status = 'expired' THEN a.until := g.deadline; END IF;
    RETURN a;
END $$;

-- lookup: a ticket by its full serial, and what a claim would answer now
-- (the desk's limit, which p_limit may lower).
-- An unknown serial or a wrong secret part answers 'unknown-serial' and is
-- recorded (it counts towards the lock-out); so is a ticket of a stolen
-- pack, for the back office.
CREATE FUNCTION vegas.lookup(p_game integer, p_block integer, p_position integer, p_secret bigint,
    p_desk text, p_operator text, p_limit integer) RETURNS vegas.answer LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who record;
    b   vegas.blocks;
    g   vegas.games;
    f   vegas.facts;
    a   vegas.answer;
    now text := vegas.now_text();
    e   vegas.journal;
    serial text := vegas.serial_text(p_game, p_block, p_position, p_secret);
BEGIN
    SELECT * INTO who FROM vegas.caller(p_desk);
    PERFORM vegas.check_recording(who.counter);
    PERFORM vegas.check_serial(p_game, p_block, p_position, p_secret);
    PERFORM vegas.check_text('operator', p_operator, {{max_text}});
    IF who.locked_until > now THEN
        e := vegas.append('refusal', NULL, NULL, serial, p_game, p_block, p_position, 0, 0, '', 0, who.desk,
            p_operator, 'lookup', NULL, '', 'locked', '');
        a.status := 'locked'; a.until := who.locked_until; a.entry := e.id;
        RETURN a;
    END IF;
    SELECT * INTO b FROM vegas.blocks WHERE game = p_game AND number = p_block;
    IF NOT FOUND OR p_position >= b.tickets OR vegas.secret(b.serial_key, p_position) IS DISTINCT FROM p_secret THEN
        IF who.counter THEN
            PERFORM vegas.guess(who.desk); -- first: nothing after it can undo it
        END IF;
        e := vegas.append('refusal', NULL, NULL, serial, p_game, p_block, p_position, 0, 0, '', 0, who.desk,
            p_operator, 'lookup', NULL, '', 'unknown-serial', '');
        IF who.counter THEN
            PERFORM vegas.count_refusal(who.desk, e.at, who.unlocked_at);
        END IF;
        a.status := 'unknown-serial'; a.entry := e.id;
        RETURN a;
    END IF;
    SELECT * INTO g FROM vegas.games WHERE code = p_game;
    f := vegas.facts_at(b, p_position);
    a := vegas.answer_of(vegas.verdict(f, g, now, vegas.lower_limit(who.payout_limit, p_limit), false), b, p_position, f, g);
    IF a.status = 'stolen' THEN
        e := vegas.append('refusal', NULL, f.ticket, serial, p_game, p_block, p_position, 0, 0, '', 0, who.desk,
            p_operator, 'lookup', NULL, '', 'stolen', '');
        a.entry := e.id;
    END IF;
    RETURN a;
END $$;

-- claim: pays a ticket once. The check and the payment are one step under
-- the journal's lock, for every counter at once. A request id already used
-- by this desk answers what it answered the first time (replay). The payout
-- limit is the desk's stored one, which p_limit may lower; blank texts are
-- empty (vegas.trimmed), and a blank identity is none.
--
-- The lock is held until the commit; for the commit not to wait for the
-- disk with the lock held (which would serialise every counter behind
-- each flush), a claim commits with synchronous_commit off, and the client
-- calls vegas.durable before it acts on the answer: that commit waits for
-- the WAL to be flushed up to it, hence past the claim, and the counters'
-- flushes are grouped. A crash before the flush loses only the end of the
-- WAL: the last entries of the chain, whose answers nobody acted on (a
-- client that asks again with the request id gets them made again). The
-- chain keeps no hole.
CREATE FUNCTION vegas.claim(p_game integer, p_block integer, p_position integer, p_secret bigint,
    p_method text, p_desk text, p_operator text, p_request text, p_limit integer,
    p_name text, p_doc_type text, p_doc_number text, p_at text) RETURNS vegas.answer LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who      record;
    b        vegas.blocks;
    g        vegas.games;
    f        vegas.facts;
    a        vegas.answer;
    e        vegas.journal;
    at       text;
    lim      integer;
    known    boolean;
    operator text := vegas.trimmed(p_operator);
    request  text := vegas.trimmed(p_request);
    name     text := vegas.trimmed(p_name);
    doc_type text := vegas.trimmed(p_doc_type);
    doc_num  text := vegas.trimmed(p_doc_number);
    ident    boolean;
    serial   text := vegas.serial_text(p_game, p_block, p_position, p_secret);
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    SELECT * INTO who FROM vegas.caller(p_desk);
    PERFORM vegas.check_recording(who.counter);
    PERFORM vegas.check_serial(p_game, p_block, p_position, p_secret);
    PERFORM vegas.check_text('operator', operator, {{max_text}});
    PERFORM vegas.check_text('request id', request, {{max_text}});
    PERFORM vegas.check_text('winner''s name', name, {{max_identity}});
    PERFORM vegas.check_text('identity document', doc_type, {{max_identity}});
    PERFORM vegas.check_text('identity document number', doc_num, {{max_identity}});
    IF p_method IS NULL OR p_method NOT IN ('serial', 'contents') THEN
        RAISE EXCEPTION 'method %: want serial or contents', p_method USING ERRCODE = 'VD004';
    END IF;
    IF operator = '' OR vegas.trimmed(who.desk) = '' THEN
        RAISE EXCEPTION 'a payment records its desk and its operator: name both' USING ERRCODE = 'VD005';
    END IF;
    -- A blank identity is none (core.Winner.Given).
    ident := name <> '' AND doc_type <> '' AND doc_num <> '';
    -- What never changes is read before the journal's lock: the block and
    -- the secret part. A wrong one is refused (and appended, under the lock).
    SELECT * INTO b FROM vegas.blocks WHERE game = p_game AND number = p_block;
    known := FOUND AND p_position < b.tickets AND vegas.secret(b.serial_key, p_position) = p_secret;
    IF NOT known AND who.counter THEN
        PERFORM vegas.guess(who.desk); -- before the lock: nothing after it can undo it
    END IF;
    -- The rest under the lock, so that the check and the payment are one
    -- step for every counter at once.
    LOCK TABLE vegas.journal IN SHARE ROW EXCLUSIVE MODE;
    lim := vegas.lower_limit(who.payout_limit, p_limit);
    IF who.counter THEN
        at := vegas.now_text();
        SELECT greatest(d.locked_until, vegas.guesses_locked(d.id)) INTO who.locked_until FROM vegas.desks d WHERE d.id = who.desk;
    ELSE
        at := coalesce(p_at, vegas.now_text());
    END IF;
    IF request <> '' THEN
        a := vegas.replay(who.desk, request, p_game, p_block, p_position);
        IF a.status IS NOT NULL THEN
            RETURN a;
        END IF;
    END IF;
    IF who.locked_until > at THEN
        e := vegas.append('refusal', at, NULL, serial, p_game, p_block, p_position, 0, 0, '', 0, who.desk,
            operator, 'claim', NULL, request, 'locked', '');
        a.status := 'locked'; a.until := who.locked_until; a.entry := e.id;
        RETURN a;
    END IF;
    IF NOT known THEN
        e := vegas.append('refusal', at, NULL, serial, p_game, p_block, p_position, 0, 0, '', 0, who.desk,
            operator, 'claim', NULL, request, 'unknown-serial', '');
        IF who.counter THEN
            PERFORM vegas.count_refusal(who.desk, e.at, who.unlocked_at);
        END IF;
        a.status := 'unknown-serial'; a.entry := e.id;
        RETURN a;
    END IF;
    SELECT * INTO g FROM vegas.games WHERE code = p_game;
    f := vegas.facts_at(b, p_position);
    a := vegas.answer_of(vegas.verdict(f, g, at, lim, ident), b, p_position, f, g);
    IF a.status = 'payable' THEN
        e := vegas.append('claim', at, f.ticket, serial, p_game, p_block, p_position, 0, 0, '', f.prize, who.desk,
            operator, p_method, NULL, request, '',
            CASE WHEN ident THEN encode(sha256(convert_to(
                format(E'name=%s:%s\ndoc_type=%s:%s\ndoc_number=%s:%s\n', octet_length(name), name,
                    octet_length(doc_type), doc_type, octet_length(doc_num), doc_num), 'UTF8')), 'hex') ELSE '' END);
        INSERT INTO vegas.paid (ticket, claim) VALUES (f.ticket, e.id);
        IF ident THEN
            INSERT INTO vegas.identities (claim, name, doc_type, doc_number) VALUES (e.id, name, doc_type, doc_num);
        END IF;
        a.status := 'paid';
        a.claim_entry := e.id; a.claim_number := e.number; a.claim_at := e.at; a.claim_amount := e.amount;
        a.claim_desk := e.desk; a.claim_operator := e.operator; a.claim_method := e.method; a.claim_hash := e.hash;
        RETURN a;
    END IF;
    IF a.status = 'over-limit' THEN
        e := vegas.append('referral', at, f.ticket, serial, p_game, p_block, p_position, 0, 0, '', f.prize, who.desk,
            operator, p_method, NULL, request, '', '');
    ELSE
        -- The claim that paid the ticket is named by an already-claimed
        -- refusal only (core.DecideClaim).
        e := vegas.append('refusal', at, f.ticket, serial, p_game, p_block, p_position, 0, 0, '', 0, who.desk,
            operator, 'claim', CASE WHEN a.status = 'already-claimed' THEN f.paid_claim END, request, a.status, '');
    END IF;
    a.entry := e.id;
    RETURN a;
END $$;

-- replay answers a request id that desk used before, as core.DecideClaim
-- does: its first use named another ticket (refused: VD012); it paid (the
-- payment again, or 'voided' with its void when one voids it since); or it
-- was refused (a NULL status: the claim is asked again).
CREATE FUNCTION vegas.replay(p_desk text, p_request text, p_game integer, p_block integer, p_position integer)
RETURNS vegas.answer LANGUAGE plpgsql
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    e vegas.journal;
    v vegas.journal;
    b vegas.blocks;
    a vegas.answer;
BEGIN
    SELECT * INTO e FROM vegas.journal j WHERE j.desk = p_desk AND j.request = p_request
        AND j.kind IN ('claim', 'refusal', 'referral') ORDER BY j.id LIMIT 1;
    IF NOT FOUND THEN
        RETURN a;
    END IF;
    IF e.game <> p_game OR e.block <> p_block OR e.position <> p_position THEN
        RAISE EXCEPTION 'request id already used for another ticket (ticket %-%-%, on %): make a new request',
            lpad(e.game::text, 3, '0'), lpad(e.block::text, 4, '0'), lpad(e.position::text, 7, '0'), e.at USING ERRCODE = 'VD012';
    END IF;
    IF e.kind <> 'claim' THEN
        RETURN a;
    END IF;
    SELECT * INTO b FROM vegas.blocks WHERE game = e.game AND number = e.block;
    a.status := 'paid';
    a.game := e.game; a.block := e.block; a.position := e.position;
    a.secret := vegas.secret(b.serial_key, e.position);
    a.prize := e.amount;
    a.claim_entry := e.id; a.claim_number := e.number; a.claim_at := e.at; a.claim_amount := e.amount;
    a.claim_desk := e.desk; a.claim_operator := e.operator; a.claim_method := e.method; a.claim_hash := e.hash;
    SELECT * INTO v FROM vegas.journal WHERE kind = 'void' AND ref = e.id;
    IF FOUND THEN
        a.status := 'voided';
        a.void_at := v.at; a.void_reason := v.reason; a.voided_by := v.operator; a.void_desk := v.desk;
    END IF;
    RETURN a;
END $$;

-- find: the ledger's tickets with exactly this encoding (game.Encode, the
-- duel's cards ascending), by the finder of each block. Only winners are
-- indexed. A miss is recorded as refused ('unknown-contents').
CREATE FUNCTION vegas.find(p_code bytea, p_desk text, p_operator text, p_limit integer) RETURNS SETOF vegas.answer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who  record;
    k    bigint;
    b    vegas.blocks;
    g    vegas.games;
    f    vegas.facts;
    blob bytea;
    lo   integer;
    hi   integer;
    mid  integer;
    n    integer;
    ek   bigint;
    pos  integer;
    now  text := vegas.now_text();
    hits integer := 0;
    a    vegas.answer;
BEGIN
    SELECT * INTO who FROM vegas.caller(p_desk);
    PERFORM vegas.check_recording(who.counter);
    IF p_code IS NULL OR length(p_code) <> 14 THEN
        RAISE EXCEPTION 'an encoding has 14 bytes, not %', coalesce(length(p_code), 0) USING ERRCODE = 'VD006';
    END IF;
    PERFORM vegas.check_text('operator', p_operator, {{max_text}});
    IF who.locked_until > now THEN
        PERFORM vegas.append('refusal', NULL, NULL, '', 0, 0, 0, 0, 0, '', 0, who.desk, p_operator, 'contents', NULL, '', 'locked', '');
        a.status := 'locked'; a.until := who.locked_until;
        RETURN NEXT a;
        RETURN;
    END IF;
    k := (get_byte(p_code, 0)::bigint << 24) | (get_byte(p_code, 1) << 16) | (get_byte(p_code, 2) << 8) | get_byte(p_code, 3);
    FOR b IN SELECT * FROM vegas.blocks ORDER BY id LOOP
        SELECT entries INTO blob FROM vegas.finder WHERE id BETWEEN b.id << 32 AND (b.id << 32) + k ORDER BY id DESC LIMIT 1;
        CONTINUE WHEN blob IS NULL;
        n := length(blob) / 7;
        lo := 0; hi := n;
        WHILE lo < hi LOOP
            mid := (lo + hi) / 2;
            ek := (get_byte(blob, mid * 7)::bigint << 24) | (get_byte(blob, mid * 7 + 1) << 16)
                | (get_byte(blob, mid * 7 + 2) << 8) | get_byte(blob, mid * 7 + 3);
            IF ek < k THEN lo := mid + 1; ELSE hi := mid; END IF;
        END LOOP;
        WHILE lo < n LOOP
            ek := (get_byte(blob, lo * 7)::bigint << 24) | (get_byte(blob, lo * 7 + 1) << 16)
                | (get_byte(blob, lo * 7 + 2) << 8) | get_byte(blob, lo * 7 + 3);
            EXIT WHEN ek <> k;
            pos := (get_byte(blob, lo * 7 + 4) << 16) | (get_byte(blob, lo * 7 + 5) << 8) | get_byte(blob, lo * 7 + 6);
            lo := lo + 1;
            CONTINUE WHEN pos >= b.tickets;
            f := vegas.facts_at(b, pos);
            CONTINUE WHEN f.code IS DISTINCT FROM p_code;
            SELECT * INTO g FROM vegas.games WHERE code = b.game;
            hits := hits + 1;
            RETURN NEXT vegas.answer_of(vegas.verdict(f, g, now, vegas.lower_limit(who.payout_limit, p_limit), false), b, pos, f, g);
        END LOOP;
    END LOOP;
    IF hits = 0 THEN
        PERFORM vegas.append('refusal', NULL, NULL, '', 0, 0, 0, 0, 0, '', 0, who.desk, p_operator, 'contents', NULL, '',
            'unknown-contents', '');
    END IF;
END $$;

-- The public part of the blocks: no serial key, no prize.
CREATE FUNCTION vegas.blocks_public() RETURNS TABLE (game integer, number integer, tickets integer,
    pack_size integer, winners integer, payout bigint, digest bytea, created_at text)
LANGUAGE sql SECURITY DEFINER STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
    SELECT game, number, tickets, pack_size, winners, payout, digest, created_at FROM vegas.blocks ORDER BY game, number
$$;

-- A counter's own claims (the back office's: every claim), with their voids.
CREATE FUNCTION vegas.my_claims(p_since text, p_until text) RETURNS TABLE (id bigint, number bigint,
    serial text, game integer, block integer, "position" integer, amount bigint, desk text, operator text,
    method text, at text, hash bytea, voided boolean, void_reason text, voided_by text, voided_at text, void_desk text)
LANGUAGE plpgsql SECURITY DEFINER STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who record;
BEGIN
    SELECT * INTO who FROM vegas.caller('');
    RETURN QUERY SELECT c.id, c.number, c.serial, c.game, c.block, c.position, c.amount, c.desk, c.operator,
        c.method, c.at, c.hash, v.id IS NOT NULL, coalesce(v.reason, ''), coalesce(v.operator, ''),
        coalesce(v.at, ''), coalesce(v.desk, '')
    FROM vegas.journal c LEFT JOIN vegas.journal v ON v.kind = 'void' AND v.ref = c.id
    WHERE c.kind = 'claim' AND (NOT who.counter OR c.desk = who.desk)
      AND c.at >= coalesce(p_since, '') AND (coalesce(p_until, '') = '' OR c.at < p_until)
    ORDER BY c.id;
END $$;

-- durable returns once the WAL is flushed up to now: after a claim, once
-- its answer can no longer be lost.
CREATE FUNCTION vegas.durable() RETURNS void LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp SET synchronous_commit = on AS $$
    INSERT INTO vegas.flushes (login, n) VALUES (session_user, 1)
    ON CONFLICT (login) DO UPDATE SET n = vegas.flushes.n + 1
$$;

-- Who this login is: the desk of a counter, or the back office.
CREATE FUNCTION vegas.whoami() RETURNS TABLE (desk text, counter boolean, payout_limit integer)
LANGUAGE plpgsql SECURITY DEFINER STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who record;
BEGIN
    SELECT * INTO who FROM vegas.caller('');
    desk := who.desk; counter := who.counter; payout_limit := who.payout_limit;
    RETURN NEXT;
END $$;

-- A pack's code (game.PackCode), Damm check digit included:
-- "531-0001-2283-2".
CREATE FUNCTION vegas.pack_code(p_game integer, p_block integer, p_pack integer)
RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d text := lpad(p_game::text, 3, '0') || lpad(p_block::text, 4, '0') || lpad(p_pack::text, 4, '0');
    t integer[] := ARRAY[0,3,1,7,5,9,8,6,4,2, 7,0,9,2,1,5,4,8,6,3, 4,2,0,6,8,7,1,3,5,9,
                         1,7,5,0,9,8,3,4,2,6, 6,1,2,3,0,4,5,9,7,8, 3,6,7,4,2,0,9,5,8,1,
                         5,8,6,9,7,2,0,1,3,4, 8,9,4,5,3,6,2,0,1,7, 9,4,3,8,6,1,7,2,0,5,
                         2,5,8,1,4,3,6,7,9,0];
    c integer := 0;
BEGIN
    FOR i IN 1..11 LOOP
        c := t[c * 10 + ascii(substr(d, i, 1)) - 48 + 1];
    END LOOP;
    RETURN substr(d, 1, 3) || '-' || substr(d, 4, 4) || '-' || substr(d, 8, 4) || '-' || c;
END $$;

-- move_my_packs: a counter receives (delivered → received) or activates
-- (received → on sale) packs p_first … p_last of a block that were
-- delivered to it, with the rules of packMoves (packstate.go): every pack
-- of the range must be the counter's and in the state the move starts
-- from, or nothing moves. It appends the 'packs' entry (the counter's desk,
-- p_operator, the server's time) and returns its id. Nothing else may a
-- counter do to a pack.
CREATE FUNCTION vegas.move_my_packs(p_move text, p_game integer, p_block integer, p_first integer, p_last integer,
    p_operator text) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who    record;
    b      vegas.blocks;
    src    text;
    dst    text;
    bad    record;
    e      vegas.journal;
BEGIN
    SELECT * INTO who FROM vegas.caller('');
    IF NOT who.counter THEN
        RAISE EXCEPTION 'move_my_packs is a counter''s; the back office moves packs with its own commands'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    CASE p_move
        WHEN 'receive' THEN src := {{receive_from}}; dst := {{receive_to}};
        WHEN 'activate' THEN src := {{activate_from}}; dst := {{activate_to}};
        ELSE RAISE EXCEPTION 'a counter receives and activates its packs; % is the back office''s', p_move
            USING ERRCODE = 'insufficient_privilege';
    END CASE;
    IF vegas.trimmed(p_operator) = '' THEN
        RAISE EXCEPTION 'a pack''s move records its operator: name the operator' USING ERRCODE = 'VD005';
    END IF;
    PERFORM vegas.check_text('operator', p_operator, {{max_text}});
    LOCK TABLE vegas.journal IN SHARE ROW EXCLUSIVE MODE;
    SELECT * INTO b FROM vegas.blocks WHERE game = p_game AND number = p_block;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'block %/%: no such block', p_game, p_block USING ERRCODE = 'VD008';
    END IF;
    IF p_first IS NULL OR p_last IS NULL OR p_first < 0 OR p_last < p_first OR p_last >= b.tickets / b.pack_size THEN
        RAISE EXCEPTION 'packs %–% of block %/%: packs go from 0 to %', p_first, p_last, p_game, p_block,
            b.tickets / b.pack_size - 1 USING ERRCODE = 'VD007';
    END IF;
    SELECT g.p AS pack, coalesce(s.state, 'stock') AS state, coalesce(s.desk, '') AS desk INTO bad
        FROM generate_series(p_first, p_last) g(p)
        LEFT JOIN vegas.pack_states s ON s.block = b.id AND s.pack = g.p
        WHERE s.state IS DISTINCT FROM src OR s.desk IS DISTINCT FROM who.desk
        ORDER BY g.p LIMIT 1;
    IF FOUND THEN
        IF bad.state <> src THEN
            RAISE EXCEPTION 'pack % is %; % needs it %', vegas.pack_code(p_game, p_block, bad.pack), bad.state, p_move, src
                USING ERRCODE = 'VD007';
        END IF;
        RAISE EXCEPTION 'pack % was delivered to desk %, not %', vegas.pack_code(p_game, p_block, bad.pack), bad.desk, who.desk
            USING ERRCODE = 'VD007';
    END IF;
    e := vegas.append('packs', NULL, NULL, '', p_game, p_block, 0, p_first, p_last, dst, 0, who.desk,
        p_operator, p_move, NULL, '', '', '');
    UPDATE vegas.pack_states SET state = dst, entry = e.id WHERE block = b.id AND pack BETWEEN p_first AND p_last;
    RETURN e.id;
END $$;

-- The packs a counter holds (the back office: every pack out of the
-- stock), with the entry of their last move.
CREATE FUNCTION vegas.my_packs() RETURNS TABLE (game integer, block integer, pack integer, state text,
    desk text, entry bigint, at text, operator text, method text)
LANGUAGE plpgsql SECURITY DEFINER STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who record;
BEGIN
    SELECT * INTO who FROM vegas.caller('');
    RETURN QUERY SELECT b.game, b.number, s.pack, s.state, s.desk, s.entry, j.at, j.operator, j.method
    FROM vegas.pack_states s JOIN vegas.blocks b ON b.id = s.block JOIN vegas.journal j ON j.id = s.entry
    WHERE NOT who.counter OR s.desk = who.desk
    ORDER BY b.game, b.number, s.pack;
END $$;

-- The moves of a counter's packs (the back office: every move) from
-- p_since until before p_until ('' for open ends), in journal order.
CREATE FUNCTION vegas.my_pack_moves(p_since text, p_until text) RETURNS TABLE (id bigint, at text,
    game integer, block integer, pack_first integer, pack_last integer, state text, desk text, operator text,
    method text, reason text)
LANGUAGE plpgsql SECURITY DEFINER STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who record;
BEGIN
    SELECT * INTO who FROM vegas.caller('');
    RETURN QUERY SELECT j.id, j.at, j.game, j.block, j.pack_first, j.pack_last, j.state, j.desk, j.operator,
        j.method, j.reason
    FROM vegas.journal j
    WHERE j.kind = 'packs' AND (NOT who.counter OR j.desk = who.desk)
      AND j.at >= coalesce(p_since, '') AND (coalesce(p_until, '') = '' OR j.at < p_until)
    ORDER BY j.id;
END $$;

-- A counter's referrals (the back office: every counter's) from p_since
-- until before p_until ('' for open ends), in journal order, for its day
-- report. A ticket is named by the part of its serial printed outside it:
-- the list must not hand out an unpaid winner's serial.
CREATE FUNCTION vegas.my_referrals(p_since text, p_until text) RETURNS TABLE (id bigint, at text,
    serial text, game integer, block integer, "position" integer, amount bigint, desk text, operator text)
LANGUAGE plpgsql SECURITY DEFINER STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who record;
BEGIN
    SELECT * INTO who FROM vegas.caller('');
    RETURN QUERY SELECT j.id, j.at, left(j.serial, 16), j.game, j.block, j.position, j.amount, j.desk, j.operator
    FROM vegas.journal j
    WHERE j.kind = 'referral' AND (NOT who.counter OR j.desk = who.desk)
      AND j.at >= coalesce(p_since, '') AND (coalesce(p_until, '') = '' OR j.at < p_until)
    ORDER BY j.id;
END $$;

-- The hash of the journal's last entry, which a counter prints on its
-- receipts and day reports (a hash reveals nothing).
CREATE FUNCTION vegas.journal_head() RETURNS bytea LANGUAGE sql SECURITY DEFINER STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
    SELECT hash FROM vegas.journal ORDER BY id DESC LIMIT 1
$$;

-- The games with their names, prices and dates, which a counter prints
-- and shows (nothing in them is secret).
CREATE FUNCTION vegas.games_public() RETURNS TABLE (code integer, name text, price integer, on_sale text,
    end_of_sale text, deadline text)
LANGUAGE sql SECURITY DEFINER STABLE
SET search_path = pg_catalog, vegas, pg_temp AS $$
    SELECT code, name, price, on_sale, end_of_sale, deadline FROM vegas.games ORDER BY code
$$;

-- Counters may call these functions and nothing else.
REVOKE ALL ON ALL TABLES IN SCHEMA vegas FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA vegas FROM PUBLIC;
ALTER DEFAULT PRIVILEGES IN SCHEMA vegas REVOKE ALL ON FUNCTIONS FROM PUBLIC;
CREATE ROLE "vd_{{db}}_counters" NOLOGIN;
GRANT USAGE ON SCHEMA vegas TO "vd_{{db}}_counters";
GRANT EXECUTE ON FUNCTION vegas.lookup(integer, integer, integer, bigint, text, text, integer),
    vegas.claim(integer, integer, integer, bigint, text, text, text, text, integer, text, text, text, text),
    vegas.find(bytea, text, text, integer),
    vegas.blocks_public(),
    vegas.my_claims(text, text),
    vegas.durable(),
    vegas.whoami(),
    vegas.move_my_packs(text, integer, integer, integer, integer, text),
    vegas.my_packs(),
    vegas.my_pack_moves(text, text),
    vegas.my_referrals(text, text),
    vegas.journal_head(),
    vegas.games_public()
    TO "vd_{{db}}_counters";
REVOKE ALL ON DATABASE "{{db}}" FROM PUBLIC;
GRANT CONNECT ON DATABASE "{{db}}" TO "vd_{{db}}_counters";
