package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// RestartPostgres restarts the machine's PostgreSQL cluster (Debian's
// pg_ctlcluster, fast mode: open sessions are ended, not waited for) and
// returns once it has.
func RestartPostgres(ctx context.Context) error {
	versions, err := os.ReadDir("/etc/postgresql")
	if err != nil || len(versions) == 0 {
		return fmt.Errorf("restart PostgreSQL: no cluster in /etc/postgresql: %v", err)
	}
	out, err := exec.CommandContext(ctx, "pg_ctlcluster", "--skip-systemctl-redirect", versions[0].Name(), "main", "restart", "-m", "fast").CombinedOutput()
	if err != nil {
		return fmt.Errorf("restart PostgreSQL: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// EndConnections ends every PostgreSQL session of the application name
// app (pg_terminate_backend), again and again for d: to the replicas the
// database is away, as in a restart, while other programs on the same
// server are left alone.
func EndConnections(ctx context.Context, dsn, app string, d time.Duration) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	end := time.Now().Add(d)
	for {
		if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()", app); err != nil {
			return err
		}
		if time.Now().After(end) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}
