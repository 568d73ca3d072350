-- A counter's questions on a shared ledger: the functions that answer
-- them (SECURITY DEFINER, run only under the procedures: from_call), the
-- procedures a counter calls, and what counters may call. Schema appends
-- it to postgres.sql and counters.sql, with the same {{names}}.

-- refused records a question refused before its ticket is known (a desk
-- locked out; a serial or contents no ticket has) and answers it: a
-- counter's unknown serial or contents counts towards its lock-out.
CREATE FUNCTION vegas.refused(p_reason text, p_at text, p_serial text, p_game integer, p_block integer,
    p_position integer, p_desk text, p_counter boolean, p_locked_until text, p_unlocked_at text,
    p_operator text, p_method text, p_request text) RETURNS vegas.answer LANGUAGE plpgsql AS $$
DECLARE
    w vegas.waiting;
    a vegas.answer;
BEGIN
    w := vegas.record('refusal', p_at, NULL, p_serial, p_game, p_block, p_position, 0, 0, '', 0, p_desk,
        p_operator, p_method, NULL, p_request, p_reason, '');
    IF p_counter AND p_reason <> 'locked' THEN
        PERFORM vegas.count_refusal(p_desk, w.at, p_unlocked_at);
    END IF;
    a.status := p_reason; a.seq := w.seq; a.recorded := w.recorded;
    IF p_reason = 'locked' THEN
        a.until := p_locked_until;
    END IF;
    RETURN a;
END $$;

-- lookup_record: a ticket by its full serial, and what a claim would
-- answer now (the desk's limit, which p_limit may lower). An unknown
-- serial or a wrong secret part answers 'unknown-serial' and is recorded
-- (it counts towards the lock-out); so is a ticket of a stolen pack, for
-- the back office.
CREATE FUNCTION vegas.lookup_record(p_game integer, p_block integer, p_position integer, p_secret bigint,
    p_desk text, p_operator text, p_limit integer) RETURNS vegas.answer LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who record;
    b   vegas.blocks;
    g   vegas.games;
    f   vegas.facts;
    a   vegas.answer;
    now text := vegas.now_text();
    w   vegas.waiting;
    serial text := vegas.serial_text(p_game, p_block, p_position, p_secret);
BEGIN
    PERFORM vegas.from_call('lookup');
    PERFORM set_config('synchronous_commit', 'off', true);
    SELECT * INTO who FROM vegas.caller(p_desk);
    PERFORM vegas.check_recording(who.counter);
    PERFORM vegas.check_serial(p_game, p_block, p_position, p_secret);
    PERFORM vegas.check_text('operator', p_operator, {{max_text}});
    IF who.locked_until > now THEN
        RETURN vegas.refused('locked', NULL, serial, p_game, p_block, p_position, who.desk, who.counter,
            who.locked_until, who.unlocked_at, p_operator, 'lookup', '');
    END IF;
    SELECT * INTO b FROM vegas.blocks WHERE game = p_game AND number = p_block;
    IF NOT FOUND OR p_position >= b.tickets OR vegas.secret(b.serial_key, p_position) IS DISTINCT FROM p_secret THEN
        IF who.counter THEN
            PERFORM vegas.guess(who.desk); -- first: nothing after it can undo it
        END IF;
        RETURN vegas.refused('unknown-serial', NULL, serial, p_game, p_block, p_position, who.desk, who.counter,
            who.locked_until, who.unlocked_at, p_operator, 'lookup', '');
    END IF;
    SELECT * INTO g FROM vegas.games WHERE code = p_game;
    f := vegas.facts_at(b, p_position);
    a := vegas.answer_of(vegas.verdict(f, g, now, vegas.lower_limit(who.payout_limit, p_limit), false), b, p_position, p_secret, f, g);
    IF a.status = 'stolen' THEN
        w := vegas.record('refusal', NULL, f.ticket, serial, p_game, p_block, p_position, 0, 0, '', 0, who.desk,
            p_operator, 'lookup', NULL, '', 'stolen', '');
        a.seq := w.seq; a.recorded := w.recorded;
    END IF;
    RETURN a;
END $$;

-- request_entry is the first entry of one of these kinds that desk
-- recorded with request id p_request, chained or waiting: the journal, then
-- what waits, then the journal again (an entry chained between the first
-- two reads, each its own snapshot, is in the third).
CREATE FUNCTION vegas.request_entry(p_desk text, p_request text, p_kinds text[]) RETURNS vegas.journal
LANGUAGE plpgsql AS $$
DECLARE
    e vegas.journal;
BEGIN
    FOR i IN 1..2 LOOP
        SELECT * INTO e FROM vegas.journal j WHERE j.desk = p_desk AND j.request = p_request
            AND j.kind = ANY (p_kinds) ORDER BY j.id LIMIT 1;
        EXIT WHEN FOUND OR i = 2;
        SELECT p.* INTO e FROM vegas.waiting w, LATERAL vegas.paid_claim(-w.seq) p
            WHERE w.desk = p_desk AND w.request = p_request AND w.kind = ANY (p_kinds) ORDER BY w.seq LIMIT 1;
        EXIT WHEN FOUND;
    END LOOP;
    RETURN e;
END $$;

-- replay answers a request id that desk used before (chained, or still
-- waiting), as core.DecideClaim does, from its payment or else its first
-- use (core.PriorUse): it named another ticket (refused: VD012); it paid
-- (the payment again, or 'voided' with its void when one voids it since);
-- or it was only refused or referred (a NULL status: asked again).
CREATE FUNCTION vegas.replay(p_desk text, p_request text, p_game integer, p_block integer, p_position integer)
RETURNS vegas.answer LANGUAGE plpgsql AS $$
DECLARE
    e vegas.journal;
    v vegas.journal;
    b vegas.blocks;
    a vegas.answer;
BEGIN
    e := vegas.request_entry(p_desk, p_request, '{claim}');
    IF e.kind IS NULL THEN
        e := vegas.request_entry(p_desk, p_request, '{refusal,referral}');
    END IF;
    IF e.kind IS NULL THEN
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
    a := vegas.claim_of(a, e);
    IF e.id = 0 THEN
        a.seq := e.seq; -- the payment waits to be chained
        SELECT recorded INTO a.recorded FROM vegas.waiting WHERE seq = e.seq;
    END IF;
    SELECT * INTO v FROM vegas.journal WHERE kind = 'void' AND ref = e.id AND e.id > 0;
    IF FOUND THEN
        a.status := 'voided';
        a.void_at := v.at; a.void_reason := v.reason; a.voided_by := v.operator; a.void_desk := v.desk;
    END IF;
    RETURN a;
END $$;

-- pay_request records that desk's request id paid a ticket, and refuses
-- a second payment of it, whatever came before (replay answers a paid
-- one): a second claim entry of an id could never be chained
-- (journal_requests), and would stop the chain.
CREATE FUNCTION vegas.pay_request(p_desk text, p_request text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_request <> '' THEN
        UPDATE vegas.requests r SET paid = true WHERE r.desk = p_desk AND r.request = p_request AND NOT r.paid;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'request id % paid a ticket already: make a new request', p_request USING ERRCODE = 'VD012';
        END IF;
    END IF;
END $$;

-- check_claim_texts refuses a claim's texts that no claim records: one
-- too long, a method of neither kind, a blank desk or operator.
CREATE FUNCTION vegas.check_claim_texts(p_desk text, p_operator text, p_request text, p_name text,
    p_doc_type text, p_doc_number text, p_method text) RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    PERFORM vegas.check_text('operator', p_operator, {{max_text}});
    PERFORM vegas.check_text('request id', p_request, {{max_text}});
    PERFORM vegas.check_text('winner''s name', p_name, {{max_identity}});
    PERFORM vegas.check_text('identity document', p_doc_type, {{max_identity}});
    PERFORM vegas.check_text('identity document number', p_doc_number, {{max_identity}});
    IF p_method IS NULL OR p_method NOT IN ('serial', 'contents') THEN
        RAISE EXCEPTION 'method %: want serial or contents', p_method USING ERRCODE = 'VD004';
    END IF;
    IF p_operator = '' OR vegas.trimmed(p_desk) = '' THEN
        RAISE EXCEPTION 'a payment records its desk and its operator: name both' USING ERRCODE = 'VD005';
    END IF;
END $$;

-- A winner's identity, as core's rule (identity.go) says, with its sets
-- of characters written from Go's (postgres.Constants): identity_clean
-- removes what prints nothing and makes each run of spaces one space
-- between words; identity_text is a field's normal form
-- (core.IdentityText); identity_of the three normal fields of an identity
-- that is given (core.Winner.Given), or NULL.
CREATE FUNCTION vegas.identity_clean(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT btrim(regexp_replace(regexp_replace(coalesce(t, ''), {{identity_invisible}}, '', 'g'),
        {{identity_spaces}}, ' ', 'g'), ' ')
$$;

CREATE FUNCTION vegas.identity_text(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT vegas.identity_clean(normalize(vegas.identity_clean(t), NFKC))
$$;

CREATE FUNCTION vegas.identity_of(p_name text, p_doc_type text, p_doc_number text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    t text[] := ARRAY[vegas.identity_text(p_name), vegas.identity_text(p_doc_type), vegas.identity_text(p_doc_number)];
BEGIN
    IF length(regexp_replace(t[1], {{identity_nonletters}}, '', 'g')) < {{min_name_letters}}
        OR length(regexp_replace(t[2], {{identity_nonletters}}, '', 'g')) < {{min_doc_letters}}
        OR length(regexp_replace(t[3], {{identity_nonalnum}}, '', 'g')) < {{min_doc_number}} THEN
        RETURN NULL;
    END IF;
    PERFORM vegas.check_text('winner''s name', t[1], {{max_identity}});
    PERFORM vegas.check_text('identity document', t[2], {{max_identity}});
    PERFORM vegas.check_text('identity document number', t[3], {{max_identity}});
    RETURN t;
END $$;

-- identity_hash is a winner's identity as a payment's detail keeps it
-- (core.IdentityHash): the SHA-256 of each field with its length in bytes.
CREATE FUNCTION vegas.identity_hash(p_name text, p_doc_type text, p_doc_number text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT encode(sha256(convert_to(format(E'name=%s:%s\ndoc_type=%s:%s\ndoc_number=%s:%s\n',
        octet_length(p_name), p_name, octet_length(p_doc_type), p_doc_type,
        octet_length(p_doc_number), p_doc_number), 'UTF8')), 'hex')
$$;

-- claim_record: pays a ticket once, or records why not. Once is the paid
-- row's: the ticket's key, inserted ON CONFLICT (a second claim of the
-- ticket, at once, waits for the first's end and finds it paid); nothing
-- else is shared with another counter's claim. A request id already used
-- by this desk answers what it answered the first time (replay). The
-- payout limit is the desk's stored one, which p_limit may lower; blank
-- texts are empty (vegas.trimmed), and an identity is kept in its normal
-- form, one not given being none (vegas.identity_of). A locked-out desk
-- is answered locked before anything that depends on the ticket.
CREATE FUNCTION vegas.claim_record(p_game integer, p_block integer, p_position integer, p_secret bigint,
    p_method text, p_desk text, p_operator text, p_request text, p_limit integer,
    p_name text, p_doc_type text, p_doc_number text, p_at text) RETURNS vegas.answer LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who      record;
    b        vegas.blocks;
    g        vegas.games;
    f        vegas.facts;
    a        vegas.answer;
    w        vegas.waiting;
    at       text;
    operator text := vegas.trimmed(p_operator);
    request  text := vegas.trimmed(p_request);
    name     text := vegas.trimmed(p_name);
    doc_type text := vegas.trimmed(p_doc_type);
    doc_num  text := vegas.trimmed(p_doc_number);
    ident    text[]; -- the identity's normal fields, NULL for none
    serial   text := vegas.serial_text(p_game, p_block, p_position, p_secret);
    seq      bigint;
    known    boolean;
BEGIN
    PERFORM vegas.from_call('claim');
    PERFORM set_config('synchronous_commit', 'off', true);
    SELECT * INTO who FROM vegas.caller(p_desk);
    PERFORM vegas.check_recording(who.counter);
    PERFORM vegas.check_serial(p_game, p_block, p_position, p_secret);
    PERFORM vegas.check_claim_texts(who.desk, operator, request, name, doc_type, doc_num, p_method);
    ident := vegas.identity_of(name, doc_type, doc_num); -- one not given is none (core.Winner.Given)
    SELECT * INTO b FROM vegas.blocks WHERE game = p_game AND number = p_block;
    known := FOUND AND p_position < b.tickets AND vegas.secret(b.serial_key, p_position) = p_secret;
    IF NOT known AND who.counter THEN
        PERFORM vegas.guess(who.desk); -- first: nothing after it can undo it
    END IF;
    at := CASE WHEN who.counter THEN vegas.now_text() ELSE coalesce(p_at, vegas.now_text()) END;
    -- A locked-out desk is answered locked before anything depends on the
    -- ticket: a request id replayed (below) would tell a right secret part
    -- (its first use named another ticket) from a wrong one (issue 23).
    IF who.locked_until > at THEN
        RETURN vegas.refused('locked', at, serial, p_game, p_block, p_position, who.desk, who.counter,
            who.locked_until, who.unlocked_at, operator, 'claim', request);
    END IF;
    -- A request id answers as its first use did only to whoever holds the
    -- ticket (a wrong secret part is a wrong guess); the claims of one id
    -- are asked one after the other (the id's row of vegas.requests, held
    -- until this transaction's commit).
    IF request <> '' AND known THEN
        INSERT INTO vegas.requests (desk, request) VALUES (who.desk, request)
            ON CONFLICT ON CONSTRAINT requests_pkey DO UPDATE SET desk = excluded.desk;
        a := vegas.replay(who.desk, request, p_game, p_block, p_position);
        IF a.status IS NOT NULL THEN
            RETURN a;
        END IF;
    END IF;
    IF NOT known THEN
        RETURN vegas.refused('unknown-serial', at, serial, p_game, p_block, p_position, who.desk, who.counter,
            who.locked_until, who.unlocked_at, operator, 'claim', request);
    END IF;
    SELECT * INTO g FROM vegas.games WHERE code = p_game;
    f := vegas.facts_at(b, p_position);
    a := vegas.answer_of(vegas.verdict(f, g, at, vegas.lower_limit(who.payout_limit, p_limit), ident IS NOT NULL), b, p_position, p_secret, f, g);
    IF a.status = 'payable' THEN
        seq := nextval('vegas.waiting_seq');
        INSERT INTO vegas.paid (ticket, claim) VALUES (f.ticket, -seq) ON CONFLICT (ticket) DO NOTHING;
        IF NOT FOUND THEN -- paid by a claim that ended since the facts were read
            f := vegas.facts_at(b, p_position);
            a := vegas.answer_of('already-claimed', b, p_position, p_secret, f, g);
        ELSE
            PERFORM vegas.pay_request(who.desk, request);
            INSERT INTO vegas.waiting (seq, kind, at, ticket, serial, game, block, position, amount, desk, operator,
                method, request, detail, name, doc_type, doc_number)
            VALUES (seq, 'claim', at, f.ticket, serial, p_game, p_block, p_position, f.prize, who.desk, operator,
                p_method, request,
                CASE WHEN ident IS NOT NULL THEN vegas.identity_hash(ident[1], ident[2], ident[3]) ELSE '' END,
                ident[1], ident[2], ident[3])
            RETURNING * INTO w;
            a.status := 'paid';
            a := vegas.claim_of(a, vegas.paid_claim(-seq));
            a.seq := w.seq; a.recorded := w.recorded;
            RETURN a;
        END IF;
    END IF;
    IF a.status = 'over-limit' THEN
        w := vegas.record('referral', at, f.ticket, serial, p_game, p_block, p_position, 0, 0, '', f.prize, who.desk,
            operator, p_method, NULL, request, '', '');
    ELSE
        -- The claim that paid the ticket is named by an already-claimed
        -- refusal only (core.DecideClaim).
        w := vegas.record('refusal', at, f.ticket, serial, p_game, p_block, p_position, 0, 0, '', 0, who.desk,
            operator, 'claim', CASE WHEN a.status = 'already-claimed' THEN f.paid_claim END, request, a.status, '');
    END IF;
    a.seq := w.seq; a.recorded := w.recorded;
    RETURN a;
END $$;

-- find_record: the ledger's ticket with exactly this encoding (game.Encode,
-- the duel's cards ascending), by the finder of each block (only winners
-- are indexed): the first one not yet paid, else the first
-- (core.FoundTicket). A miss is recorded as refused ('unknown-contents'),
-- and a counter's counts towards its lock-out.
CREATE FUNCTION vegas.find_record(p_code bytea, p_desk text, p_operator text, p_limit integer) RETURNS vegas.answer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who   record;
    k     bigint;
    b     vegas.blocks;
    g     vegas.games;
    f     vegas.facts;
    blob  bytea;
    lo    integer;
    hi    integer;
    mid   integer;
    n     integer;
    ek    bigint;
    pos   integer;
    now   text := vegas.now_text();
    a     vegas.answer;
    found vegas.answer;
BEGIN
    PERFORM vegas.from_call('find');
    PERFORM set_config('synchronous_commit', 'off', true);
    SELECT * INTO who FROM vegas.caller(p_desk);
    PERFORM vegas.check_recording(who.counter);
    IF p_code IS NULL OR length(p_code) <> 14 THEN
        RAISE EXCEPTION 'an encoding has 14 bytes, not %', coalesce(length(p_code), 0) USING ERRCODE = 'VD006';
    END IF;
    PERFORM vegas.check_text('operator', p_operator, {{max_text}});
    IF who.locked_until > now THEN
        RETURN vegas.refused('locked', NULL, '', 0, 0, 0, who.desk, who.counter,
            who.locked_until, who.unlocked_at, p_operator, 'contents', '');
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
            a := vegas.answer_of(vegas.verdict(f, g, now, vegas.lower_limit(who.payout_limit, p_limit), false), b, pos, vegas.secret(b.serial_key, pos), f, g);
            IF found.status IS NULL OR (found.claim_at IS NOT NULL AND a.claim_at IS NULL AND a.prize > 0) THEN
                found := a;
            END IF;
        END LOOP;
    END LOOP;
    IF found.status IS NOT NULL THEN
        RETURN found;
    END IF;
    IF who.counter THEN
        PERFORM vegas.guess(who.desk);
    END IF;
    RETURN vegas.refused('unknown-contents', NULL, '', 0, 0, 0, who.desk, who.counter,
        who.locked_until, who.unlocked_at, p_operator, 'contents', '');
END $$;

-- move_record: a counter receives (delivered → received) or activates
-- (received → on sale) packs p_first … p_last of a block that were
-- delivered to it, with the rules of core.PackMoves: every pack of the
-- range must be the counter's and in the state the move starts from, or
-- nothing moves. It records the 'packs' entry (the counter's desk,
-- p_operator, the server's time). Nothing else may a counter do to a pack.
CREATE FUNCTION vegas.move_record(p_move text, p_game integer, p_block integer, p_first integer, p_last integer,
    p_operator text) RETURNS vegas.answer LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
DECLARE
    who    record;
    b      vegas.blocks;
    src    text;
    dst    text;
    bad    record;
    w      vegas.waiting;
    a      vegas.answer;
BEGIN
    PERFORM vegas.from_call('move_my_packs');
    PERFORM set_config('synchronous_commit', 'off', true);
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
    SELECT * INTO b FROM vegas.blocks WHERE game = p_game AND number = p_block;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'block %/%: no such block', p_game, p_block USING ERRCODE = 'VD008';
    END IF;
    IF p_first IS NULL OR p_last IS NULL OR p_first < 0 OR p_last < p_first OR p_last >= b.tickets / b.pack_size THEN
        RAISE EXCEPTION 'packs %–% of block %/%: packs go from 0 to %', p_first, p_last, p_game, p_block,
            b.tickets / b.pack_size - 1 USING ERRCODE = 'VD007';
    END IF;
    -- The packs' rows, locked: the back office's moves of the same packs
    -- wait (it locks them too).
    PERFORM 1 FROM vegas.pack_states WHERE block = b.id AND pack BETWEEN p_first AND p_last ORDER BY pack FOR UPDATE;
    SELECT g.p AS pack, coalesce(s.state, 'stock') AS state, coalesce(s.desk, '') AS desk INTO bad
        FROM generate_series(p_first, p_last) g(p)
        LEFT JOIN vegas.pack_states s ON s.block = b.id AND s.pack = g.p
        WHERE s.state IS DISTINCT FROM src OR s.desk IS DISTINCT FROM who.desk
        ORDER BY g.p LIMIT 1;
    IF FOUND THEN -- of another desk's pack, nothing is said but that
        IF bad.desk IS DISTINCT FROM who.desk THEN
            RAISE EXCEPTION 'pack % was not delivered to desk %: ask the back office', vegas.pack_code(p_game, p_block, bad.pack),
                who.desk USING ERRCODE = 'VD007';
        END IF;
        RAISE EXCEPTION 'pack % is %; % needs it %', vegas.pack_code(p_game, p_block, bad.pack), bad.state, p_move, src
            USING ERRCODE = 'VD007';
    END IF;
    w := vegas.record('packs', NULL, NULL, '', p_game, p_block, 0, p_first, p_last, dst, 0, who.desk,
        p_operator, p_move, NULL, '', '', '');
    UPDATE vegas.pack_states SET state = dst, entry = -w.seq WHERE block = b.id AND pack BETWEEN p_first AND p_last;
    a.status := 'moved'; a.seq := w.seq; a.recorded := w.recorded;
    RETURN a;
END $$;

-- The procedures a counter calls. Each commits first (so that it runs in
-- no transaction of the caller's), asks its function and chains what it
-- recorded if no chain is in progress, commits, then (chained) chains it
-- after the chain in progress and makes it durable, and answers. Their
-- bodies name only this schema's functions and procedures.
CREATE PROCEDURE vegas.lookup(p_game integer, p_block integer, p_position integer, p_secret bigint,
    p_desk text, p_operator text, p_limit integer, INOUT answer jsonb DEFAULT NULL) LANGUAGE plpgsql AS $$
DECLARE
    a vegas.answer;
BEGIN
    COMMIT;
    a := vegas.chain_answer(vegas.lookup_record(p_game, p_block, p_position, p_secret, p_desk, p_operator, p_limit), false);
    COMMIT;
    IF NOT vegas.settled(a) THEN
        CALL vegas.chained(a);
    END IF;
    answer := vegas.answer_json(a);
END $$;

CREATE PROCEDURE vegas.claim(p_game integer, p_block integer, p_position integer, p_secret bigint,
    p_method text, p_desk text, p_operator text, p_request text, p_limit integer,
    p_name text, p_doc_type text, p_doc_number text, p_at text, INOUT answer jsonb DEFAULT NULL) LANGUAGE plpgsql AS $$
DECLARE
    a vegas.answer;
BEGIN
    COMMIT;
    a := vegas.chain_answer(vegas.claim_record(p_game, p_block, p_position, p_secret, p_method, p_desk, p_operator,
        p_request, p_limit, p_name, p_doc_type, p_doc_number, p_at), false);
    COMMIT;
    IF NOT vegas.settled(a) THEN
        CALL vegas.chained(a);
    END IF;
    answer := vegas.answer_json(a);
END $$;

CREATE PROCEDURE vegas.find(p_code bytea, p_desk text, p_operator text, p_limit integer, INOUT answer jsonb DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
    a vegas.answer;
BEGIN
    COMMIT;
    a := vegas.chain_answer(vegas.find_record(p_code, p_desk, p_operator, p_limit), false);
    COMMIT;
    IF NOT vegas.settled(a) THEN
        CALL vegas.chained(a);
    END IF;
    answer := vegas.answer_json(a);
END $$;

CREATE PROCEDURE vegas.move_my_packs(p_move text, p_game integer, p_block integer, p_first integer, p_last integer,
    p_operator text, INOUT answer jsonb DEFAULT NULL) LANGUAGE plpgsql AS $$
DECLARE
    a vegas.answer;
BEGIN
    COMMIT;
    a := vegas.chain_answer(vegas.move_record(p_move, p_game, p_block, p_first, p_last, p_operator), false);
    COMMIT;
    IF NOT vegas.settled(a) THEN
        CALL vegas.chained(a);
    END IF;
    answer := vegas.answer_json(a);
END $$;

-- chained chains a's entry when it still waits, once the chain in
-- progress ends (a counter's chain ends in milliseconds; the back office's
-- write holds the chainer's lock until its commit), then makes what the
-- question recorded durable.
CREATE PROCEDURE vegas.chained(INOUT a vegas.answer) LANGUAGE plpgsql AS $$
BEGIN
    a := vegas.chain_answer(a, true);
    COMMIT;
    PERFORM vegas.durable(a);
    COMMIT;
END $$;

-- Counters may call these procedures and functions and nothing else (the
-- SECURITY DEFINER functions the procedures call refuse to run outside
-- them: from_call).
REVOKE ALL ON ALL TABLES IN SCHEMA vegas FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA vegas FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA vegas FROM PUBLIC;
REVOKE ALL ON ALL PROCEDURES IN SCHEMA vegas FROM PUBLIC;
ALTER DEFAULT PRIVILEGES IN SCHEMA vegas REVOKE ALL ON FUNCTIONS FROM PUBLIC;
CREATE ROLE "vd_{{db}}_counters" NOLOGIN;
GRANT USAGE ON SCHEMA vegas TO "vd_{{db}}_counters";
GRANT EXECUTE ON PROCEDURE vegas.lookup(integer, integer, integer, bigint, text, text, integer, jsonb),
    vegas.claim(integer, integer, integer, bigint, text, text, text, text, integer, text, text, text, text, jsonb),
    vegas.find(bytea, text, text, integer, jsonb),
    vegas.move_my_packs(text, integer, integer, integer, integer, text, jsonb),
    vegas.chained(vegas.answer)
    TO "vd_{{db}}_counters";
GRANT EXECUTE ON FUNCTION vegas.lookup_record(integer, integer, integer, bigint, text, text, integer),
    vegas.claim_record(integer, integer, integer, bigint, text, text, text, text, integer, text, text, text, text),
    vegas.find_record(bytea, text, text, integer),
    vegas.move_record(text, integer, integer, integer, integer, text),
    vegas.chain_answer(vegas.answer, boolean),
    vegas.durable(vegas.answer),
    vegas.settled(vegas.answer),
    vegas.answer_json(vegas.answer),
    vegas.blocks_public(),
    vegas.my_claims(text, text),
    vegas.whoami(),
    vegas.my_packs(),
    vegas.my_pack_moves(text, text),
    vegas.my_referrals(text, text),
    vegas.journal_head(),
    vegas.games_public()
    TO "vd_{{db}}_counters";
REVOKE ALL ON DATABASE "{{db}}" FROM PUBLIC;
GRANT CONNECT ON DATABASE "{{db}}" TO "vd_{{db}}_counters";
