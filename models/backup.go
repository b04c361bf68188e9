package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Errors of BackupSQLite that the command explains in its own words.
var (
	// ErrBackupExists means the backup (or export) file is already there and the
	// caller did not ask to replace it.
	ErrBackupExists = errors.New("models: the backup file exists")
	// ErrBackupNotSQLite means the database is PostgreSQL, which has its
	// own tool for consistent copies (pg_dump).
	ErrBackupNotSQLite = errors.New("models: backups copy SQLite databases only")
)

// BackupReport describes a backup that was written and checked.
type BackupReport struct {
	// Bytes is the size of the copy.
	Bytes int64
	// SchemaVersion is the newest migration the copy has.
	SchemaVersion int
	// Groups and Plays are counted in the copy.
	Groups, Plays int64
}

// BackupSQLite writes a consistent copy of the SQLite database dsn to the
// file dest while servers may go on writing to it, and checks the copy.
//
// The copy is VACUUM INTO: one read transaction, so it holds every commit
// made before it began, including those still in the WAL that a copy of
// the file alone would miss, and none made after. The source is opened
// without running migrations and with writes refused, so a backup never
// changes a database that a server of another version serves.
//
// The copy is written beside dest under a temporary name, synced, opened
// and checked (integrity_check, foreign_key_check, its schema version and
// counts), and only then given dest's name, readable by its owner only: it
// holds every group's invite. An existing dest is ErrBackupExists unless
// replace is set; a failed backup leaves dest as it was.
func BackupSQLite(ctx context.Context, dsn, dest string, replace bool) (*BackupReport, error) {
	if isPostgres(dsn) {
		return nil, ErrBackupNotSQLite
	}
	src, _, _ := strings.Cut(dsn, "?")
	if src == "" || src == ":memory:" || strings.HasPrefix(src, "file:") {
		return nil, fmt.Errorf("models: back up a SQLite database by its file path, not %q", dsn)
	}
	srcInfo, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("models: the database to back up: %w", err)
	}
	if destInfo, err := os.Stat(dest); err == nil {
		if os.SameFile(srcInfo, destInfo) {
			return nil, fmt.Errorf("models: %s is the database itself; write the backup to another file", dest)
		}
		if !replace {
			return nil, ErrBackupExists
		}
	}

	// An empty file of our own making: VACUUM INTO writes into an empty
	// file, and it keeps the mode CreateTemp gives it (0600).
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("models: create the backup file: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath) // a no-op once it has dest's name

	if err := vacuumInto(ctx, src, tmpPath); err != nil {
		return nil, err
	}
	// SQLite does not sync a VACUUM INTO file: a backup that a power cut
	// can leave half written is no backup.
	if err := syncFile(tmpPath); err != nil {
		return nil, err
	}
	report, err := CheckSQLiteCopy(ctx, tmpPath)
	if err != nil {
		return nil, err
	}
	if err := PlaceFile(tmpPath, dest, replace); err != nil {
		return nil, err
	}
	return report, nil
}

// vacuumInto copies the database at src to the empty file dest. It goes
// through database/sql with the driver gorm.io/driver/sqlite registers, not
// through GORM: a backup is one statement, and it must not migrate.
func vacuumInto(ctx context.Context, src, dest string) error {
	// busy_timeout: wait for a lock instead of failing (a checkpoint or
	// recovery can hold one briefly). VACUUM INTO only reads the database;
	// query_only would refuse it all the same.
	db, err := sql.Open("sqlite3", src+"?_busy_timeout=5000")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		return fmt.Errorf("models: copy %s: %w", src, err)
	}
	return nil
}

// CheckSQLiteCopy opens a copy of an insectscore database without changing
// it and checks it: SQLite's integrity and foreign key checks pass, it has
// a schema version, and its groups and plays can be read and counted.
func CheckSQLiteCopy(ctx context.Context, path string) (*BackupReport, error) {
	db, err := sql.Open("sqlite3", path+"?_query_only=1")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	fail := func(what string, err error) (*BackupReport, error) {
		return nil, fmt.Errorf("models: the copy fails its check: %s: %w", what, err)
	}
	var problems []string
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fail("integrity_check", err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return fail("integrity_check", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Close(); err != nil {
		return fail("integrity_check", err)
	}
	var broken int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pragma_foreign_key_check").Scan(&broken); err != nil {
		return fail("foreign_key_check", err)
	}
	if broken > 0 {
		problems = append(problems, fmt.Sprintf("%d rows refer to rows that are missing", broken))
	}
	if len(problems) > 0 {
		if len(problems) > 5 {
			problems = append(problems[:5], "…")
		}
		return fail("integrity_check", errors.New(strings.Join(problems, "; ")))
	}
	var r BackupReport
	if err := db.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM schema_migrations").Scan(&r.SchemaVersion); err != nil {
		return fail("schema version", err)
	}
	if err := db.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM groups), (SELECT COUNT(*) FROM plays)").Scan(&r.Groups, &r.Plays); err != nil {
		return fail("count groups and plays", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	r.Bytes = st.Size()
	return &r, nil
}

// PlaceFile gives the file at tmp (written, synced) the name dest, for a
// backup or an export. Without replace a hard link does it, which fails
// with ErrBackupExists rather than overwrite a file or symlink that
// appeared meanwhile; a rename replaces dest (never what a symlink there
// points to) in one step.
func PlaceFile(tmp, dest string, replace bool) error {
	if !replace {
		err := os.Link(tmp, dest)
		switch {
		case err == nil:
			return syncDir(filepath.Dir(dest))
		case errors.Is(err, fs.ErrExist):
			return ErrBackupExists
		case !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOTSUP) && !errors.Is(err, syscall.EXDEV):
			return fmt.Errorf("models: name the backup %s: %w", dest, err)
		}
		// A file system without hard links: check, then rename.
		if _, err := os.Lstat(dest); err == nil {
			return ErrBackupExists
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		return fmt.Errorf("models: name the backup %s: %w", dest, err)
	}
	return syncDir(filepath.Dir(dest))
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("models: sync the backup: %w", err)
	}
	return f.Close()
}

// syncDir makes a new name in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("models: sync %s: %w", dir, err)
	}
	return nil
}
