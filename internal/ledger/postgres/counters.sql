-- What counters' calls share on a shared ledger (postgres.sql has the
-- tables, the chain and the rule's helpers; questions.sql the questions
-- themselves): who calls, the lock-out, the guard of the procedures, the
-- chaining of an answer's entry, and what a counter may read of its own.
-- Schema appends it to postgres.sql, with the same {{names}}.

-- The guesses of a counter, counted where a rollback cannot undo them: its
-- sequence vegas."guesses <desk>" (made by desks add; a sequence
-- is not transactional) holds bucket × 1000 + the refused serials and
-- contents of the bucket, a bucket being a 10-minute window of the
-- server's clock; the count saturates at 999, it never wraps. The journal
-- counts the refusals that were recorded (count_refusal); this counts
-- every one, those of a call that failed on purpose too. guess counts one
-- and returns the bucket's count; guesses_locked is when a counter with 20
-- in a bucket may guess again ('' when it may now): 20 to 30 minutes after
-- its 20th. Every question of a counter (lookup, claim, find) honours it.
CREATE FUNCTION vegas.guess(p_desk text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    seq    regclass := to_regclass(format('vegas.%I', 'guesses ' || p_desk));
    bucket bigint := floor(extract(epoch FROM clock_timestamp()) / 600);
    v      bigint;
BEGIN
    IF seq IS NULL THEN
        RETURN 0;
    END IF;
    v := nextval(seq);
    IF v / 1000 > bucket THEN
        v := setval(seq, bucket * 1000 + 999); -- saturated
    ELSIF v / 1000 < bucket OR v % 1000 = 0 THEN
        v := setval(seq, bucket * 1000 + 1); -- a new bucket
    END IF;
    RETURN v % 1000;
END $$;

CREATE FUNCTION vegas.guesses_locked(p_desk text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    seq    regclass := to_regclass(format('vegas.%I', 'guesses ' || p_desk));
    v      bigint;
    until  timestamp;
BEGIN
    IF seq IS NULL THEN
        RETURN '';
    END IF;
    v := pg_sequence_last_value(seq);
    IF v IS NULL OR v % 1000 < 20 THEN
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
CREATE FUNCTION vegas.check_recording(p_counter boolean) RETURNS void LANGUAGE plpgsql AS $$
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
    OUT locked_until text, OUT unlocked_at text) LANGUAGE plpgsql AS $$
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

-- A refused serial or contents of a counter, recorded: the 20th in 10
-- minutes (in the journal or still waiting to be chained) locks the
-- counter out for 30 minutes, which a 'desk' entry records.
CREATE FUNCTION vegas.count_refusal(p_desk text, p_at text, p_unlocked_at text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    since text := vegas.instant_text(vegas.instant(p_at) - interval '10 minutes');
    n integer;
    until text;
BEGIN
    SELECT (SELECT count(*) FROM vegas.journal WHERE desk = p_desk AND kind = 'refusal'
                AND reason IN ('unknown-serial', 'unknown-contents') AND at > since AND at > p_unlocked_at)
         + (SELECT count(*) FROM vegas.waiting WHERE desk = p_desk AND kind = 'refusal'
                AND reason IN ('unknown-serial', 'unknown-contents') AND at > since AND at > p_unlocked_at)
        INTO n;
    IF n >= 20 THEN
        until := vegas.instant_text(vegas.instant(p_at) + interval '30 minutes');
        UPDATE vegas.desks SET locked_until = until WHERE id = p_desk;
        PERFORM vegas.record('desk', p_at, NULL, '', 0, 0, 0, 0, 0, 'locked', 0, p_desk, '', '', NULL, '',
            '20 refused serials in 10 minutes', until);
    END IF;
END $$;

-- A counter asks its questions through the procedures below (CALL
-- vegas.lookup(…), vegas.claim(…), vegas.find(…), vegas.move_my_packs(…)),
-- each in transactions of its own: it commits first (so it cannot run
-- inside a transaction of the caller's, which could hold what it takes),
-- records, commits, chains, commits. The functions that do the work are
-- SECURITY DEFINER and run only under those procedures: the statement the
-- client sent must be one CALL of them (from_call), so that a counter
-- cannot call one inside a transaction it keeps open (BEGIN; …;
-- pg_sleep(…)), nor skip the chaining of what it recorded; and they run
-- in a transaction the procedure began (after its first COMMIT: the
-- transaction began after the statement), not in the CALL's arguments,
-- which run in the client's transaction before the procedure's body.
CREATE FUNCTION vegas.from_call(p_procs text) RETURNS void LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF current_query() !~* ('^\s*call\s+vegas\.(' || p_procs || ')\s*\(')
        OR transaction_timestamp() <= statement_timestamp() THEN
        RAISE EXCEPTION 'a counter''s question is asked with CALL vegas.%(…), alone, and not in a transaction',
            split_part(p_procs, '|', 1) USING ERRCODE = 'VD013';
    END IF;
END $$;

-- reap ends the sessions of counters' logins, in any database of the
-- server, whose transaction began more than reap_after ago (a counter's
-- question takes milliseconds, and waits at most its statement_timeout of
-- 30 s; but a session may lift its timeouts, and a transaction kept open
-- holds back the removal of dead rows server-wide, or the notifications it
-- listens to). It runs as the owner, a member of each counter's role;
-- without that right it ends none.
CREATE FUNCTION vegas.reap() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    SELECT count(*) FILTER (WHERE pg_terminate_backend(a.pid)) INTO n
    FROM pg_stat_activity a JOIN pg_roles r ON r.oid = a.usesysid JOIN vegas.desks d ON d.role = r.rolname,
        vegas.reaper c
    WHERE a.xact_start < clock_timestamp() - c.reap_after;
    RETURN n;
EXCEPTION WHEN insufficient_privilege THEN
    RETURN 0;
END $$;

-- maybe_reap reaps at most every reap_after / 10: every question runs it
-- (chain_answer), one at a time, none waiting for it; not in a read-only
-- transaction (a back office's lookup on a replica), nor in one of a
-- stricter isolation (its snapshot would not see the last reap's update).
CREATE FUNCTION vegas.maybe_reap() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('transaction_read_only') = 'on' OR current_setting('transaction_isolation') <> 'read committed' THEN
        RETURN;
    END IF;
    PERFORM 1 FROM vegas.reaper c WHERE c.reaped < clock_timestamp() - c.reap_after / 10 FOR UPDATE SKIP LOCKED;
    IF FOUND THEN
        UPDATE vegas.reaper SET reaped = clock_timestamp();
        PERFORM vegas.reap();
    END IF;
END $$;

-- waited fills in what the chain gave the entry a recorded (a.seq), once
-- it is chained: its id (entry, or claim_entry for a payment), number and
-- hash, how long it waited; a.seq is then NULL.
CREATE FUNCTION vegas.waited(a vegas.answer) RETURNS vegas.answer LANGUAGE plpgsql STABLE AS $$
DECLARE
    e vegas.journal;
BEGIN
    SELECT * INTO e FROM vegas.journal WHERE seq = a.seq;
    IF NOT FOUND THEN
        RETURN a;
    END IF;
    IF e.kind = 'claim' THEN
        a := vegas.claim_of(a, e);
    ELSE
        a.entry := e.id;
    END IF;
    a.chain_ms := extract(epoch FROM clock_timestamp() - a.recorded) * 1000;
    a.seq := NULL;
    RETURN a;
END $$;

-- chain_answer chains what waits, and returns a (a question of the
-- caller's desk) with its entry once chained (waited). p_wait false is a
-- try (SKIP LOCKED: another chain is in progress), in the transaction that
-- recorded the entry: a question with no other at once records and
-- chains in one commit; true waits for the chain in progress, after the
-- recording committed. A chain commits without waiting for the disk (it
-- holds the chainer's lock until then); durable, after it, does. But a
-- try that chained its own entry alone (no other question waited) commits
-- waiting for the disk: nobody waits for its lock, and the question is
-- done in one commit (flushed).
CREATE FUNCTION vegas.chain_answer(a vegas.answer, p_wait boolean) RETURNS vegas.answer LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
BEGIN
    PERFORM vegas.from_call('lookup|claim|find|move_my_packs');
    IF a.seq IS NOT NULL AND EXISTS (SELECT 1 FROM vegas.desks d WHERE d.role = session_user
            AND d.id IS DISTINCT FROM coalesce((SELECT w.desk FROM vegas.waiting w WHERE w.seq = a.seq),
                (SELECT j.desk FROM vegas.journal j WHERE j.seq = a.seq))) THEN
        RAISE EXCEPTION 'entry % is not this desk''s question', a.seq USING ERRCODE = 'VD013';
    END IF;
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM vegas.maybe_reap();
    a := vegas.waited(a);
    IF a.seq IS NULL THEN
        RETURN a;
    END IF;
    IF p_wait THEN
        PERFORM 1 FROM vegas.chainer FOR UPDATE;
    ELSE
        PERFORM 1 FROM vegas.chainer FOR UPDATE SKIP LOCKED;
    END IF;
    IF FOUND THEN
        a := vegas.waited(a); -- chained by the chain it waited for?
        IF a.seq IS NOT NULL THEN
            IF vegas.chain_waiting() = 1 AND NOT p_wait THEN
                PERFORM set_config('synchronous_commit', 'on', true);
                a.flushed := true;
            END IF;
            a := vegas.waited(a);
        END IF;
    END IF;
    RETURN a;
END $$;

-- durable returns once the WAL is flushed past what question a recorded:
-- its commit writes this login's row of vegas.flushes, waiting for the
-- disk (the counters' flushes are grouped), holding nothing else.
CREATE FUNCTION vegas.durable(a vegas.answer) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, vegas, pg_temp AS $$
BEGIN
    PERFORM vegas.from_call('lookup|claim|find|move_my_packs');
    IF a.chain_ms IS NOT NULL AND a.flushed IS NOT TRUE THEN -- it recorded an entry, now chained
        PERFORM set_config('synchronous_commit', 'on', true);
        INSERT INTO vegas.flushes (login, n) VALUES (session_user, 1)
        ON CONFLICT (login) DO UPDATE SET n = vegas.flushes.n + 1;
    END IF;
END $$;

-- settled reports whether question a is done: nothing it recorded
-- waits to be chained, or to be on disk.
CREATE FUNCTION vegas.settled(a vegas.answer) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN a.seq IS NULL AND (a.chain_ms IS NULL OR a.flushed IS TRUE);
END $$;

-- answer_json is the answer as the procedures give it.
CREATE FUNCTION vegas.answer_json(a vegas.answer) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN to_jsonb(a);
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
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    d text := lpad(p_game::text, 3, '0') || lpad(p_block::text, 4, '0') || lpad(p_pack::text, 4, '0');
BEGIN
    RETURN substr(d, 1, 3) || '-' || substr(d, 4, 4) || '-' || substr(d, 8, 4) || '-' || vegas.damm(d);
END $$;

-- move_my_packs: a counter receives (delivered → received) or activates
-- (received → on sale) packs p_first … p_last of a block that were
-- delivered to it, with the rules of packMoves (packstate.go): every pack
-- of the range must be the counter's and in the state the move starts
-- from, or nothing moves. It appends the 'packs' entry (the counter's desk,
-- p_operator, the server's time) and returns its id. Nothing else may a
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
