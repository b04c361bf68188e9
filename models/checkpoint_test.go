package models

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A SQLite file's writer does not checkpoint when it commits; a
// background connection copies the WAL into the database file instead,
// within a few seconds, until Close.
func TestBackgroundCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cp.db")
	s := openStore(t, path)
	var auto int
	if err := s.db.Raw("PRAGMA wal_autocheckpoint").Scan(&auto).Error; err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Errorf("writer's wal_autocheckpoint = %d, want 0", auto)
	}
	const name = "Checkpointed Chloé"
	if _, _, err := s.CreateTable(context.Background(), NewTable{Game: "insecta", Names: []string{name}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * checkpointEvery)
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(name)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the write is still only in the WAL")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.stopCheckpoints != nil {
		t.Error("Close left the checkpoints running")
	}
}
