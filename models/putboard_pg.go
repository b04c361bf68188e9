package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The statements of putBoardPG, with PostgreSQL's placeholders.
var (
	pgTableLock = strings.Replace(tableLockSQL, "?", "$1", 1)
	pgTableRead = strings.Replace(tableReadSQL, "?", "$1", 1)
)

var (
	// pgBoardWrite writes a seat's board ($1) and the table's version
	// ($5) at $2 in one statement: the seat's update rides in a CTE of
	// the table's.
	pgBoardWrite = fmt.Sprintf(pgBoardWriteOf, "")
	// pgOwnBoardWrite also marks the seat's phone as heard from, with
	// nothing left unsent.
	pgOwnBoardWrite = fmt.Sprintf(pgBoardWriteOf, ", last_seen_at = $2, unsent = 0, unsent_since = NULL")
)

const (
	pgBoardWriteOf = "WITH s AS (UPDATE seats SET board = $1, updated_at = $2%s WHERE table_id = $3 AND seat = $4) " +
		"UPDATE tables SET version = $5, updated_at = $2 WHERE id = $3"
	// pgKeepAnswer keeps an answer under its Idempotency-Key, as answer
	// does.
	pgKeepAnswer = "UPDATE idempotency_keys SET status = $1, content_type = $2, content_language = $3, " +
		"location = $4, etag = $5, body = $6 WHERE scope = $7 AND status IS NULL"
)

// putBoardPG is PutBoard on PostgreSQL in two round trips where
// tableChange's transaction takes six (issue 26: on two cores the round
// trips, not PostgreSQL, bounded board writes). BEGIN, the table's lock
// and its read go to PostgreSQL in one pipeline, and it runs them one
// after the other, so the read, a statement of its own, sees every change
// committed before the lock was granted. The write and COMMIT go in a
// second. With an Idempotency-Key the answer is kept with the write, and
// COMMIT follows once it is known to be kept: three round trips.
func (s *Store) putBoardPG(ctx context.Context, p BoardPut, text *string, reply Reply[TableState]) (TableState, IdempotentAnswer, error) {
	var (
		st  TableState
		ans IdempotentAnswer
	)
	sqlDB, err := s.db.DB()
	if err != nil {
		return st, ans, err
	}
	conn, err := sqlDB.Conn(ctx)
	if err == nil {
		err = conn.Raw(func(dc any) error {
			c := dc.(*stdlib.Conn).Conn()
			var err error
			if st, ans, err = s.boardInTwo(ctx, c, p, text, reply); err != nil && !c.IsClosed() && c.PgConn().TxStatus() != 'I' {
				// A connection left in a transaction is closed when it
				// goes back to the pool: end it here, and keep it.
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
				defer cancel()
				_, _ = c.Exec(rctx, "ROLLBACK")
			}
			return err
		})
		conn.Close()
	}
	if err != nil {
		if pend := pendingOf(ctx); pend != nil {
			pend.kept = false
		}
		return TableState{}, ans, s.wrote(err)
	}
	s.wrote(nil)
	if s.AfterChange != nil {
		s.AfterChange()
	}
	return st, ans, nil
}

// boardInTwo runs putBoardPG's transaction on c.
func (s *Store) boardInTwo(ctx context.Context, c *pgx.Conn, p BoardPut, text *string, reply Reply[TableState]) (TableState, IdempotentAnswer, error) {
	code := normalizeCode(p.Code)
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(pgTableLock, code)
	b.Queue(pgTableRead, code)
	rows, err := readLocked(c.SendBatch(ctx, b))
	if err != nil {
		return TableState{}, IdempotentAnswer{}, err
	}
	ot, err := s.openTableOf(rows, p.Token)
	if err != nil {
		return TableState{}, IdempotentAnswer{}, err
	}
	own, err := p.apply(ot, text)
	if err != nil {
		return TableState{}, IdempotentAnswer{}, err
	}
	st := evaluate(ot.t, nil)
	a, k, err := answerOf(ctx, reply, st)
	if err != nil {
		return TableState{}, a, err
	}

	write := pgBoardWrite
	if own {
		write = pgOwnBoardWrite
	}
	b = &pgx.Batch{}
	b.Queue(write, text, ot.now, ot.row.ID, p.Seat, ot.row.Version)
	if k != nil {
		b.Queue(pgKeepAnswer, a.Status, a.ContentType, a.ContentLanguage, a.Location, a.ETag, k.body, k.p.Scope)
	} else {
		b.Queue("COMMIT")
	}
	br := c.SendBatch(ctx, b)
	_, err = br.Exec()
	if err == nil {
		tag, xerr := br.Exec()
		switch {
		case xerr != nil:
			err = xerr
		case k != nil:
			err = k.kept(tag.RowsAffected())
		case tag.String() == "ROLLBACK":
			err = pgx.ErrTxCommitRollback
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && k != nil {
		tag, cerr := c.Exec(ctx, "COMMIT")
		if err = cerr; err == nil && tag.String() == "ROLLBACK" {
			err = pgx.ErrTxCommitRollback
		}
	}
	return st, a, err
}

// readLocked reads the results of BEGIN, the table's lock and its read,
// sent as one batch: the table's rows, none when there is no table.
func readLocked(br pgx.BatchResults) (rows []tableReadRow, err error) {
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	locked, err := br.Query()
	if err != nil {
		return nil, err
	}
	found := false
	for locked.Next() {
		found = true
	}
	locked.Close()
	if err := locked.Err(); err != nil {
		return nil, err
	}
	read, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer read.Close()
	for read.Next() {
		var r tableReadRow
		if err := read.Scan(r.dest()...); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	if err := read.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, nil // no table: nothing locked
	}
	return rows, nil
}
